import type { PdfViewport } from './pdf-text-layer.ts';

// Finds where a page paints raster images, from the page's pdf.js operator list. Only the current
// transformation matrix needs tracking: an image fills the unit square of the matrix in force when
// it is painted.

/** pdf.js operator codes this module follows (values of pdfjs.OPS). */
export interface PdfOperatorCodes {
  save: number;
  restore: number;
  transform: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
  paintImageXObject: number;
  paintInlineImageXObject: number;
  paintImageMaskXObject: number;
}

/** A painted image in viewport space (points, origin top-left) and its own pixel size. */
export interface PaintedImageRegion {
  left: number;
  top: number;
  right: number;
  bottom: number;
  pixelWidth: number;
  pixelHeight: number;
}

type Matrix = [number, number, number, number, number, number];
const identity: Matrix = [1, 0, 0, 1, 0, 0];

function multiply(outer: readonly number[], inner: readonly number[]): Matrix {
  const [a1 = 0, b1 = 0, c1 = 0, d1 = 0, e1 = 0, f1 = 0] = outer;
  const [a2 = 0, b2 = 0, c2 = 0, d2 = 0, e2 = 0, f2 = 0] = inner;
  return [a2 * a1 + b2 * c1, a2 * b1 + b2 * d1, c2 * a1 + d2 * c1, c2 * b1 + d2 * d1, e2 * a1 + f2 * c1 + e1, e2 * b1 + f2 * d1 + f1];
}

function isMatrix(value: unknown): value is number[] {
  return Array.isArray(value) && value.length >= 6 && value.slice(0, 6).every((entry) => typeof entry === 'number');
}

export function paintedImageRegions(
  operatorList: { fnArray: number[]; argsArray: unknown[] },
  codes: PdfOperatorCodes,
  viewport: PdfViewport,
): PaintedImageRegion[] {
  const regions: PaintedImageRegion[] = [];
  const stack: Matrix[] = [];
  let current: Matrix = identity;
  operatorList.fnArray.forEach((operator, index) => {
    const args = operatorList.argsArray[index];
    switch (operator) {
      case codes.save:
        stack.push(current);
        break;
      case codes.restore:
        current = stack.pop() ?? identity;
        break;
      case codes.transform:
        if (isMatrix(args)) current = multiply(current, args);
        break;
      case codes.paintFormXObjectBegin: {
        stack.push(current);
        const formMatrix = Array.isArray(args) ? args[0] : undefined;
        if (isMatrix(formMatrix)) current = multiply(current, formMatrix);
        break;
      }
      case codes.paintFormXObjectEnd:
        current = stack.pop() ?? identity;
        break;
      case codes.paintImageXObject:
      case codes.paintInlineImageXObject:
      case codes.paintImageMaskXObject: {
        const region = regionOfUnitSquare(multiply(viewport.transform, current), args);
        if (region) regions.push(region);
        break;
      }
      default:
        break;
    }
  });
  return regions;
}

function regionOfUnitSquare(toViewport: Matrix, args: unknown): PaintedImageRegion | undefined {
  const corners = [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ].map(([x = 0, y = 0]) => [toViewport[0] * x + toViewport[2] * y + toViewport[4], toViewport[1] * x + toViewport[3] * y + toViewport[5]] as const);
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const [pixelWidth, pixelHeight] = imagePixelSize(args);
  const region = { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys), pixelWidth, pixelHeight };
  return Number.isFinite(region.left + region.right + region.top + region.bottom) ? region : undefined;
}

/** paintImageXObject carries [objectId, width, height]; inline images and masks carry the image data object. */
function imagePixelSize(args: unknown): [number, number] {
  if (!Array.isArray(args)) return [0, 0];
  if (typeof args[1] === 'number' && typeof args[2] === 'number') return [args[1], args[2]];
  const image = args[0] as { width?: unknown; height?: unknown } | undefined;
  return typeof image?.width === 'number' && typeof image.height === 'number' ? [image.width, image.height] : [0, 0];
}
