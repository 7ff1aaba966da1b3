import { RepeatedWarning } from './repeated-warning';

describe('RepeatedWarning', () => {
  const setUp = () => {
    let now = 1_000_000;
    const lines: string[] = [];
    const warning = new RepeatedWarning({ warn: (m) => lines.push(`warn ${m}`), log: (m) => lines.push(`log ${m}`) }, 30_000, () => now);
    return { warning, lines, advance: (ms: number) => (now += ms) };
  };

  it('writes the first warning, holds back those within the interval and counts them on the next line', () => {
    const { warning, lines, advance } = setUp();
    warning.warn('relay sweep failed: ECONNREFUSED');
    for (let i = 0; i < 5; i++) {
      advance(5_000);
      warning.warn('relay sweep failed: ECONNREFUSED');
    }
    expect(lines).toEqual(['warn relay sweep failed: ECONNREFUSED']);
    advance(5_000);
    warning.warn('relay sweep failed: timeout');
    expect(lines).toEqual(['warn relay sweep failed: ECONNREFUSED', 'warn relay sweep failed: timeout (5 more since the last line)']);
  });

  it('says once that it works again, and only after a warning line; a failure after it waits out the interval too', () => {
    const { warning, lines, advance } = setUp();
    warning.recovered('works again');
    expect(lines).toEqual([]);
    warning.warn('failed');
    advance(1_000);
    warning.recovered('works again');
    warning.recovered('works again');
    advance(1_000);
    warning.warn('failed');
    expect(lines).toEqual(['warn failed', 'log works again']);
    advance(30_000);
    warning.warn('failed');
    warning.recovered('works again');
    expect(lines).toEqual(['warn failed', 'log works again', 'warn failed (1 more since the last line)', 'log works again']);
  });

  it('writes two lines at most every interval for something that fails and works by turns (it wrote two for each failure)', () => {
    const { warning, lines, advance } = setUp();
    for (let i = 0; i < 100; i++) {
      warning.warn('rate-limit store unavailable');
      advance(100);
      warning.recovered('works again');
      advance(100);
    }
    expect(lines).toEqual(['warn rate-limit store unavailable', 'log works again']);
  });
});
