import sharp from 'sharp';
import type { Placement, TextLine } from '../document.ts';
import type { OcrImage, OcrPool, PageLayout } from './ocr-pool.ts';
import { placementOnStraightenedPage } from './ocr-preprocessing.ts';
import { clampToPage, unitePlacements } from './text-lines.ts';

// A part of a page raster read on its own, after the page was read whole: the second look's lines
// (line-second-look.ts) and the lines the page reading missed (missed-lines.ts). Boxes go from the
// page (where the reading placed its words) to the raster's pixels and back.

/** A box of raster pixels. */
export interface PixelBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * A box placed on the page (fractions, as the reading placed it) in pixels of the raster it was read
 * from, grown by `marginPixels` on every side and kept inside the raster.
 */
export function rasterBoxOf(placement: Placement, raster: OcrImage, marginPixels = 0): PixelBox {
  // Placements of a straightened raster refer to the page as given (placementOnStraightenedPage).
  const deskew = raster.deskew;
  const offsetX = deskew ? (deskew.turnedWidth - deskew.givenWidth) / 2 : 0;
  const offsetY = deskew ? (deskew.turnedHeight - deskew.givenHeight) / 2 : 0;
  const pageWidth = deskew ? deskew.givenWidth : raster.width;
  const pageHeight = deskew ? deskew.givenHeight : raster.height;
  const left = Math.max(0, Math.floor(placement.x * pageWidth + offsetX - marginPixels));
  const top = Math.max(0, Math.floor(placement.y * pageHeight + offsetY - marginPixels));
  const right = Math.min(raster.width, Math.ceil((placement.x + placement.width) * pageWidth + offsetX + marginPixels));
  const bottom = Math.min(raster.height, Math.ceil((placement.y + placement.height) * pageHeight + offsetY + marginPixels));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/**
 * Reads `box` of the raster alone, scaled by `scale` (contrast stretched if asked), and returns its
 * lines placed on the page as the first reading placed its own.
 */
export async function readRasterBox(
  ocr: OcrPool,
  raster: OcrImage,
  box: PixelBox,
  options: { scale: number; layout: PageLayout; timeoutMs: number; stretchContrast?: boolean },
): Promise<TextLine[]> {
  let crop = sharp(raster.bytes)
    .extract(box)
    .resize(Math.max(1, Math.round(box.width * options.scale)), Math.max(1, Math.round(box.height * options.scale)), { kernel: 'lanczos3' });
  if (options.stretchContrast) crop = crop.normalise();
  const { data, info } = await crop.png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
  const read = await ocr.recognize({ bytes: data, width: info.width, height: info.height }, { layout: options.layout, whole: true, timeoutMs: options.timeoutMs });
  const onPage = (placement: Placement): Placement => {
    const onRaster = clampToPage({
      x: (box.left + placement.x * box.width) / raster.width,
      y: (box.top + placement.y * box.height) / raster.height,
      width: (placement.width * box.width) / raster.width,
      height: (placement.height * box.height) / raster.height,
    });
    return raster.deskew ? placementOnStraightenedPage(onRaster, raster.deskew) : onRaster;
  };
  return read.map((line) => {
    const words = line.words.map((word) => ({ ...word, ...(word.placement ? { placement: onPage(word.placement) } : {}) }));
    const placements = words.flatMap((word) => (word.placement ? [word.placement] : []));
    return { ...line, words, ...(placements.length > 0 ? { placement: clampToPage(unitePlacements(placements)) } : {}) };
  });
}
