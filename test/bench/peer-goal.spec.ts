import { peerSummary, peerVerdict } from '../../bench/matting/peer-goal';

describe("the peer goal (original >= 20x faster than @imgly/background-removal-node at equal or better IoU)", () => {
  it('is met at 20x and equal IoU, the boundary', () => {
    expect(peerVerdict({ ratio: 20, peerIou: 0.98, ownIou: 0.98 })).toBe('met');
  });

  it('says which half is missed', () => {
    expect(peerVerdict({ ratio: 19.9, peerIou: 0.9, ownIou: 0.95 })).toBe('MISSED (slower)');
    expect(peerVerdict({ ratio: 25, peerIou: 0.9807, ownIou: 0.9802 })).toBe('MISSED (lower IoU)');
    expect(peerVerdict({ ratio: 4, peerIou: 0.96, ownIou: 0.9 })).toBe('MISSED (slower, lower IoU)');
  });

  it('sums up every clip: mean IoU of each side, the range of ratios, the clips where it is met', () => {
    const line = peerSummary([
      { ratio: 16, peerIou: 0.4, ownIou: 0.9 },
      { ratio: 22, peerIou: 0.9, ownIou: 0.92 },
      { ratio: 5, peerIou: 0.8, ownIou: 0.7 },
    ]);
    expect(line).toBe('over 3 clips: mean IoU peer 0.7000, original 0.8400; x faster 5.0-22.0; goal met on 1 of 3');
  });
});
