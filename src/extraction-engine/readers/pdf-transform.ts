// PDF affine transforms [a, b, c, d, e, f]: a point (x, y) maps to (a·x + c·y + e, b·x + d·y + f).

export type Transform = [number, number, number, number, number, number];

export const identityTransform: Transform = [1, 0, 0, 1, 0, 0];

/** The transform that applies `inner` first, then `outer` (pdf.js Util.transform(outer, inner)). */
export function multiplyTransforms(outer: readonly number[], inner: readonly number[]): Transform {
  const [a1 = 0, b1 = 0, c1 = 0, d1 = 0, e1 = 0, f1 = 0] = outer;
  const [a2 = 0, b2 = 0, c2 = 0, d2 = 0, e2 = 0, f2 = 0] = inner;
  return [a2 * a1 + b2 * c1, a2 * b1 + b2 * d1, c2 * a1 + d2 * c1, c2 * b1 + d2 * d1, e2 * a1 + f2 * c1 + e1, e2 * b1 + f2 * d1 + f1];
}

export function applyTransform(transform: Transform, x: number, y: number): [number, number] {
  return [transform[0] * x + transform[2] * y + transform[4], transform[1] * x + transform[3] * y + transform[5]];
}

/** Axis-aligned bounds of the rectangle [x0, x1] × [y0, y1] after the transform. */
export function transformedBounds(transform: Transform, x0: number, y0: number, x1: number, y1: number): { left: number; top: number; right: number; bottom: number } {
  // applyTransform on the four corners, written out: this runs for every word of every page.
  const [a, b, c, d, e, f] = transform;
  const xs0 = a * x0 + c * y0 + e;
  const xs1 = a * x1 + c * y0 + e;
  const xs2 = a * x0 + c * y1 + e;
  const xs3 = a * x1 + c * y1 + e;
  const ys0 = b * x0 + d * y0 + f;
  const ys1 = b * x1 + d * y0 + f;
  const ys2 = b * x0 + d * y1 + f;
  const ys3 = b * x1 + d * y1 + f;
  return { left: Math.min(xs0, xs1, xs2, xs3), top: Math.min(ys0, ys1, ys2, ys3), right: Math.max(xs0, xs1, xs2, xs3), bottom: Math.max(ys0, ys1, ys2, ys3) };
}
