import type { Placement } from '../document.ts';
import { floodFill, type GreyPixels } from './ocr-preprocessing.ts';

// A phone photo of a receipt shows the table around it: wood grain, a cloth, a dark desk. Tesseract
// searches that texture for text and reads noise into the receipt's lines (measured on 40 receipts of
// receipts-wide/ pasted into a 3:4 frame of brown texture: 5 totals and 4 sellers fewer than the same
// receipts cropped; extraction README, "Fifteenth pass"). The paper is the one large bright, solid area with darker surroundings on two
// opposite sides; the photo is read as that area, as if the receipt had been cropped by hand.

/** Side of the preview the paper is looked for in: the receipt's print is a blur at this size, the paper is not. */
export const paperPreviewLongSide = 256;

/** The paper must stand out from its surroundings by this many grey levels (a white receipt on a light desk does not). */
const minimumContrast = 60;
/** The paper's bounding box covers at most this share of the photo: less margin than that is not worth a second raster. */
const largestPaperShare = 0.75;
/** ...and at least this share: a small bright patch is a reflection or a label, not the document. */
const smallestPaperShare = 0.08;
/**
 * The paper fills most of its bounding box, unlike a lit patch of table: a receipt 2.5 times longer than
 * wide lying 10° askew fills 62% of it with print holes counted out, so a little less than that.
 */
const smallestFill = 0.55;
/** Around the paper's box, the photo is mostly darker than the paper (a table), not a page's white margin. */
const smallestDarkSurrounding = 0.7;
/** The box leaves at least this share of the photo on both sides of one axis (a dark header bar leaves one). */
const smallestMargin = 0.03;
/** The crop keeps this share of the photo around the paper's box, so the paper's edge and a slanted corner stay in. */
const cropMargin = 0.015;

/** The paper found in a photo. */
export interface FoundPaper {
  /** The box read: the paper's bounding box and a small margin, as fractions of the photo. */
  region: Placement;
  /**
   * Whether a point of the photo (fractions of it) is on the paper, as far as the preview can tell.
   * Within the region, what is not paper (the table in its corners and margin) is painted out: its
   * texture, and the paper's edge against it, read as letters and bars.
   */
  covers(x: number, y: number): boolean;
}

/**
 * Where the paper is in a photo (a preview of it, greyscale, ~256 px); or undefined when the photo is
 * the paper already (a scan, a cropped photo, a page) or the paper does not stand out clearly. Otsu's
 * threshold splits the preview into bright and dark; the largest bright area (4-connected) is the paper
 * when it is solid, surrounded by darkness, and leaves margins on two opposite sides.
 */
export function findPaper(preview: GreyPixels): FoundPaper | undefined {
  const { data, width, height } = preview;
  const total = width * height;
  if (total === 0) return undefined;
  const threshold = otsuThreshold(data);
  let brightSum = 0;
  let brightCount = 0;
  let darkSum = 0;
  for (let index = 0; index < total; index += 1) {
    const level = data[index]!;
    if (level > threshold) {
      brightSum += level;
      brightCount += 1;
    } else darkSum += level;
  }
  if (brightCount === 0 || brightCount === total) return undefined;
  if (brightSum / brightCount - darkSum / (total - brightCount) < minimumContrast) return undefined;

  const largest = largestBrightArea(data, width, height, threshold);
  if (!largest) return undefined;
  const boxWidth = largest.right - largest.left + 1;
  const boxHeight = largest.bottom - largest.top + 1;
  const boxArea = boxWidth * boxHeight;
  if (boxArea > total * largestPaperShare || largest.count < total * smallestPaperShare) return undefined;
  if (largest.count < boxArea * smallestFill) return undefined;
  const marginsAcross = largest.left >= width * smallestMargin && width - 1 - largest.right >= width * smallestMargin;
  const marginsDown = largest.top >= height * smallestMargin && height - 1 - largest.bottom >= height * smallestMargin;
  if (!marginsAcross && !marginsDown) return undefined;

  let darkOutside = 0;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const inside = x >= largest.left && x <= largest.right && y >= largest.top && y <= largest.bottom;
      if (!inside && data[y * width + x]! <= threshold) darkOutside += 1;
    }
  }
  if (darkOutside < (total - boxArea) * smallestDarkSurrounding) return undefined;

  const left = Math.max(0, largest.left / width - cropMargin);
  const top = Math.max(0, largest.top / height - cropMargin);
  const right = Math.min(1, (largest.right + 1) / width + cropMargin);
  const bottom = Math.min(1, (largest.bottom + 1) / height + cropMargin);
  const paperPixels = withHolesFilled(largest.pixels, width, height);
  return {
    region: { x: left, y: top, width: right - left, height: bottom - top },
    covers: (x, y) => paperPixels[Math.min(height - 1, Math.floor(y * height)) * width + Math.min(width - 1, Math.floor(x * width))] === 1,
  };
}

