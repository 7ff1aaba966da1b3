import { Clock, FixedClock, SystemClock } from '../../src/common/clock';
import { Ids, RandomIds, SequentialIds } from '../../src/common/ids';
import { ID_LENGTH, ID_PREFIX, isJobId, isUploadId } from '../../src/contract/ids';

describe.each([
  ['SystemClock', () => new SystemClock(), (_clock: Clock, ms: number) => new Promise((resolve) => setTimeout(resolve, ms))],
  ['FixedClock', () => FixedClock.at('2026-01-01T00:00:00Z'), (clock: Clock, ms: number) => (clock as FixedClock).advance(ms)],
])('Clock contract: %s', (_name, make, pass) => {
  it('never goes back, and moves forward as time passes', async () => {
    const clock = make();
    const before = clock.now().getTime();
    await pass(clock, 25);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(before + 20);
  });

  it('hands out a fresh Date each time: changing one changes nothing else', () => {
    const clock = make();
    const first = clock.now();
    first.setFullYear(1990);
    expect(clock.now().getFullYear()).toBeGreaterThan(2000);
  });
});

describe.each([
  ['RandomIds', () => new RandomIds()],
  ['SequentialIds', () => new SequentialIds()],
])('Ids contract: %s', (_name, make) => {
  let ids: Ids;
  beforeEach(() => {
    ids = make();
  });

  it('job and upload ids have the shapes the API checks', () => {
    expect(isJobId(ids.job())).toBe(true);
    expect(isUploadId(ids.upload())).toBe(true);
    const message = ids.webhookMessage();
    expect(message.startsWith(ID_PREFIX.webhookMessage)).toBe(true);
    expect(message).toHaveLength(ID_PREFIX.webhookMessage.length + ID_LENGTH.webhookMessage);
    expect(message).toMatch(/^msg_[0-9A-Za-z]+$/);
  });

  it('never repeats an id', () => {
    const made = Array.from({ length: 2000 }, () => [ids.job(), ids.upload(), ids.webhookMessage()]).flat();
    expect(new Set(made).size).toBe(made.length);
  });
});
