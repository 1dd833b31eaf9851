import type { PdfViewport } from './pdf-text-layer.ts';
import { identityTransform, multiplyTransforms, transformedBounds, type Transform } from './pdf-transform.ts';

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

function isTransform(value: unknown): value is number[] {
  return Array.isArray(value) && value.length >= 6 && value.slice(0, 6).every((entry) => typeof entry === 'number');
}

export function paintedImageRegions(
  operatorList: { fnArray: number[]; argsArray: unknown[] },
  codes: PdfOperatorCodes,
  viewport: PdfViewport,
): PaintedImageRegion[] {
  const regions: PaintedImageRegion[] = [];
  const stack: Transform[] = [];
  let current: Transform = identityTransform;
  operatorList.fnArray.forEach((operator, index) => {
    const args = operatorList.argsArray[index];
    switch (operator) {
      case codes.save:
        stack.push(current);
        break;
      case codes.restore:
        current = stack.pop() ?? identityTransform;
        break;
      case codes.transform:
        if (isTransform(args)) current = multiplyTransforms(current, args);
        break;
      case codes.paintFormXObjectBegin: {
        stack.push(current);
        const formMatrix = Array.isArray(args) ? args[0] : undefined;
        if (isTransform(formMatrix)) current = multiplyTransforms(current, formMatrix);
        break;
      }
      case codes.paintFormXObjectEnd:
        current = stack.pop() ?? identityTransform;
        break;
      case codes.paintImageXObject:
      case codes.paintInlineImageXObject:
      case codes.paintImageMaskXObject: {
        const region = regionOfUnitSquare(multiplyTransforms(viewport.transform, current), args);
        if (region) regions.push(region);
        break;
      }
      default:
        break;
    }
  });
  return regions;
}

function regionOfUnitSquare(toViewport: Transform, args: unknown): PaintedImageRegion | undefined {
  const bounds = transformedBounds(toViewport, 0, 0, 1, 1);
  const [pixelWidth, pixelHeight] = imagePixelSize(args);
  return Number.isFinite(bounds.left + bounds.right + bounds.top + bounds.bottom) ? { ...bounds, pixelWidth, pixelHeight } : undefined;
}

/** paintImageXObject carries [objectId, width, height]; inline images and masks carry the image data object. */
function imagePixelSize(args: unknown): [number, number] {
  if (!Array.isArray(args)) return [0, 0];
  if (typeof args[1] === 'number' && typeof args[2] === 'number') return [args[1], args[2]];
  const image = args[0] as { width?: unknown; height?: unknown } | undefined;
  return typeof image?.width === 'number' && typeof image.height === 'number' ? [image.width, image.height] : [0, 0];
}
