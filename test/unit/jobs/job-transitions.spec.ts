import { draftJob, Job, JobTransitions } from '../../../src/modules/jobs/domain/job';
import { JobRequest, JobSettings } from '../../../src/modules/jobs/domain/job-settings';
import { JobStatus } from '../../../src/modules/jobs/domain/job-status';
import { domainErrorFrom } from '../support/domain-error';

const NOW = new Date('2030-01-02T03:04:05.000Z');
const SETTINGS: JobSettings = {
  model: 'pro',
  outputFormat: 'mov',
  background: { type: 'color', color: [1, 2, 3] },
  composition: null,
  previewDuration: 5,
  textPrompt: 'person',
};
const REQUEST: JobRequest = { model: 'pro', output_format: 'mov', bg_color: [1, 2, 3], bg_type: 'custom' };

function jobIn(status: JobStatus, overrides: Partial<Job> = {}): Job {
  const draft = draftJob({
    id: 'job_test',
    apiKeyId: 'key_1',
    videoUrl: 'https://example.com/in.mp4',
    request: {},
    settings: { model: 'original', outputFormat: 'webm', background: { type: 'transparent' }, composition: null, previewDuration: null, textPrompt: null },
    webhookUrl: null,
    metadata: null,
    createdAt: new Date('2030-01-01T00:00:00.000Z'),
  });
  return { ...draft, status, progress: 37, ...overrides };
}

const ALL: JobStatus[] = ['created', 'pending', 'processing', 'completed', 'failed'];
const others = (...allowed: JobStatus[]): JobStatus[] => ALL.filter((s) => !allowed.includes(s));

describe('JobTransitions.start', () => {
  it('moves a draft to pending with the resolved settings, request, start time and progress 0', () => {
    expect(JobTransitions.start(jobIn('created'), SETTINGS, REQUEST, NOW)).toEqual({
      status: 'pending',
      settings: SETTINGS,
      request: REQUEST,
      startedAt: NOW,
      progress: 0,
    });
  });

  it('does not mutate the job it is given', () => {
    const job = jobIn('created');
    const before = structuredClone(job);
    JobTransitions.start(job, SETTINGS, REQUEST, NOW);
    expect(job).toEqual(before);
  });

  it.each(others('created'))('refuses a job in %s with invalid_state', (status) => {
    expect(domainErrorFrom(() => JobTransitions.start(jobIn(status), SETTINGS, REQUEST, NOW)).code).toBe('invalid_state');
  });
});

describe('JobTransitions.pickUp', () => {
  it('moves a pending job to processing at progress 0', () => {
    expect(JobTransitions.pickUp(jobIn('pending'))).toEqual({ status: 'processing', progress: 0 });
  });

  it.each(others('pending'))('refuses a job in %s with invalid_state', (status) => {
    expect(domainErrorFrom(() => JobTransitions.pickUp(jobIn(status))).code).toBe('invalid_state');
  });
});

describe('JobTransitions.complete', () => {
  const result = { outputKey: 'outputs/job_test.webm', durationSeconds: 12.5, notes: ['audio kept'] };

  it('moves a processing job to completed with progress 100, output and completion time', () => {
    expect(JobTransitions.complete(jobIn('processing'), result, NOW)).toEqual({
      status: 'completed',
      progress: 100,
      outputKey: 'outputs/job_test.webm',
      durationSeconds: 12.5,
      notes: ['audio kept'],
      completedAt: NOW,
    });
  });

  it.each(others('processing'))('refuses a job in %s with invalid_state', (status) => {
    expect(domainErrorFrom(() => JobTransitions.complete(jobIn(status), result, NOW)).code).toBe('invalid_state');
  });
});

describe('JobTransitions.fail', () => {
  it.each(['created', 'pending', 'processing'] as JobStatus[])('fails a job in %s with error, error_code and completion time', (status) => {
    expect(JobTransitions.fail(jobIn(status), 'input_unreachable', 'could not fetch the video', NOW)).toEqual({
      status: 'failed',
      error: 'could not fetch the video',
      errorCode: 'input_unreachable',
      completedAt: NOW,
    });
  });

  it('does not touch output or progress', () => {
    const changes = JobTransitions.fail(jobIn('processing'), 'worker_failed', 'boom', NOW);
    expect(changes).not.toHaveProperty('outputKey');
    expect(changes).not.toHaveProperty('progress');
  });

  it.each(['completed', 'failed'] as JobStatus[])('refuses a terminal job in %s with invalid_state', (status) => {
    expect(domainErrorFrom(() => JobTransitions.fail(jobIn(status), 'worker_failed', 'boom', NOW)).code).toBe('invalid_state');
  });
});
