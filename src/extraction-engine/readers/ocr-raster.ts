import sharp, { type Metadata, type SharpOptions } from 'sharp';
import type { Placement } from '../document.ts';
import type { OcrImage } from './ocr-pool.ts';
import { findPaper, paperPreviewLongSide, type FoundPaper } from './paper-region.ts';
import { flattenIllumination, levelAtShare, measureTextLayout, type GreyPixels, type TextLayout } from './ocr-preprocessing.ts';
import { readingLimits } from './reading-limits.ts';

// Rasters reach OCR from images (PNG, JPEG, TIFF, WebP, GIF) and from rendered PDF pages. Tesseract
// reads best at roughly 300 dpi with dark text on a light background; A4 at 300 dpi is ~2500 x 3500
// pixels. Small images are scaled up towards that, huge ones down, and everything is flattened to
// greyscale PNG, which also strips alpha (transparent text backgrounds read as black otherwise).
// Uneven lighting is divided out and a slant of a few degrees turned away first (ocr-preprocessing.ts).

export interface RasterSource {
  input: Buffer | Uint8Array;
  /** Raw pixels need their layout; encoded images describe themselves. */
  raw?: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
  /** Page (frame) of a multi-page TIFF or animated image. */
  page?: number;
  /** The least the raster is scaled by (a scan drawn below 300 dpi is brought to 300 dpi; default 1). */
  atLeastScale?: number;
  /** Divide out uneven lighting and straighten a slant (default true); off only to measure what it gains. */
  correctLightingAndSlant?: boolean;
  /**
   * Read only the paper when the image is a photo of it on a darker surface (paper-region.ts): a whole
   * page, as given. Off for a crop of a page, which is placed by its own reader.
   */
  findPaper?: boolean;
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
  const upright = source.raw ?? uprightSize(metadata);
  if (!upright.width || !upright.height) throw new Error('The image has no size');
  const paper = source.findPaper ? await paperInImage(source.input, options) : undefined;
  const region = paper ? pixelRegion(paper.region, upright.width, upright.height) : undefined;
  const width = region?.width ?? upright.width;
  const height = region?.height ?? upright.height;

  const scale = ocrScale(width, height, source.atLeastScale);
  const targetWidth = Math.max(1, Math.round(width * scale));
  const targetHeight = Math.max(1, Math.round(height * scale));
  image.rotate(); // applies EXIF orientation, so phone photos are upright
  // After the turn, so the region is cut from the photo as it is shown.
  if (region) image.extract(region);
  const { data, info } = await image
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize(targetWidth, targetHeight, { fit: 'fill', kernel: scale > 1 ? 'lanczos3' : 'lanczos2' })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const grey = { data, width: info.width, height: info.height };
  if (paper) paintAllButPaper(grey, paper);
  const corrected = source.correctLightingAndSlant ?? true;
  const evenlyLit = corrected ? await flattenIllumination(grey) : grey;
  const { skewDegrees, lineDirection }: TextLayout = corrected ? await measureTextLayout(evenlyLit) : { skewDegrees: 0 };
  const raw = { raw: { width: info.width, height: info.height, channels: 1 as const } };
  if (Math.abs(skewDegrees) < minimumSkewToTurnDegrees) {
    // One channel ('b-w'): a third of the bytes for tesseract to read.
    return {
      bytes: await sharp(evenlyLit.data, raw).toColourspace('b-w').png({ compressionLevel: 1 }).toBuffer(),
      width: info.width,
      height: info.height,
      ...(lineDirection ? { lineDirection } : {}),
      ...(paper ? { paper: paper.region } : {}),
    };
  }
  const turned = await sharp(evenlyLit.data, raw)
    .rotate(-skewDegrees, { background: '#ffffff' })
    .toColourspace('b-w')
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true });
  return {
    bytes: turned.data,
    width: turned.info.width,
    height: turned.info.height,
    ...(lineDirection ? { lineDirection } : {}),
    ...(paper ? { paper: paper.region } : {}),
    deskew: { degrees: skewDegrees, givenWidth: info.width, givenHeight: info.height, turnedWidth: turned.info.width, turnedHeight: turned.info.height },
  };
}

