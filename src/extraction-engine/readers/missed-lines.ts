import sharp from 'sharp';
import type { Placement, TextLine } from '../document.ts';
import { inkThresholdOf, type GreyRaster } from './ocr-bands.ts';
import type { OcrImage, OcrPool } from './ocr-pool.ts';
import { rasterBoxOf, readRasterBox, type PixelBox } from './raster-crops.ts';
import { readAtOnce } from './reads-at-once.ts';
import { clampToPage, sortInReadingOrder, unitePlacements } from './text-lines.ts';

// Tesseract's page layout analysis now and then leaves a whole line of a page out: on the derived scans
// of the corpus 36 of about 3,200 text lines were missing from the reading although they print as
// clearly as the rest (coolblue1's "Factuurnummer: 993548900" and its IBAN, rows of the AWS invoice's
// table). Their ink is there, next to the words that were read. So after a page is read, the ink no
// word of the reading covers is gathered into line-shaped regions, and each region is cut out and read
// alone as a block of lines. What it reads with confidence joins the page; specks, rules, pictures and
// logos are left out by their shape, and whatever tesseract cannot read with confidence stays out.
// Measured in the extraction README ("Lines the page reading missed").

/**
 * Regions of a page read in one batch: each is one small recognition (~0.1-0.4 s). A second batch is
 * read only where the first added lines (see readMissedLines).
 */
export const maxRegionsPerPage = 6;
/** Ink this close to a word that was read (in line heights) belongs to that word: strokes stick out of tesseract's boxes. */
const coveredMarginInLineHeights = 0.3;
/** Gaps up to this wide (in line heights) join ink into one line: the spaces between letters and words. */
const joiningGapInLineHeights = 1;
/** A region of fewer line heights' width is a speck, a bullet or a stray mark, not a line worth reading. */
const minimumWidthInLineHeights = 1.5;
/** Region heights, in line heights, that can be lines of text: lower is a rule or dust, higher a picture. */
const minimumHeightInLineHeights = 0.5;
const maximumHeightInLineHeights = 3.5;
/**
 * Letters stand this tall at least (in line heights, the median over a region's inked columns): a rule,
 * a row of dots or dashes, or the edge of a table cell is lower, however long.
 */
const minimumStrokeHeightInLineHeights = 0.4;
/** Share of a region's pixels that are ink: printed text keeps between these; a filled box or a photo more. */
const minimumInkShare = 0.04;
const maximumInkShare = 0.5;
/** A page with fewer words read than this gives no line height to measure by (and no page layout to fault). */
const minimumWordsRead = 5;
/** A line read from a region joins the page only when its words average this confidence and none is below the second. */
const minimumLineConfidence = 0.7;
const minimumWordConfidence = 0.4;
/** Below this many milliseconds of the page's budget, no region is read. */
const minimumBudgetMs = 2_000;
/** Margin around a region when it is cut out, in line heights (as the second look's). */
const cropMarginInLineHeights = 0.35;
/** Regions are read with their text enlarged to at least this many pixels high (tesseract reads ~30-45 px best). */
const readTextHeightPixels = 32;

/** Statistics of this process (for the evaluation's report of the added time). */
export const missedLineStatistics = { pages: 0, regionsRead: 0, linesAdded: 0, milliseconds: 0 };

/**
 * Regions of the raster (pixels) with ink no covered box reaches, shaped like one to three lines of text
 * of `lineHeight` pixels (or as tall as `maximumLineHeights` of them), largest ink first. `covered` are
 * the boxes of the words already read.
 */
