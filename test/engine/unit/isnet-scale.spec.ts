import { CHECK_EVERY, CHECK_EVERY_MOST, IsnetScalePolicy, SCALES_AGREE, SCALES_STILL_AGREE, SUSPECT_BELOW } from '../../../src/engine/models/original/isnet-scale';

/** runs `count` keyframes whose planes match the moved matte `moved`, returning the sizes they ran first and on which of them a check was due */
function keyframes(policy: IsnetScalePolicy, count: number, moved = 0.9): { scales: string[]; checks: number[] } {
  const scales: string[] = [];
  const checks: number[] = [];
  for (let k = 0; k < count; k++) {
    scales.push(policy.next);
    if (policy.needsCheck(moved)) checks.push(k);
  }
  return { scales, checks };
}

describe("original: ISNet's input size per keyframe", () => {
  it('a shot whose first keyframe has its two sizes agree runs the small size after it; one where they disagree stays at the full size', () => {
    const agreeing = new IsnetScalePolicy();
    agreeing.start(SCALES_AGREE);
    expect(agreeing.next).toBe('small');
    const disagreeing = new IsnetScalePolicy();
    disagreeing.start(SCALES_AGREE - 0.01);
    expect(disagreeing.next).toBe('full');
  });

  it('at either size, every CHECK_EVERY-th keyframe runs both', () => {
    for (const first of [0.99, 0.2]) {
      const policy = new IsnetScalePolicy();
      policy.start(first);
      const { scales, checks } = keyframes(policy, CHECK_EVERY);
      expect(new Set(scales)).toEqual(new Set([first >= SCALES_AGREE ? 'small' : 'full']));
      expect(checks).toEqual([CHECK_EVERY - 1]);
    }
  });

  it('a small plane far from the moved matte (the subject changed, or the small size lost it) is checked at once; a full one is not', () => {
    const small = new IsnetScalePolicy();
    small.start(0.99);
    expect(small.needsCheck(SUSPECT_BELOW)).toBe(false);
    expect(small.needsCheck(SUSPECT_BELOW - 0.01)).toBe(true);
    const full = new IsnetScalePolicy();
    full.start(0.5);
    expect(full.needsCheck(0)).toBe(false);
  });

  it('a check keeps the small size down to SCALES_STILL_AGREE and turns to it from SCALES_AGREE; a check restarts the count', () => {
    const policy = new IsnetScalePolicy();
    policy.start(0.99);
    policy.checked(SCALES_STILL_AGREE, 1);
    expect(policy.next).toBe('small');
    policy.checked(SCALES_STILL_AGREE - 0.01, 1);
    expect(policy.next).toBe('full');
    policy.checked(SCALES_AGREE - 0.01, 1);
    expect(policy.next).toBe('full');
    policy.checked(SCALES_AGREE, 1);
    expect(policy.next).toBe('small');
    expect(keyframes(policy, CHECK_EVERY).checks).toEqual([CHECK_EVERY - 1]);
  });

  it('at the full size, each check that still disagrees doubles the keyframes to the next, up to CHECK_EVERY_MOST; an agreeing one starts over', () => {
    const policy = new IsnetScalePolicy();
    policy.start(0.5);
    const gaps: number[] = [];
    for (let check = 0; check < 5; check++) {
      gaps.push(keyframes(policy, CHECK_EVERY_MOST).checks[0] + 1);
      policy.checked(0.5, 1);
    }
    expect(gaps).toEqual([CHECK_EVERY, 2 * CHECK_EVERY, 4 * CHECK_EVERY, CHECK_EVERY_MOST, CHECK_EVERY_MOST]);
    policy.checked(0.99, 1);
    expect(policy.next).toBe('small');
    expect(keyframes(policy, CHECK_EVERY).checks).toEqual([CHECK_EVERY - 1]);
  });

  it('a check whose full plane is as far from the moved matte as a suspect small one (an odd keyframe at either size) leaves the size as it is', () => {
    const policy = new IsnetScalePolicy();
    policy.start(0.99);
    expect(policy.needsCheck(0.1)).toBe(true);
    policy.checked(0, SUSPECT_BELOW - 0.01);
    expect(policy.next).toBe('small');
    policy.checked(0, SUSPECT_BELOW);
    expect(policy.next).toBe('full');
  });
});
