import sharp from 'sharp';
import type { Placement } from '../document.ts';
import { clampToPage } from './text-lines.ts';

// Phone photos of paper are lit unevenly (a shadow across a receipt, a darker corner) and held at a
// slant. Tesseract binarises the whole page with one global threshold and follows text lines that are
// close to horizontal, so a shadow turns into black blotches and a 6° slant breaks lines apart. Both are
// corrected here on the greyscale raster before OCR: the paper's brightness is estimated per block and
// divided out, and the slant is measured from the text rows and rotated away.

/**
 * The grey level below which `share` of the `count` pixels counted in `histogram` (one bin per level)
 * lie: the lowest level whose running count reaches it; 255 when none does.
 */
export function levelAtShare(histogram: ArrayLike<number>, count: number, share: number): number {
  for (let level = 0, seen = 0; level < 256; level += 1) {
    seen += histogram[level]!;
    if (seen >= count * share) return level;
  }
  return 255;
}

/**
 * Visits the pixels 4-connected to `start` (an index into a `width` x `height` raster, row by row) that
 * `enter` admits: it is asked once per neighbour reached and marks the pixel itself, returning whether
 * it is entered now (so marks shared between calls keep each pixel to one area).
 */
export function floodFill(width: number, height: number, start: number, enter: (index: number) => boolean, visit: (index: number, x: number, y: number) => void): void {
  if (!enter(start)) return;
  const pending = [start];
  while (pending.length > 0) {
    const index = pending.pop()!;
    const x = index % width;
    const y = (index - x) / width;
    visit(index, x, y);
    if (x > 0 && enter(index - 1)) pending.push(index - 1);
    if (x < width - 1 && enter(index + 1)) pending.push(index + 1);
    if (y > 0 && enter(index - width)) pending.push(index - width);
    if (y < height - 1 && enter(index + width)) pending.push(index + width);
  }
}

/** A greyscale raster, one byte per pixel, row by row. */
export interface GreyPixels {
  data: Buffer;
  width: number;
  height: number;
}

/** Paper brightness is estimated per square block of this many pixels (larger than any letter). */
const backgroundBlockPixels = 48;
/** The paper is the bright majority of a block: this percentile of its pixels, not its mean (text pulls that down). */
const backgroundPercentile = 0.9;
/** A block darker than this is a picture or a dark border, not paper; its neighbours' brightness is used. */
const darkestPaperLevel = 60;

/**
 * Paper within this share of the page's paper level counts as evenly lit and is left as it is: dividing
 * by an estimated background is not free (it thins the grey edges of strokes, and tesseract misreads
 * faint thermal print a little more often), so it is only done where there is a shadow to undo.
 */
const evenLightShortfall = 0.08;
/** From this shortfall on, the background is divided out in full; in between the correction fades in. */
const shadowShortfall = 0.16;

/**
 * Divides out uneven lighting where the paper is clearly darker than the page's paper level: there each
 * pixel is scaled by the paper brightness around it, so the paper comes up to the page's level and text
 * keeps its contrast against it. Evenly lit paper (a flatbed scan, most of a photo in good light) is
 * left untouched.
 */