export function uncoveredTextRegions(raster: GreyRaster, covered: readonly PixelBox[], lineHeight: number, maximumLineHeights = maximumHeightInLineHeights): PixelBox[] {
  // A grid of cells about a sixth of a line high: fine enough to keep lines apart, coarse enough to be quick.
  const cell = Math.max(1, Math.floor(lineHeight / 6));
  const columns = Math.ceil(raster.width / cell);
  const rows = Math.ceil(raster.height / cell);
  const inkPerCell = new Uint32Array(columns * rows);
  const inkBelow = inkThresholdOf(raster);
  for (let y = 0; y < raster.height; y += 1) {
    const start = y * raster.width;
    const cellRow = Math.floor(y / cell) * columns;
    for (let x = 0; x < raster.width; x += 1) if (raster.data[start + x]! < inkBelow) inkPerCell[cellRow + Math.floor(x / cell)]! += 1;
  }
  const margin = coveredMarginInLineHeights * lineHeight;
  for (const box of covered) {
    const firstColumn = Math.max(0, Math.floor((box.left - margin) / cell));
    const lastColumn = Math.min(columns - 1, Math.floor((box.left + box.width + margin) / cell));
    const firstRow = Math.max(0, Math.floor((box.top - margin) / cell));
    const lastRow = Math.min(rows - 1, Math.floor((box.top + box.height + margin) / cell));
    for (let row = firstRow; row <= lastRow; row += 1) inkPerCell.fill(0, row * columns + firstColumn, row * columns + lastColumn + 1);
  }
  // Cells with ink, joined along their row across the gaps between letters and words.
  const joined = new Uint8Array(columns * rows);
  const joiningGap = Math.ceil((joiningGapInLineHeights * lineHeight) / cell);
  for (let row = 0; row < rows; row += 1) {
    let previousInk = -1;
    for (let column = 0; column < columns; column += 1) {
      if (inkPerCell[row * columns + column] === 0) continue;
      if (previousInk >= 0 && column - previousInk <= joiningGap) joined.fill(1, row * columns + previousInk, row * columns + column);
      joined[row * columns + column] = 1;
      previousInk = column;
    }
  }
  const regions: { box: PixelBox; ink: number }[] = [];
  const seen = new Uint8Array(columns * rows);
  const stack: number[] = [];
  for (let start = 0; start < joined.length; start += 1) {
    if (joined[start] === 0 || seen[start] === 1) continue;
    let [minColumn, maxColumn, minRow, maxRow, ink] = [columns, -1, rows, -1, 0];
    // Per column of the region, the first and last row of its inked cells: how tall its strokes stand.
    const inkedRows = new Map<number, [number, number]>();
    seen[start] = 1;
    stack.push(start);
    while (stack.length > 0) {
      const index = stack.pop()!;
      const row = Math.floor(index / columns);
      const column = index % columns;
      [minColumn, maxColumn, minRow, maxRow] = [Math.min(minColumn, column), Math.max(maxColumn, column), Math.min(minRow, row), Math.max(maxRow, row)];
      ink += inkPerCell[index]!;
      if (inkPerCell[index]! > 0) {
        const [top, bottom] = inkedRows.get(column) ?? [row, row];
        inkedRows.set(column, [Math.min(top, row), Math.max(bottom, row)]);
      }
      const neighbours = [column > 0 ? index - 1 : -1, column < columns - 1 ? index + 1 : -1, row > 0 ? index - columns : -1, row < rows - 1 ? index + columns : -1];
      for (const neighbour of neighbours) {
        if (neighbour >= 0 && joined[neighbour] === 1 && seen[neighbour] === 0) {
          seen[neighbour] = 1;
          stack.push(neighbour);
        }
      }
    }
    // Ink that touches the raster's edge is the page's border or the table it lies on, not its text.
    if (minColumn === 0 || minRow === 0 || maxColumn === columns - 1 || maxRow === rows - 1) continue;
    const box = { left: minColumn * cell, top: minRow * cell, width: (maxColumn - minColumn + 1) * cell, height: (maxRow - minRow + 1) * cell };
    const inkShare = ink / (box.width * box.height);
    if (box.width < minimumWidthInLineHeights * lineHeight) continue;
    if (box.height < minimumHeightInLineHeights * lineHeight || box.height > maximumLineHeights * lineHeight) continue;
    if (inkShare < minimumInkShare || inkShare > maximumInkShare) continue;
    const strokeHeights = [...inkedRows.values()].map(([top, bottom]) => (bottom - top + 1) * cell).sort((first, second) => first - second);
    if (strokeHeights[Math.floor(strokeHeights.length / 2)]! < minimumStrokeHeightInLineHeights * lineHeight) continue;
    regions.push({ box, ink });
  }
  return regions.sort((first, second) => second.ink - first.ink).map(({ box }) => box);
}

/** The median height in raster pixels of the words read, or undefined with too few words to tell. */
export function medianWordHeight(boxes: readonly PixelBox[]): number | undefined {
  if (boxes.length < minimumWordsRead) return undefined;
  const heights = boxes.map((box) => box.height).sort((first, second) => first - second);
  return heights[Math.floor(heights.length / 2)];
}