/** The paper in a photo of it (paper-region.ts), found on a small greyscale preview of the image as shown. */
async function paperInImage(input: Buffer | Uint8Array, options: SharpOptions): Promise<FoundPaper | undefined> {
  const { data, info } = await sharp(input, options)
    .rotate()
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize(paperPreviewLongSide, paperPreviewLongSide, { fit: 'inside' })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return findPaper({ data, width: info.width, height: info.height });
}

/**
 * Paints what the paper's region holds of the table around it the paper's own level (in place; `grey`
 * is that region). The paper's level, not white: white around greyer paper read as a shadow on it.
 */
function paintAllButPaper(grey: GreyPixels, paper: FoundPaper): void {
  const { region } = paper;
  const onPaper = new Uint8Array(grey.width * grey.height);
  const histogram = new Uint32Array(256);
  let paperCount = 0;
  for (let y = 0; y < grey.height; y += 1) {
    const onPhotoY = region.y + ((y + 0.5) / grey.height) * region.height;
    for (let x = 0; x < grey.width; x += 1) {
      const index = y * grey.width + x;
      if (!paper.covers(region.x + ((x + 0.5) / grey.width) * region.width, onPhotoY)) continue;
      onPaper[index] = 1;
      histogram[grey.data[index]!]! += 1;
      paperCount += 1;
    }
  }
  // The paper is the bright majority of what it covers (its print is the rest): the median level.
  const level = levelAtShare(histogram, paperCount, 0.5);
  for (let index = 0; index < onPaper.length; index += 1) if (onPaper[index] === 0) grey.data[index] = level;
}

/** A region given as fractions of an image, in its whole pixels. */
function pixelRegion(region: Placement, width: number, height: number): { left: number; top: number; width: number; height: number } {
  const left = Math.min(width - 1, Math.max(0, Math.floor(region.x * width)));
  const top = Math.min(height - 1, Math.max(0, Math.floor(region.y * height)));
  const right = Math.max(left + 1, Math.min(width, Math.ceil((region.x + region.width) * width)));
  const bottom = Math.max(top + 1, Math.min(height, Math.ceil((region.y + region.height) * height)));
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * The size of one page of the image as it is shown: a phone stores a portrait photo as landscape pixels
 * with an EXIF orientation of 5-8 (a quarter turn), which rotate() applies. Resizing a portrait photo to
 * the stored landscape size stretched it out of shape: a 3:4 portrait was read as 4:3, a till receipt worse.
 */
function uprightSize(metadata: Metadata): { width: number | undefined; height: number | undefined } {
  const storedHeight = metadata.pageHeight ?? metadata.height;
  return (metadata.orientation ?? 1) >= 5 ? { width: storedHeight, height: metadata.width } : { width: metadata.width, height: storedHeight };
}

/** Tesseract follows lines slanted by a degree or so itself; turning the raster only pays beyond that. */
const minimumSkewToTurnDegrees = 1;

/** Scale factor that brings the long side towards ~300 dpi (at least `atLeast`) without exceeding the OCR pixel cap. */
export function ocrScale(width: number, height: number, atLeast = 1): number {
  const longSide = Math.max(width, height);
  const upscale = Math.max(atLeast, longSide < readingLimits.minOcrLongSidePixels ? Math.min(3, readingLimits.minOcrLongSidePixels / longSide) : 1);
  // The pixel cap bounds the raster after scaling: a scan drawn small on a huge page would otherwise be
  // brought to 300 dpi far beyond it.
  return Math.min(upscale, Math.sqrt(readingLimits.maxOcrPixels / (width * height)));
}
