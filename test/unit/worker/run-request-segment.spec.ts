import { RunRequestInvalid, validateRunRequest } from '../../../src/worker/run-request';

const body = (segment?: unknown) => ({
  input: {
    job_id: 'job_1',
    input_url: 'http://api.test/in',
    output_upload_url: 'http://api.test/out',
    background_image_url: null,
    settings: { model: 'light', outputFormat: 'webm', background: { type: 'transparent' } },
    max_duration_seconds: 600,
    ...(segment === undefined ? {} : { segment }),
  },
});

describe('a /run request for one chunk of a long job', () => {
  it('carries its segment through to the worker', () => {
    expect(validateRunRequest(body({ start_seconds: 15, end_seconds: 30, preroll_seconds: 1 })).input.segment).toEqual({ start_seconds: 15, end_seconds: 30, preroll_seconds: 1 });
    expect(validateRunRequest(body({ start_seconds: 30, preroll_seconds: 0 })).input.segment).toEqual({ start_seconds: 30, preroll_seconds: 0 });
    expect(validateRunRequest(body()).input.segment).toBeUndefined();
  });

  it.each([
    ['not an object', 'from 15 s'],
    ['a negative start', { start_seconds: -1, preroll_seconds: 0 }],
    ['no pre-roll', { start_seconds: 15 }],
    ['an end that is not a number', { start_seconds: 0, end_seconds: 'later', preroll_seconds: 0 }],
  ])('is refused with 400 for %s', (_what, segment) => {
    expect(() => validateRunRequest(body(segment))).toThrow(RunRequestInvalid);
  });
});
