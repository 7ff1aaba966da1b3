import { mean } from '../engine/stats';

/** The peer goal of issue 14, judged per clip: `original` >= 20x faster per frame than the peer at equal or better IoU. */

export const PEER_RATIO_GOAL = 20;

export interface PeerComparison {
  /** peer time per frame / `original`'s */
  ratio: number;
  peerIou: number;
  /** `original`'s IoU on the frames the peer was scored on */
  ownIou: number;
}

export function peerVerdict({ ratio, peerIou, ownIou }: PeerComparison): string {
  const missed = [...(ratio < PEER_RATIO_GOAL ? ['slower'] : []), ...(ownIou < peerIou ? ['lower IoU'] : [])];
  return missed.length ? `MISSED (${missed.join(', ')})` : 'met';
}

/** one line over every clip compared: mean IoU of each, the range of ratios, and on how many clips the goal is met */
export function peerSummary(compared: readonly PeerComparison[]): string {
  const ratios = compared.map((c) => c.ratio);
  const met = compared.filter((c) => peerVerdict(c) === 'met').length;
  return (
    `over ${compared.length} clips: mean IoU peer ${mean(compared.map((c) => c.peerIou)).toFixed(4)}, original ${mean(compared.map((c) => c.ownIou)).toFixed(4)}; ` +
    `x faster ${Math.min(...ratios).toFixed(1)}-${Math.max(...ratios).toFixed(1)}; goal met on ${met} of ${compared.length}`
  );
}
