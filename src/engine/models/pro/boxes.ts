/** Axis-aligned boxes in normalised frame coordinates (0..1 on both axes, y down). */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export function boxArea(b: Box): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

/** the box both boxes cover (empty, of area 0, where they do not meet) */
export function intersectionBox(a: Box, b: Box): Box {
  return { x0: Math.max(a.x0, b.x0), y0: Math.max(a.y0, b.y0), x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1) };
}

export function intersectionArea(a: Box, b: Box): number {
  return boxArea(intersectionBox(a, b));
}

/** at least `share` of `inner`'s area lies inside `outer` */
export function liesInside(inner: Box, outer: Box, share: number): boolean {
  return intersectionArea(inner, outer) >= share * boxArea(inner);
}

/** intersection over union; 0 for disjoint or empty boxes */
export function iou(a: Box, b: Box): number {
  const inter = intersectionArea(a, b);
  const union = boxArea(a) + boxArea(b) - inter;
  return union > 0 ? inter / union : 0;
}

/** the point midway across and down the box */
export function boxCentre(b: Box): { x: number; y: number } {
  return { x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2 };
}

export function clampBox(b: Box): Box {
  const c = (v: number) => Math.min(1, Math.max(0, v));
  return { x0: c(b.x0), y0: c(b.y0), x1: c(b.x1), y1: c(b.y1) };
}

/** grows a box by `fraction` of its own size on each side (clamped to the frame) */
export function expandBox(b: Box, fraction: number): Box {
  const dx = (b.x1 - b.x0) * fraction;
  const dy = (b.y1 - b.y0) * fraction;
  return clampBox({ x0: b.x0 - dx, y0: b.y0 - dy, x1: b.x1 + dx, y1: b.y1 + dy });
}

export function translateBox(b: Box, dx: number, dy: number): Box {
  return { x0: b.x0 + dx, y0: b.y0 + dy, x1: b.x1 + dx, y1: b.y1 + dy };
}

/** per-coordinate blend: weight * a + (1 - weight) * b */
export function blendBoxes(a: Box, b: Box, weight: number): Box {
  const mix = (p: number, q: number) => weight * p + (1 - weight) * q;
  return { x0: mix(a.x0, b.x0), y0: mix(a.y0, b.y0), x1: mix(a.x1, b.x1), y1: mix(a.y1, b.y1) };
}
