import {
  JobRequest,
  mergeRequest,
  OUTPUT_FORMATS,
  OutputFormat,
  parseColor,
  parseRgbArray,
  resolveBackground,
  resolveJobSettings,
  Rgb,
} from '../../../src/modules/jobs/domain/job-settings';
import { expectInvalidField } from '../support/domain-error';

describe('resolveJobSettings defaults', () => {
  it('an empty request is webm, model original, transparent, no composition/preview/prompt', () => {
    expect(resolveJobSettings({})).toEqual({
      model: 'original',
      outputFormat: 'webm',
      background: { type: 'transparent' },
      composition: null,
      previewDuration: null,
      textPrompt: null,
    });
  });

  it('keeps what the client sent', () => {
    const settings = resolveJobSettings({ model: 'human', output_format: 'gif', preview_duration: 2.5, text_prompt: 'dog, cat' });
    expect(settings).toMatchObject({ model: 'human', outputFormat: 'gif', previewDuration: 2.5, textPrompt: 'dog, cat' });
  });
});

describe('named bg_type colors', () => {
  it.each([
    ['green', [0x09, 0xa2, 0x46]],
    ['white', [255, 255, 255]],
    ['black', [0, 0, 0]],
    ['blue', [0x00, 0x47, 0xbb]],
  ] as Array<[JobRequest['bg_type'], Rgb]>)('%s', (bgType, rgb) => {
    expect(resolveBackground({ bg_type: bgType })).toEqual({ type: 'color', color: rgb });
  });

  it("green matches the original service's normalized [0.035, 0.635, 0.274]", () => {
    expect(resolveBackground({ bg_type: 'green' })).toEqual({ type: 'color', color: parseRgbArray([0.035, 0.635, 0.274], 'bg_color') });
  });

  it('transparent and absent bg_type are transparent', () => {
    expect(resolveBackground({ bg_type: 'transparent' })).toEqual({ type: 'transparent' });
    expect(resolveBackground({})).toEqual({ type: 'transparent' });
  });
});

describe('parseRgbArray (bg_color)', () => {
  it.each([
    ['[1,1,1] normalized is white', [1, 1, 1], [255, 255, 255]],
    ['[0,0,0] is black', [0, 0, 0], [0, 0, 0]],
    ['[0.5,0.5,0.5] normalized', [0.5, 0.5, 0.5], [128, 128, 128]],
    ['[0,1,0.2] normalized', [0, 1, 0.2], [0, 255, 51]],
    ['[0,128,255] integers', [0, 128, 255], [0, 128, 255]],
    ['[1,1,2] integers (one entry above 1)', [1, 1, 2], [1, 1, 2]],
    ['[255,255,255] integers', [255, 255, 255], [255, 255, 255]],
  ] as Array<[string, number[], Rgb]>)('%s', (_name, input, expected) => {
    expect(parseRgbArray(input, 'bg_color')).toEqual(expected);
  });

  it.each([
    ['mixed [0.5,128,3]', [0.5, 128, 3]],
    ['256', [0, 0, 256]],
    ['non-integer above 1', [1.5, 2, 3]],
    ['negative normalized', [-0.1, 0.5, 0.5]],
    ['negative integer', [-1, 128, 255]],
    ['two entries', [0, 0]],
    ['four entries', [0, 0, 0, 0]],
    ['empty array', []],
    ['a string entry', ['1', 1, 1]],
    ['NaN', [Number.NaN, 0, 0]],
    ['Infinity', [Number.POSITIVE_INFINITY, 0, 0]],
    ['null entry', [null, 0, 0]],
    ['a hex string', '#ffffff'],
    ['an object', { r: 1, g: 1, b: 1 }],
    ['a number', 1],
  ] as Array<[string, unknown]>)('refuses %s, naming the field', (_name, input) => {
    expectInvalidField(() => parseRgbArray(input, 'bg_color'), 'bg_color');
  });

  it('names whichever field it is told', () => {
    expectInvalidField(() => parseRgbArray([999, 0, 0], 'background.color'), 'background.color');
  });

  it('returns a copy, not the caller array', () => {
    const input = [10, 20, 30];
    const out = parseRgbArray(input, 'bg_color');
    input[0] = 99;
    expect(out).toEqual([10, 20, 30]);
  });
});