/**
 * The area with its holes filled, less its rim: print dense enough to read dark on the preview (a bold
 * name, a logo) is paper too. What is not paper is what the preview's border reaches without crossing
 * the area.
 */
function withHolesFilled(area: Uint8Array, width: number, height: number): Uint8Array {
  const outside = new Uint8Array(width * height);
  const enterOutside = (index: number): boolean => {
    if (area[index] === 1 || outside[index] === 1) return false;
    outside[index] = 1;
    return true;
  };
  const reach = (start: number): void => floodFill(width, height, start, enterOutside, () => undefined);
  for (let x = 0; x < width; x += 1) {
    reach(x);
    reach((height - 1) * width + x);
  }
  for (let y = 0; y < height; y += 1) {
    reach(y * width);
    reach(y * width + width - 1);
  }
  // The paper's outermost ring of preview pixels is half table (the edge, its shadow): it is painted
  // out too, or the edge reads as a bar beside every line that reaches it. Print keeps a margin wider.
  const paper = new Uint8Array(width * height);
  for (let index = 0; index < paper.length; index += 1) {
    if (outside[index] === 1) continue;
    const x = index % width;
    const nextToOutside =
      (x > 0 && outside[index - 1] === 1) ||
      (x < width - 1 && outside[index + 1] === 1) ||
      (index >= width && outside[index - width] === 1) ||
      (index < width * (height - 1) && outside[index + width] === 1);
    paper[index] = nextToOutside ? 0 : 1;
  }
  return paper;
}

/** Otsu's threshold: the grey level that best splits the pixels into two classes (levels above it are bright). */
export function otsuThreshold(data: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (let index = 0; index < data.length; index += 1) histogram[data[index]!]! += 1;
  let sumAll = 0;
  for (let level = 0; level < 256; level += 1) sumAll += level * histogram[level]!;
  let darkCount = 0;
  let darkSum = 0;
  let best = 0;
  let bestVariance = -1;
  for (let level = 0; level < 256; level += 1) {
    darkCount += histogram[level]!;
    if (darkCount === 0) continue;
    const brightCount = data.length - darkCount;
    if (brightCount === 0) break;
    darkSum += level * histogram[level]!;
    const difference = darkSum / darkCount - (sumAll - darkSum) / brightCount;
    const variance = darkCount * brightCount * difference * difference;
    if (variance > bestVariance) {
      bestVariance = variance;
      best = level;
    }
  }
  return best;
}

interface BrightArea {
  /** 1 where the preview's pixel belongs to the area. */
  pixels: Uint8Array;
  count: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The largest 4-connected area of pixels brighter than `threshold`, with its bounding box. */
function largestBrightArea(data: Uint8Array, width: number, height: number, threshold: number): BrightArea | undefined {
  // Each area is numbered in `labels`; the largest one's pixels are marked at the end.
  const labels = new Int32Array(width * height);
  let largest: (Omit<BrightArea, 'pixels'> & { label: number }) | undefined;
  let label = 0;
  const enterBright = (index: number): boolean => {
    if (labels[index] !== 0 || data[index]! <= threshold) return false;
    labels[index] = label;
    return true;
  };
  for (let start = 0; start < data.length; start += 1) {
    if (labels[start] !== 0 || data[start]! <= threshold) continue;
    label += 1;
    const area = { label, count: 0, left: width, right: -1, top: height, bottom: -1 };
    floodFill(width, height, start, enterBright, (_index, x, y) => {
      area.count += 1;
      area.left = Math.min(area.left, x);
      area.right = Math.max(area.right, x);
      area.top = Math.min(area.top, y);
      area.bottom = Math.max(area.bottom, y);
    });
    if (!largest || area.count > largest.count) largest = area;
  }
  if (!largest) return undefined;
  const pixels = new Uint8Array(width * height);
  for (let index = 0; index < labels.length; index += 1) if (labels[index] === largest.label) pixels[index] = 1;
  const { label: _label, ...box } = largest;
  return { ...box, pixels };
}