export async function flattenIllumination(image: GreyPixels): Promise<GreyPixels> {
  const { data, width, height } = image;
  const columns = Math.ceil(width / backgroundBlockPixels);
  const rows = Math.ceil(height / backgroundBlockPixels);
  const blockLevels = Buffer.alloc(columns * rows);
  const histogram = new Uint32Array(256);
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      histogram.fill(0);
      const top = row * backgroundBlockPixels;
      const left = column * backgroundBlockPixels;
      const bottom = Math.min(height, top + backgroundBlockPixels);
      const right = Math.min(width, left + backgroundBlockPixels);
      for (let y = top; y < bottom; y += 1) {
        for (let x = left; x < right; x += 1) histogram[data[y * width + x]!]! += 1;
      }
      const rank = Math.floor((bottom - top) * (right - left) * backgroundPercentile);
      let level = 0;
      for (let seen = 0; level < 255; level += 1) {
        seen += histogram[level]!;
        if (seen > rank) break;
      }
      blockLevels[row * columns + column] = level;
    }
  }
  fillDarkBlocks(blockLevels, columns, rows);
  const sortedLevels = [...blockLevels].sort((a, b) => a - b);
  const pageLevel = Math.max(darkestPaperLevel, sortedLevels[Math.floor((sortedLevels.length - 1) * backgroundPercentile)] ?? 255);
  // The background to divide by: the page's level where the paper is evenly lit, the block's own
  // level under a shadow, and a blend of both in between so no edge appears where correction starts.
  let shadowed = false;
  for (let index = 0; index < blockLevels.length; index += 1) {
    const level = blockLevels[index]!;
    const shortfall = 1 - level / pageLevel;
    const weight = Math.min(1, Math.max(0, (shortfall - evenLightShortfall) / (shadowShortfall - evenLightShortfall)));
    if (weight > 0) shadowed = true;
    blockLevels[index] = Math.round(pageLevel - weight * (pageLevel - level));
  }
  if (!shadowed) return image;
  // A slight blur of the block map, then scaling it up smoothly, avoids visible block edges.
  const background = await sharp(blockLevels, { raw: { width: columns, height: rows, channels: 1 } })
    .blur(columns > 2 && rows > 2 ? 1 : 0.3)
    .resize(width, height, { fit: 'fill', kernel: 'cubic' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const flattened = Buffer.alloc(data.length);
  for (let index = 0; index < data.length; index += 1) {
    const paper = Math.max(darkestPaperLevel, background[index]!);
    flattened[index] = Math.min(255, Math.round((data[index]! * pageLevel) / paper));
  }
  return { data: flattened, width, height };
}

/** Blocks too dark to be paper take the brightness of the nearest paper block in their row or column. */
function fillDarkBlocks(levels: Buffer, columns: number, rows: number): void {
  const paperLevels = [...levels].filter((level) => level >= darkestPaperLevel).sort((a, b) => a - b);
  const typicalPaper = paperLevels[Math.floor(paperLevels.length / 2)] ?? 255;
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      if (levels[row * columns + column]! >= darkestPaperLevel) continue;
      let replacement = typicalPaper;
      for (let distance = 1; distance < Math.max(columns, rows); distance += 1) {
        const neighbours = [
          [row, column - distance],
          [row, column + distance],
          [row - distance, column],
          [row + distance, column],
        ].filter(([y, x]) => y! >= 0 && y! < rows && x! >= 0 && x! < columns);
        const paper = neighbours.map(([y, x]) => levels[y! * columns + x!]!).filter((level) => level >= darkestPaperLevel);
        if (paper.length > 0) {
          replacement = Math.max(...paper);
          break;
        }
        if (neighbours.length === 0) break;
      }
      levels[row * columns + column] = replacement;
    }
  }
}

/** Slants beyond this are not searched: a document photographed more askew than this is turned instead. */
const maximumSkewDegrees = 12;
const skewStepDegrees = 0.25;
/** The slant is measured on a copy this small: text rows stay distinct and the search stays cheap. */
const skewMeasureLongSide = 900;
/** Darker than this counts as ink when measuring the slant. */
const inkLevel = 140;
/** The best slant must sharpen the row profile by this factor over the page as given, else the page is left alone. */
const minimumSharpening = 1.15;

/** Which way text lines run on a raster: across (upright or upside down) or down (lying on its side). */
export type LineDirection = 'across' | 'down';

/** One projection must be this much sharper than the other before the lines' direction counts as known. */
const minimumDirectionContrast = 1.5;

export interface TextLayout {
  /** The slant of the text rows in degrees, positive when the rows fall to the right (clockwise); 0 when no angle is clearly better. */
  skewDegrees: number;
  /** Undefined when neither direction is clearly sharper (little ink, a photo, a table of short cells). */
  lineDirection?: LineDirection;
}

