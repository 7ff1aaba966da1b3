import { UsageError } from '../../src/cli/client/errors';
import { creditsOption } from '../../src/cli/credits-option';
import { numberOption, outputFormat, parseBackground } from '../../src/cli/client/job-options';
import { ProgressReporter } from '../../src/cli/client/progress';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => (written.push(text), true) };
}

describe('backdrop CLI options', () => {
  it('--bg: transparent, #RRGGBB or an http(s) image; anything else is a usage error', () => {
    expect(parseBackground('transparent')).toEqual({ type: 'transparent' });
    expect(parseBackground('#00ff00')).toEqual({ type: 'color', color: '#00FF00' });
    expect(parseBackground('https://example.com/a.jpg')).toEqual({ type: 'image', image_url: 'https://example.com/a.jpg' });
    for (const bad of ['green', '#0f0', 'ftp://x/y.png', '']) expect(() => parseBackground(bad)).toThrow(UsageError);
  });

  it('the format: --format wins, else the output extension, else webm', () => {
    expect(outputFormat('gif', 'out.webm')).toBe('gif');
    expect(outputFormat(undefined, 'out.MOV')).toBe('mov');
    expect(outputFormat(undefined, 'frames.zip')).toBe('png_sequence');
    expect(outputFormat(undefined, undefined)).toBe('webm');
    expect(() => outputFormat('avi', undefined)).toThrow('--format must be one of');
  });

  it('numbers within their range', () => {
    expect(numberOption('1.5', 'preview', { min: 0.5, max: 30 })).toBe(1.5);
    expect(numberOption(undefined, 'preview', { min: 0.5, max: 30 })).toBeUndefined();
    expect(() => numberOption('2.5', 'limit', { min: 1, max: 100, integer: true })).toThrow('--limit must be an integer from 1 to 100');
    expect(() => numberOption('abc', 'days', { min: 1, max: 90 })).toThrow(UsageError);
  });
});

describe('progress on stderr', () => {
  it('on a terminal: one bar redrawn in place, ended by the next message', () => {
    const terminal = stream(true);
    const progress = new ProgressReporter(terminal);
    progress.update('processing', 50);
    progress.update('completed', 100);
    progress.message('Saved out.webm');
    expect(terminal.written).toEqual([
      `\r\x1b[K[${'#'.repeat(15)}${'.'.repeat(15)}]  50%  processing`,
      `\r\x1b[K[${'#'.repeat(30)}] 100%  completed`,
      '\n',
      'Saved out.webm\n',
    ]);
  });

  it('in a pipe or a log: plain lines, one per change', () => {
    const pipe = stream(false);
    const progress = new ProgressReporter(pipe);
    progress.update('pending', 0);
    progress.update('pending', 0);
    progress.update('processing', 42.4);
    progress.update('completed', 100);
    expect(pipe.written).toEqual(['pending 0%\n', 'processing 42%\n', 'completed 100%\n']);
  });
});

describe('the admin CLI\'s --credits', () => {
  it('takes decimal whole numbers within what the admin API takes at once, signed for a grant', () => {
    expect(creditsOption('1000', 'credits', { allowNegative: false })).toBe(1000);
    expect(creditsOption('-300', 'credits', { allowNegative: true })).toBe(-300);
    expect(creditsOption('1000000000', 'credits', { allowNegative: false })).toBe(1_000_000_000);
    expect(creditsOption('-1000000000', 'credits', { allowNegative: true })).toBe(-1_000_000_000);
  });

  it('refuses exponents, hexadecimal, fractions, and anything past 1e9 (a balance past bigint made every later grant a 500)', () => {
    for (const bad of ['1e3', '0x10', '1.5', '', 'ten', '1000000001', '9007199254740993']) expect(() => creditsOption(bad, 'credits', { allowNegative: true })).toThrow('--credits');
    expect(() => creditsOption('-1', 'credits', { allowNegative: false })).toThrow('--credits must be from 0 to 1000000000');
    expect(() => creditsOption('-1000000001', 'credits', { allowNegative: true })).toThrow('--credits must be from -1000000000 to 1000000000');
  });
});
