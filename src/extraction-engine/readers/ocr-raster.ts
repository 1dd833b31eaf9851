import sharp, { type SharpOptions } from 'sharp';
import type { OcrImage } from './ocr-pool.ts';
import { readingLimits } from './reading-limits.ts';

// Rasters reach OCR from images (PNG, JPEG, TIFF, WebP, GIF) and from rendered PDF pages. Tesseract
// reads best at roughly 300 dpi with dark text on a light background; A4 at 300 dpi is ~2500 x 3500
// pixels. Small images are scaled up towards that, huge ones down, and everything is flattened to
// greyscale PNG, which also strips alpha (transparent text backgrounds read as black otherwise).

export interface RasterSource {
  input: Buffer | Uint8Array;
  /** Raw pixels need their layout; encoded images describe themselves. */
  raw?: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
  /** Page (frame) of a multi-page TIFF or animated image. */
  page?: number;
}

/**
 * Number of document pages in an encoded image: the pages of a multi-page TIFF (fax, scanner output).
 * Frames of an animated GIF or WebP are not pages; only the first is read.
 */
export async function imagePageCount(input: Uint8Array): Promise<number> {
  const metadata = await sharp(input, { limitInputPixels: readingLimits.maxDecodedImagePixels }).metadata();
  return metadata.format === 'tiff' ? (metadata.pages ?? 1) : 1;
}

/** Converts one image (or one page of it) into the PNG handed to tesseract. */
export async function prepareOcrRaster(source: RasterSource): Promise<OcrImage> {
  const options: SharpOptions = {
    limitInputPixels: readingLimits.maxDecodedImagePixels,
    ...(source.raw ? { raw: source.raw } : {}),
    ...(source.page !== undefined ? { page: source.page } : {}),
  };
  const image = sharp(source.input, options);
  const metadata = await image.metadata();
  const width = source.raw?.width ?? metadata.width;
  const height = source.raw?.height ?? metadata.pageHeight ?? metadata.height;
  if (!width || !height) throw new Error('The image has no size');

  const scale = ocrScale(width, height);
  const targetWidth = Math.max(1, Math.round(width * scale));
  const targetHeight = Math.max(1, Math.round(height * scale));
  const { data, info } = await image
    .rotate() // applies EXIF orientation, so phone photos are upright
    .flatten({ background: '#ffffff' })
    .greyscale()
    .toColourspace('b-w') // one channel: a third of the bytes for tesseract to read
    .resize(targetWidth, targetHeight, { fit: 'fill', kernel: scale > 1 ? 'lanczos3' : 'lanczos2' })
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true });
  return { bytes: data, width: info.width, height: info.height };
}

/** Scale factor that brings the long side towards ~300 dpi without exceeding the OCR pixel cap. */
export function ocrScale(width: number, height: number): number {
  const longSide = Math.max(width, height);
  const upscale = longSide < readingLimits.minOcrLongSidePixels ? Math.min(3, readingLimits.minOcrLongSidePixels / longSide) : 1;
  const downscale = Math.min(1, Math.sqrt(readingLimits.maxOcrPixels / (width * height)));
  return downscale < 1 ? downscale : upscale;
}