/** `box` grown by `margin` pixels on every side, kept inside the raster. */
function grownWithinRaster(box: PixelBox, margin: number, raster: Pick<OcrImage, 'width' | 'height'>): PixelBox {
  const left = Math.max(0, box.left - margin);
  const top = Math.max(0, box.top - margin);
  return { left, top, width: Math.min(raster.width, box.left + box.width + margin) - left, height: Math.min(raster.height, box.top + box.height + margin) - top };
}

/** Whether two boxes on the page share some width and at least 30% of the lower one's height. */
function overlaps(first: Placement, second: Placement): boolean {
  const across = Math.min(first.x + first.width, second.x + second.width) - Math.max(first.x, second.x);
  const down = Math.min(first.y + first.height, second.y + second.height) - Math.max(first.y, second.y);
  return across > 0 && down > Math.min(first.height, second.height) * 0.3;
}

/**
 * The page's lines with the lines the reading missed read from the raster and added, in reading order
 * (see the top of this file). A page whose budget is nearly spent is left as read.
 */
export async function readMissedLines(ocr: OcrPool, raster: OcrImage, lines: TextLine[], budgetMs: () => number): Promise<TextLine[]> {
  if (budgetMs() < minimumBudgetMs) return lines;
  const started = Date.now();
  const readWords = lines.flatMap((line) => line.words).flatMap((word) => (word.placement ? [word.placement] : []));
  const wordBoxes = readWords.map((placement) => rasterBoxOf(placement, raster));
  const lineHeight = medianWordHeight(wordBoxes);
  if (lineHeight === undefined) return lines;
  const { data, info } = await sharp(raster.bytes).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const regions = uncoveredTextRegions({ data, width: info.width, height: info.height }, wordBoxes, lineHeight);
  // The regions are read at once on the pool's workers (reads-at-once.ts), then taken in their order;
  // a region whose read ran out of the page's budget adds nothing, the others' lines still join the page.
  const scale = Math.min(4, Math.max(1, readTextHeightPixels / lineHeight));
  const readRegions = async (batch: readonly PixelBox[]): Promise<{ added: TextLine[]; read: number }> => {
    const readings = await readAtOnce(
      batch.map((region) => () => readRasterBox(ocr, raster, grownWithinRaster(region, Math.round(cropMarginInLineHeights * lineHeight), raster), { scale, layout: 'single-block', timeoutMs: budgetMs() })),
    );
    const found = readings.filter((reading): reading is TextLine[] => reading !== undefined);
    return { added: found.flatMap((lines) => lines.flatMap((line) => sureNewLine(line, readWords))), read: found.length };
  };
  const first = await readRegions(regions.slice(0, maxRegionsPerPage));
  // Regions come largest first, so the small ones (an amount beside its label: "Total Amount 7.60")
  // wait behind larger ones. A page whose first regions held lines the layout analysis dropped is
  // likely to have dropped more: its next regions are read too. A page whose first regions held only
  // specks and pictures pays no more.
  const more = first.added.length > 0 && regions.length > maxRegionsPerPage && budgetMs() >= minimumBudgetMs ? await readRegions(regions.slice(maxRegionsPerPage, 2 * maxRegionsPerPage)) : { added: [], read: 0 };
  const added = [...first.added, ...more.added];
  const read = first.read + more.read;
  if (read > 0) {
    missedLineStatistics.pages += 1;
    missedLineStatistics.regionsRead += read;
    missedLineStatistics.linesAdded += added.length;
    missedLineStatistics.milliseconds += Date.now() - started;
  }
  return added.length > 0 ? sortInReadingOrder([...lines, ...added]) : lines;
}

/**
 * A line read from a region, as it joins the page: only its words at new places (the crop's margin
 * may take in a piece of a line that was read), and only when tesseract read them with confidence.
 */
function sureNewLine(line: TextLine, readWords: readonly Placement[]): TextLine[] {
  const words = line.words.filter((word) => word.placement && !readWords.some((placement) => overlaps(placement, word.placement!)));
  const confidences = words.map((word) => word.confidence ?? 0);
  const mean = confidences.reduce((sum, confidence) => sum + confidence, 0) / Math.max(1, confidences.length);
  if (words.length === 0 || mean < minimumLineConfidence || Math.min(...confidences) < minimumWordConfidence) return [];
  if (!/[\p{L}\p{N}]{2}/u.test(words.map((word) => word.text).join(' '))) return [];
  return [{ ...line, text: words.map((word) => word.text).join(' '), words, placement: clampToPage(unitePlacements(words.map((word) => word.placement!))) }];
}