/**
 * The slant and direction of the text rows. Rows of text projected along the right angle give a profile
 * of sharp peaks and empty gaps; the angle whose profile has the largest sum of squares wins. Text lines
 * projected across their direction (onto the columns) give a flat profile instead, which tells a page
 * lying on its side from an upright one without reading it.
 */
export async function measureTextLayout(image: GreyPixels): Promise<TextLayout> {
  const scale = Math.min(1, skewMeasureLongSide / Math.max(image.width, image.height));
  const small =
    scale < 1
      ? await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 1 } })
          .resize(Math.max(1, Math.round(image.width * scale)), Math.max(1, Math.round(image.height * scale)), { fit: 'fill' })
          .extractChannel(0)
          .raw()
          .toBuffer({ resolveWithObject: true })
          .then(({ data, info }) => ({ data, width: info.width, height: info.height }))
      : image;
  const inkX: number[] = [];
  const inkY: number[] = [];
  for (let y = 0; y < small.height; y += 1) {
    for (let x = 0; x < small.width; x += 1) {
      if (small.data[y * small.width + x]! < inkLevel) {
        inkX.push(x);
        inkY.push(y);
      }
    }
  }
  // Too little ink says nothing; mostly ink is a photo or a dark background, not text rows.
  if (inkX.length < 200 || inkX.length > small.width * small.height * 0.4) return { skewDegrees: 0 };
  const diagonal = Math.ceil(Math.hypot(small.width, small.height));
  const profile = new Float64Array(2 * diagonal + 1);
  /** Sum of squares of the ink projected along `degrees`; `spanned` is the number of bins from the first ink to the last. */
  const projection = (degrees: number): { sumOfSquares: number; spanned: number } => {
    const radians = (degrees * Math.PI) / 180;
    const sin = Math.sin(radians);
    const cos = Math.cos(radians);
    profile.fill(0);
    for (let index = 0; index < inkX.length; index += 1) profile[Math.round(inkY[index]! * cos - inkX[index]! * sin) + diagonal]! += 1;
    let sumOfSquares = 0;
    let first = -1;
    let last = -1;
    for (let bin = 0; bin < profile.length; bin += 1) {
      const count = profile[bin]!;
      if (count === 0) continue;
      sumOfSquares += count * count;
      if (first < 0) first = bin;
      last = bin;
    }
    return { sumOfSquares, spanned: last - first + 1 };
  };
  const sharpness = (degrees: number): number => projection(degrees).sumOfSquares;
  const asGiven = sharpness(0);
  let best = { degrees: 0, score: asGiven };
  for (let degrees = -maximumSkewDegrees; degrees <= maximumSkewDegrees; degrees += skewStepDegrees) {
    const score = sharpness(degrees);
    if (score > best.score) best = { degrees, score };
  }
  const skewDegrees = best.score >= asGiven * minimumSharpening ? best.degrees : 0;
  // Per bin of the span the ink covers: a narrow receipt spreads its ink over fewer columns than rows,
  // and a margin is no profile at all; either alone would make one direction look sharper.
  const rowSharpness = (best.score / inkX.length ** 2) * projection(skewDegrees).spanned;
  const across = projection(skewDegrees + 90);
  const columnSharpness = (across.sumOfSquares / inkX.length ** 2) * across.spanned;
  const lineDirection: LineDirection | undefined =
    rowSharpness >= columnSharpness * minimumDirectionContrast ? 'across' : columnSharpness >= rowSharpness * minimumDirectionContrast ? 'down' : undefined;
  return { skewDegrees, ...(lineDirection ? { lineDirection } : {}) };
}

/** The slant of the text rows in degrees (see measureTextLayout). */
export async function measureSkewDegrees(image: GreyPixels): Promise<number> {
  return (await measureTextLayout(image)).skewDegrees;
}

/** How a raster handed to OCR was straightened, to place what OCR finds on the page. */
export interface Deskew {
  /** The raster is the given image turned by this many degrees counter-clockwise (undoing a clockwise slant). */
  degrees: number;
  givenWidth: number;
  givenHeight: number;
  /** Size of the turned raster: turning enlarges the canvas so no corner is cut off. */
  turnedWidth: number;
  turnedHeight: number;
}

