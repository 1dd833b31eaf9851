import { levelAtShare } from './ocr-preprocessing.ts';
// One tesseract worker reads one page on one core. To read a page on several cores, the page is cut
// into full-width horizontal bands that are recognised at the same time, each by its own worker.
// A cut may only run through a gap between text lines: a row of the page with no ink from edge to
// edge, inside a run of such rows tall enough that the cut leaves white space above and below it.
// Bands are full width, so columns stay whole within each band and the words, placed on the whole
// page, are put back into reading order by their placement.

/** A greyscale raster: one byte per pixel, 0 black, 255 white. */
export interface GreyRaster {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Rows [top, bottom) of the page, full width. */
export interface Band {
  top: number;
  bottom: number;
}

/** A pixel this much darker than the paper (its 90th-percentile brightness) is ink. */
const inkContrast = 0.25;
/** A row with at most this share of its pixels dark is blank: specks and scanner dust do not stop a cut. */
const blankRowInkShare = 0.002;
/**
 * A cut needs a run of blank rows at least this tall, as a share of the page height, so both bands keep
 * white space around their text (at 300 dpi A4 about 7 rows; line gaps are 10-40 rows).
 */
const minimumGapShareOfHeight = 0.002;
const minimumGapRows = 4;
/** A band with less than this share of its fair part of the page's ink (1/count) is merged with a neighbour. */
const minimumShareOfFairPart = 0.4;

/**
 * A column with ink in at least this share of the rows is no text: the edge of a receipt photographed
 * on a darker table, a scanner's dark border, a frame or a rule down the page. Such columns are left
 * out of the row counts, or no row of the page would ever be blank. (Down a column of text, ink fills
 * a third of the rows at most: the strokes of the letters, not the space between them and the lines.)
 */
const borderColumnInkShare = 0.5;

/** Pixels darker than this are ink: inkContrast below the paper's level (its 90th-percentile brightness). */
export function inkThresholdOf(raster: GreyRaster): number {
  const histogram = new Uint32Array(256);
  // Every 7th pixel is enough to estimate the paper level.
  for (let index = 0; index < raster.data.length; index += 7) histogram[raster.data[index]!]! += 1;
  const paper = levelAtShare(histogram, Math.ceil(raster.data.length / 7), 0.9);
  return paper * (1 - inkContrast);
}

/**
 * Dark pixels per row, counted against the paper's brightness so that grey paper and faint print both
 * work, leaving out the columns that are ink from top to bottom (borders, see above).
 */
export function inkPerRow(raster: GreyRaster): Uint32Array {
  const inkBelow = inkThresholdOf(raster);
  const inkPerColumn = new Uint32Array(raster.width);
  for (let y = 0; y < raster.height; y += 1) {
    const start = y * raster.width;
    for (let x = 0; x < raster.width; x += 1) if (raster.data[start + x]! < inkBelow) inkPerColumn[x]! += 1;
  }
  const isBorder = inkPerColumn.map((ink) => (ink >= raster.height * borderColumnInkShare ? 1 : 0));
  const rows = new Uint32Array(raster.height);
  for (let y = 0; y < raster.height; y += 1) {
    let ink = 0;
    const start = y * raster.width;
    for (let x = 0; x < raster.width; x += 1) if (raster.data[start + x]! < inkBelow && isBorder[x] === 0) ink += 1;
    rows[y] = ink;
  }
  return rows;
}

/**
 * Cuts the page into at most `count` bands of about equal ink, each cut in the middle of a gap between
 * text lines. Fewer bands (one: the whole page) when the page has no such gap near where a cut should be.
 */
export function textBands(raster: GreyRaster, count: number): Band[] {
  const whole: Band[] = [{ top: 0, bottom: raster.height }];
  if (count < 2 || raster.height < 2) return whole;
  const ink = inkPerRow(raster);
  const blankLimit = Math.floor(raster.width * blankRowInkShare);
  const minimumGap = Math.max(minimumGapRows, Math.round(raster.height * minimumGapShareOfHeight));

  // Cumulative ink above each row, and the middle row of every tall enough gap between inked rows.
  const inkAbove = new Float64Array(raster.height + 1);
  for (let y = 0; y < raster.height; y += 1) inkAbove[y + 1] = inkAbove[y]! + ink[y]!;
  const totalInk = inkAbove[raster.height]!;
  if (totalInk === 0) return whole;
  const gapMiddles: number[] = [];
  let gapStart: number | undefined;
  for (let y = 0; y <= raster.height; y += 1) {
    const blank = y < raster.height && ink[y]! <= blankLimit;
    if (blank) {
      gapStart ??= y;
      continue;
    }
    // A gap touching the top or bottom edge is margin, not a gap between lines.
    if (gapStart !== undefined && gapStart > 0 && y < raster.height && y - gapStart >= minimumGap) gapMiddles.push(Math.floor((gapStart + y) / 2));
    gapStart = undefined;
  }

  // For each cut, the gap whose ink above comes nearest to its share of the whole.
  const cuts: number[] = [];
  for (let index = 1; index < count; index += 1) {
    const wanted = (totalInk * index) / count;
    let best: number | undefined;
    for (const middle of gapMiddles) {
      if (cuts.length > 0 && middle <= cuts.at(-1)!) continue;
      if (best === undefined || Math.abs(inkAbove[middle]! - wanted) < Math.abs(inkAbove[best]! - wanted)) best = middle;
    }
    if (best !== undefined) cuts.push(best);
  }
  // A band with little ink would cost a recognition's overhead for little text: it joins a neighbour.
  const minimumInk = (totalInk / count) * minimumShareOfFairPart;
  const inkOf = (top: number, bottom: number): number => inkAbove[bottom]! - inkAbove[top]!;
  for (;;) {
    const edges = [0, ...cuts, raster.height];
    const inks = edges.slice(1).map((bottom, index) => inkOf(edges[index]!, bottom));
    const smallest = inks.indexOf(Math.min(...inks));
    if (cuts.length === 0 || inks[smallest]! >= minimumInk) break;
    // Merge it with its lighter neighbour: remove the cut between them.
    const mergeUpwards = smallest === inks.length - 1 || (smallest > 0 && inks[smallest - 1]! <= inks[smallest + 1]!);
    cuts.splice(mergeUpwards ? smallest - 1 : smallest, 1);
  }
  const edges = [0, ...cuts, raster.height];
  return edges.slice(1).map((bottom, index) => ({ top: edges[index]!, bottom }));
}