describe('parseColor', () => {
  it.each([
    ['#09A246', [9, 162, 70]],
    ['#09a246', [9, 162, 70]],
    ['#000000', [0, 0, 0]],
    ['#FFFFFF', [255, 255, 255]],
    ['#0047BB', [0, 71, 187]],
  ] as Array<[string, Rgb]>)('hex %s', (hex, rgb) => {
    expect(parseColor(hex, 'background.color')).toEqual(rgb);
  });

  it.each(['#FFF', '09A246', '#09A2467', '#GGGGGG', '', 'red', ' #09A246'])('refuses %j', (value) => {
    expectInvalidField(() => parseColor(value, 'background.color'), 'background.color');
  });

  it('accepts arrays with the bg_color rules', () => {
    expect(parseColor([1, 1, 1], 'background.color')).toEqual([255, 255, 255]);
    expect(parseColor([0, 128, 255], 'background.color')).toEqual([0, 128, 255]);
    expectInvalidField(() => parseColor([0.5, 128, 3], 'background.color'), 'background.color');
  });
});

describe('bg_type needing extra fields', () => {
  it.each(['custom', 'color'] as const)('%s uses bg_color', (bgType) => {
    expect(resolveBackground({ bg_type: bgType, bg_color: [0, 128, 255] })).toEqual({ type: 'color', color: [0, 128, 255] });
    expect(resolveBackground({ bg_type: bgType, bg_color: [1, 0, 0] })).toEqual({ type: 'color', color: [255, 0, 0] });
  });

  it.each(['custom', 'color'] as const)('%s without bg_color is refused naming bg_color', (bgType) => {
    expectInvalidField(() => resolveBackground({ bg_type: bgType }), 'bg_color');
    expectInvalidField(() => resolveBackground({ bg_type: bgType, bg_color: null }), 'bg_color');
  });

  it('custom with a bad bg_color is refused naming bg_color', () => {
    expectInvalidField(() => resolveBackground({ bg_type: 'custom', bg_color: [0.5, 128, 3] }), 'bg_color');
  });

  it('image uses bg_image_url', () => {
    expect(resolveBackground({ bg_type: 'image', bg_image_url: 'https://example.com/bg.png' })).toEqual({ type: 'image', image_url: 'https://example.com/bg.png' });
  });

  it('image without bg_image_url is refused naming bg_image_url', () => {
    expectInvalidField(() => resolveBackground({ bg_type: 'image' }), 'bg_image_url');
    expectInvalidField(() => resolveBackground({ bg_type: 'image', bg_image_url: '' }), 'bg_image_url');
  });
});

describe('background object', () => {
  it('wins over bg_type', () => {
    expect(resolveBackground({ bg_type: 'green', background: { type: 'transparent' } })).toEqual({ type: 'transparent' });
    expect(resolveBackground({ bg_type: 'transparent', background: { type: 'color', color: '#0047BB' } })).toEqual({ type: 'color', color: [0, 71, 187] });
    expect(resolveBackground({ bg_type: 'custom', bg_color: [1, 2, 3], background: { type: 'image', image_url: 'https://x.test/a.png' } })).toEqual({
      type: 'image',
      image_url: 'https://x.test/a.png',
    });
  });

  it('wins even when bg_type alone would be invalid', () => {
    expect(resolveBackground({ bg_type: 'custom', background: { type: 'transparent' } })).toEqual({ type: 'transparent' });
  });

  it('color takes hex, normalized or integer arrays', () => {
    expect(resolveBackground({ background: { type: 'color', color: '#09A246' } })).toEqual({ type: 'color', color: [9, 162, 70] });
    expect(resolveBackground({ background: { type: 'color', color: [1, 1, 1] } })).toEqual({ type: 'color', color: [255, 255, 255] });
    expect(resolveBackground({ background: { type: 'color', color: [0, 128, 255] } })).toEqual({ type: 'color', color: [0, 128, 255] });
  });

  it('color without or with a bad color is refused naming background.color', () => {
    expectInvalidField(() => resolveBackground({ background: { type: 'color' } }), 'background.color');
    expectInvalidField(() => resolveBackground({ background: { type: 'color', color: [256, 0, 0] } }), 'background.color');
    expectInvalidField(() => resolveBackground({ background: { type: 'color', color: '#12345' } }), 'background.color');
  });

  it('image without image_url is refused naming background.image_url', () => {
    expectInvalidField(() => resolveBackground({ background: { type: 'image' } }), 'background.image_url');
  });
});