/**
 * Places a box found on the straightened raster (fractions of it) on the straightened page, the size of
 * the image as given and centred on it: the page as a flatbed scanner would have delivered it. Boxes are
 * not turned back onto the slanted photo, because the upright boxes of a slanted row would sit at
 * different heights there and no longer form a row (a label and its amount at the far right).
 */
export function placementOnStraightenedPage(placement: Placement, deskew: Deskew): Placement {
  const left = (deskew.turnedWidth - deskew.givenWidth) / 2;
  const top = (deskew.turnedHeight - deskew.givenHeight) / 2;
  return clampToPage({
    x: (placement.x * deskew.turnedWidth - left) / deskew.givenWidth,
    y: (placement.y * deskew.turnedHeight - top) / deskew.givenHeight,
    width: (placement.width * deskew.turnedWidth) / deskew.givenWidth,
    height: (placement.height * deskew.turnedHeight) / deskew.givenHeight,
  });
}

/** Darker than this share of the paper's level counts as the dark surface around the paper. */
const surroundingDarknessShare = 0.5;

/** A dark area spanning this share of the image's width and of its height is no print: a letter is a line high and a word wide. */
const surroundingSpanShare = 1 / 8;

/**
 * A receipt photographed on a dark table, or torn off with a jagged black edge in the picture, has dark
 * areas far larger than print. Tesseract thresholds the page as a whole and, with such an area beside
 * faint print, finds no text at all on an otherwise readable photo (the corpus receipts-wide sroie_404
 * and sroie_415: "box outside rectangle", then nothing). So every dark area that reaches the image's
 * edge (printed text never touches it) or spans an eighth of both its width and its height (no letter
 * does but on a label of a word or two; a photo of a receipt dropped onto a white A4 page keeps its dark
 * edges inside the page) is painted the paper's level. Returns undefined when there is none (the page
 * is read as it was). Used only on a page that read (almost) nothing, and kept only where it reads more.
 */
export function paintSurroundingDarknessAsPaper(image: GreyPixels): GreyPixels | undefined {
  const { data, width, height } = image;
  const histogram = new Uint32Array(256);
  for (let index = 0; index < data.length; index += 1) histogram[data[index]!]! += 1;
  const paper = levelAtShare(histogram, data.length, backgroundPercentile);
  const darkBelow = paper * surroundingDarknessShare;
  // Each dark area is measured whole (a flood fill marking `seen`), then, if it is a surrounding rather
  // than print, filled again into `reached` to be painted: two passes, no list of its pixels.
  const flood = (start: number, marks: Uint8Array, visit: (x: number, y: number) => void): void => {
    const enterDark = (index: number): boolean => {
      if (marks[index] === 1 || data[index]! >= darkBelow) return false;
      marks[index] = 1;
      return true;
    };
    floodFill(width, height, start, enterDark, (_index, x, y) => visit(x, y));
  };
  const seen = new Uint8Array(width * height);
  const reached = new Uint8Array(width * height);
  let anyPainted = false;
  for (let start = 0; start < data.length; start += 1) {
    if (seen[start] === 1 || data[start]! >= darkBelow) continue;
    let [left, right, top, bottom] = [width, -1, height, -1];
    flood(start, seen, (x, y) => {
      [left, right, top, bottom] = [Math.min(left, x), Math.max(right, x), Math.min(top, y), Math.max(bottom, y)];
    });
    const reachesEdge = left === 0 || top === 0 || right === width - 1 || bottom === height - 1;
    const spansWide = right - left + 1 >= width * surroundingSpanShare && bottom - top + 1 >= height * surroundingSpanShare;
    if (!reachesEdge && !spansWide) continue;
    flood(start, reached, () => undefined);
    anyPainted = true;
  }
  if (!anyPainted) return undefined;
  const painted = Buffer.from(data);
  for (let index = 0; index < painted.length; index += 1) if (reached[index] === 1) painted[index] = paper;
  return { data: painted, width, height };
}