describe('transparency needs an alpha-capable format', () => {
  const alpha = OUTPUT_FORMATS.filter((f) => f !== 'mp4');

  it.each(alpha)('%s with a transparent background is fine', (format) => {
    expect(resolveJobSettings({ output_format: format, bg_type: 'transparent' }).background).toEqual({ type: 'transparent' });
  });

  it.each([
    ['bg_type transparent', { bg_type: 'transparent' }],
    ['background transparent', { background: { type: 'transparent' } }],
    ['background transparent over bg_type green', { bg_type: 'green', background: { type: 'transparent' } }],
  ] as Array<[string, JobRequest]>)('mp4 with %s is refused, suggesting webm or a color', (_name, request) => {
    const error = expectInvalidField(() => resolveJobSettings({ ...request, output_format: 'mp4' }), 'output_format');
    expect(error.message).toContain('webm');
    expect(error.message).toContain('color');
  });

  it.each([
    ['a named color', { bg_type: 'black' }],
    ['a custom color', { bg_type: 'custom', bg_color: [0, 128, 255] }],
    ['an image', { bg_type: 'image', bg_image_url: 'https://example.com/bg.jpg' }],
  ] as Array<[string, JobRequest]>)('mp4 with %s is fine', (_name, request) => {
    expect(resolveJobSettings({ ...request, output_format: 'mp4' as OutputFormat }).outputFormat).toBe('mp4');
  });
});

describe('composition', () => {
  it('defaults anchor center, scale 1, offset 0,0', () => {
    expect(resolveJobSettings({ composition: {} }).composition).toEqual({ foreground: { anchor: 'center', scale: 1, offset: { x: 0, y: 0 } } });
    expect(resolveJobSettings({ composition: { foreground: {} } }).composition).toEqual({ foreground: { anchor: 'center', scale: 1, offset: { x: 0, y: 0 } } });
  });

  it('fills a partial offset', () => {
    expect(resolveJobSettings({ composition: { foreground: { offset: { x: 12 } } } }).composition?.foreground.offset).toEqual({ x: 12, y: 0 });
    expect(resolveJobSettings({ composition: { foreground: { offset: { y: -7 } } } }).composition?.foreground.offset).toEqual({ x: 0, y: -7 });
  });

  it('keeps what was sent, canvas included', () => {
    const composition = { canvas: { width: 1920, height: 1080 }, foreground: { anchor: 'bottom-right' as const, scale: 0.5, offset: { x: -20, y: -30 } } };
    expect(resolveJobSettings({ composition }).composition).toEqual(composition);
  });

  it('has no canvas unless one was sent', () => {
    expect(resolveJobSettings({ composition: {} }).composition).not.toHaveProperty('canvas');
  });

  it('is null when not sent', () => {
    expect(resolveJobSettings({}).composition).toBeNull();
  });
});

describe('mergeRequest', () => {
  it('overrides replace draft fields and the rest is kept', () => {
    const draft: JobRequest = { output_format: 'mov', model: 'light', text_prompt: 'dog' };
    expect(mergeRequest(draft, { output_format: 'gif' })).toEqual({ output_format: 'gif', model: 'light', text_prompt: 'dog' });
  });

  it('undefined overrides do not clear draft fields', () => {
    const draft: JobRequest = { output_format: 'mov', model: 'light' };
    expect(mergeRequest(draft, { output_format: undefined, model: undefined })).toEqual(draft);
  });

  it('does not mutate the draft', () => {
    const draft: JobRequest = { bg_type: 'green', background: { type: 'transparent' } };
    mergeRequest(draft, { bg_type: 'white' });
    expect(draft).toEqual({ bg_type: 'green', background: { type: 'transparent' } });
  });

  it('a bg_type override drops an earlier background', () => {
    const merged = mergeRequest({ background: { type: 'color', color: '#FFFFFF' } }, { bg_type: 'green' });
    expect(merged).not.toHaveProperty('background');
    expect(resolveBackground(merged)).toEqual({ type: 'color', color: [9, 162, 70] });
  });

  it('a bg_type override sent with a background keeps the new background', () => {
    const merged = mergeRequest({ background: { type: 'color', color: '#FFFFFF' } }, { bg_type: 'green', background: { type: 'transparent' } });
    expect(resolveBackground(merged)).toEqual({ type: 'transparent' });
  });

  it('a background override wins over an earlier bg_type', () => {
    const merged = mergeRequest({ bg_type: 'green' }, { background: { type: 'color', color: [0, 0, 255] } });
    expect(resolveBackground(merged)).toEqual({ type: 'color', color: [0, 0, 255] });
  });

  it('an override unrelated to the background keeps the draft background', () => {
    const merged = mergeRequest({ background: { type: 'color', color: '#0047BB' } }, { model: 'pro' });
    expect(resolveBackground(merged)).toEqual({ type: 'color', color: [0, 71, 187] });
  });

  it('a bg_type custom override can use the draft bg_color', () => {
    const merged = mergeRequest({ bg_color: [0, 128, 255] }, { bg_type: 'custom' });
    expect(resolveBackground(merged)).toEqual({ type: 'color', color: [0, 128, 255] });
  });
});
