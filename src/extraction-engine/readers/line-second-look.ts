import { distance } from 'fastest-levenshtein';
import sharp from 'sharp';
import type { Placement, PositionedWord, TextLine } from '../document.ts';
import { totalAmountLabels } from '../prebuilt/invoice-labels.ts';
import { findAmounts } from '../values/amount.ts';
import { hasLegalForm } from '../values/party-name.ts';
import type { OcrImage, OcrPool } from './ocr-pool.ts';
import { placementOnStraightenedPage } from './ocr-preprocessing.ts';
import { clampToPage, unitePlacements } from './text-lines.ts';
import { TimeBudgetExceededError } from './time-budget.ts';

// A few lines decide most of a receipt's fields: the name with its legal form at the head, the total
// line and the date line. Read as part of a whole page, a letter or digit on them is sometimes misread
// ("KUCHAT" for "KUCHAI", "DULY." for "D.I.Y."). Where such a line carries a word tesseract doubted,
// the line alone is cut from the page raster with a margin, enlarged to two text heights and read again
// as a single line (PSM 7), once grey and once with its contrast stretched. A word is replaced only
// where both re-reads agree on another spelling; everything else keeps the first reading. Measured in
// the extraction README ("Second look at the deciding lines").

/** At most this many lines per page are read again: each costs two small recognitions (~0.1-0.4 s). */
export const maxLinesPerPage = 4;
/** A line is in doubt when one of its words was read with less confidence than this. */
const doubtfulWordConfidence = 0.9;
/** A re-read word below this confidence does not vote. */
const minimumVotingConfidence = 0.6;
/** A seller's name with its legal form is looked for in this top share of the page. */
const headShare = 0.4;
/** Margin around the line's box, in line heights: strokes that stick out of tesseract's box stay whole. */
const marginInLineHeights = 0.35;
/** The text heights (pixels) the two re-reads enlarge the line to; tesseract reads ~30-45 px best. */
const rereadTextHeights = [32, 44] as const;
/** Below this many milliseconds of the page's budget, no second look is started. */
const minimumBudgetMs = 2_000;

const totalLabelPattern = new RegExp(
  `(?:^|[^\\p{L}])(?:${[...new Set(Object.values(totalAmountLabels).flat())].map((label) => label.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')).join('|')})(?:$|[^\\p{L}])`,
  'iu',
);
/** A numeric date as printed (or misread into an impossible one: "12-02-2618" is still a date line). */
const numericDatePattern = /(?<!\d)\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}(?!\d)/u;
const monthNameDatePattern = /(?<!\d)\d{1,2}\s?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\p{L}*\s?\d{2,4}(?!\d)/iu;

/** Statistics of the second looks in this process (for the evaluation's report of the added time). */
export const secondLookStatistics = { pages: 0, linesReread: 0, wordsReplaced: 0, milliseconds: 0 };

const isDoubtful = (line: TextLine): boolean => line.words.some((word) => (word.confidence ?? 1) < doubtfulWordConfidence);
const hasAmount = (text: string): boolean => findAmounts(text).some((amount) => !amount.isPercentage);
const isDateLine = (text: string): boolean => numericDatePattern.test(text) || monthNameDatePattern.test(text);

/**
 * The lines (indices, top to bottom) that carry the head name with a legal form, the total and the
 * date, and hold a word tesseract doubted; at most maxLinesPerPage. A total label whose amount is
 * printed on the line below brings that line too.
 */
export function decidingLines(lines: readonly TextLine[]): number[] {
  const chosen = new Set<number>();
  const inHead = (line: TextLine): boolean => (line.placement?.y ?? 1) < headShare;
  // A legal form misread ("SDN BHO") hides the name's line: then the first line of words at the head.
  const named = lines.findIndex((line) => inHead(line) && hasLegalForm(line.text));
  const seller = named >= 0 ? named : lines.findIndex((line) => inHead(line) && /\p{L}{3}/u.test(line.text));
  if (seller >= 0 && isDoubtful(lines[seller]!)) chosen.add(seller);
  const date = lines.findIndex((line) => isDateLine(line.text));
  if (date >= 0 && isDoubtful(lines[date]!)) chosen.add(date);
  const totals: number[] = [];
  lines.forEach((line, index) => {
    if (!totalLabelPattern.test(line.text)) return;
    const amountLine = hasAmount(line.text) ? index : index + 1 < lines.length && hasAmount(lines[index + 1]!.text) ? index + 1 : undefined;
    // An amount read surely under a label read unsurely is in doubt too: the line was hard to read.
    if (amountLine !== undefined && (isDoubtful(line) || isDoubtful(lines[amountLine]!))) totals.push(amountLine);
  });
  for (const total of totals.slice(0, 2)) chosen.add(total);
  return [...chosen]
    .filter((index) => lines[index]!.placement !== undefined)
    .sort((a, b) => a - b)
    .slice(0, maxLinesPerPage);
}

/** Characters that are neither letters nor digits, in order: a repair may not move a decimal point. */
const punctuationSkeleton = (text: string): string => text.replace(/[\p{L}\p{N}]/gu, '');

/**
 * Whether `replacement` may stand for `original`: a word with digits keeps its length and its
 * punctuation (only misread characters change, never a decimal point or a digit count); a word of
 * letters may change its length (OCR reads "D.I.Y." as "DULY."), but a spelling that changes more
 * than half of its characters is another word, not a repair of this one ("BHO" read again as "WO").
 */
function isAdmissibleRepair(original: string, replacement: string): boolean {
  if (replacement === original || replacement.trim() === '') return false;
  if (distance(original, replacement) > Math.max(original.length, replacement.length) / 2) return false;
  if (/\d/u.test(original) || /\d/u.test(replacement)) {
    return replacement.length === original.length && punctuationSkeleton(replacement) === punctuationSkeleton(original);
  }
  return true;
}

const horizontalOverlap = (a: Placement, b: Placement): number => Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));

/**
 * The re-read word that stands at the place of `word`: the one whose box overlaps it by at least half
 * of both widths, when exactly one does (a word read as two, or two read as one, has no counterpart).
 */
function counterpart(word: PositionedWord, reread: readonly PositionedWord[]): PositionedWord | undefined {
  if (!word.placement) return undefined;
  const own = word.placement;
  const matches = reread.filter((candidate) => {
    if (!candidate.placement) return false;
    const overlap = horizontalOverlap(own, candidate.placement);
    return overlap >= 0.5 * own.width && overlap >= 0.5 * candidate.placement.width;
  });
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * Chooses each word of a line from its first reading and the re-reads of the line alone: a word is
 * replaced where every re-read (at least two) puts the same other spelling at its place, each with
 * confidence >= 0.6, and the repair is admissible (see isAdmissibleRepair). The replaced word takes the
 * lowest confidence of the agreeing reads; every other word is kept as first read.
 */
export function chooseLineWords(line: TextLine, rereads: readonly (readonly PositionedWord[])[]): { line: TextLine; replaced: number } {
  if (rereads.length < 2) return { line, replaced: 0 };
  let replaced = 0;
  const words = line.words.map((word) => {
    const others = rereads.map((reread) => counterpart(word, reread));
    const first = others[0];
    if (!first || others.some((other) => !other || other.text !== first.text || (other.confidence ?? 0) < minimumVotingConfidence)) return word;
    if (!isAdmissibleRepair(word.text, first.text)) return word;
    replaced += 1;
    return { ...word, text: first.text, confidence: Math.min(...others.map((other) => other!.confidence ?? 0)) };
  });
  if (replaced === 0) return { line, replaced };
  return { line: { ...line, text: words.map((word) => word.text).join(' '), words }, replaced };
}

/** The line's box in raster pixels, with a margin, inside the raster. */
function cropBox(placement: Placement, raster: OcrImage): { left: number; top: number; width: number; height: number } {
  // Placements of a straightened raster refer to the page as given (placementOnStraightenedPage).
  const deskew = raster.deskew;
  const offsetX = deskew ? (deskew.turnedWidth - deskew.givenWidth) / 2 : 0;
  const offsetY = deskew ? (deskew.turnedHeight - deskew.givenHeight) / 2 : 0;
  const pageWidth = deskew ? deskew.givenWidth : raster.width;
  const pageHeight = deskew ? deskew.givenHeight : raster.height;
  const lineHeight = placement.height * pageHeight;
  const margin = marginInLineHeights * lineHeight;
  const left = Math.max(0, Math.floor(placement.x * pageWidth + offsetX - margin));
  const top = Math.max(0, Math.floor(placement.y * pageHeight + offsetY - margin));
  const right = Math.min(raster.width, Math.ceil((placement.x + placement.width) * pageWidth + offsetX + margin));
  const bottom = Math.min(raster.height, Math.ceil((placement.y + placement.height) * pageHeight + offsetY + margin));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/** Reads the crop enlarged to `textHeight` and returns its words placed on the page as the first reading placed its own. */
async function rereadLine(
  ocr: OcrPool,
  raster: OcrImage,
  line: TextLine,
  textHeight: number,
  stretchContrast: boolean,
  timeoutMs: number,
): Promise<PositionedWord[]> {
  const box = cropBox(line.placement!, raster);
  const lineHeightPixels = Math.max(1, box.height / (1 + 2 * marginInLineHeights));
  const scale = Math.min(4, Math.max(1, textHeight / lineHeightPixels));
  let crop = sharp(raster.bytes).extract(box).resize(Math.round(box.width * scale), Math.round(box.height * scale), { kernel: 'lanczos3' });
  if (stretchContrast) crop = crop.normalise();
  const { data, info } = await crop.png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
  const read = await ocr.recognize({ bytes: data, width: info.width, height: info.height }, { layout: 'single-line', whole: true, timeoutMs });
  const onPage = (placement: Placement): Placement => {
    const onRaster = clampToPage({
      x: (box.left + placement.x * box.width) / raster.width,
      y: (box.top + placement.y * box.height) / raster.height,
      width: (placement.width * box.width) / raster.width,
      height: (placement.height * box.height) / raster.height,
    });
    return raster.deskew ? placementOnStraightenedPage(onRaster, raster.deskew) : onRaster;
  };
  return read.flatMap((readLine) => readLine.words).map((word) => ({ ...word, ...(word.placement ? { placement: onPage(word.placement) } : {}) }));
}

/**
 * The page's lines with the deciding lines read a second time (see the top of this file). Pages whose
 * lines run down the raster, lines taller than wide and a page budget nearly spent are left as read.
 */
export async function secondLookAtDecidingLines(ocr: OcrPool, raster: OcrImage, lines: TextLine[], budgetMs: () => number): Promise<TextLine[]> {
  if (raster.lineDirection === 'down') return lines;
  const started = Date.now();
  const result = [...lines];
  let reread = 0;
  try {
    for (const index of decidingLines(lines)) {
      const line = lines[index]!;
      const placement = line.placement!;
      if (placement.height * (raster.deskew?.givenHeight ?? raster.height) > placement.width * (raster.deskew?.givenWidth ?? raster.width)) continue;
      if (budgetMs() < minimumBudgetMs) break;
      const rereads: PositionedWord[][] = [];
      for (const [variant, textHeight] of rereadTextHeights.entries()) rereads.push(await rereadLine(ocr, raster, line, textHeight, variant > 0, budgetMs()));
      reread += 1;
      const chosen = chooseLineWords(line, rereads);
      secondLookStatistics.wordsReplaced += chosen.replaced;
      if (chosen.replaced > 0) result[index] = { ...chosen.line, placement: clampToPage(unitePlacements(chosen.line.words.map((word) => word.placement!))) };
    }
  } catch (error) {
    // The first reading stands when the page's budget runs out during the second look.
    if (!(error instanceof TimeBudgetExceededError)) throw error;
  }
  if (reread > 0) {
    secondLookStatistics.pages += 1;
    secondLookStatistics.linesReread += reread;
    secondLookStatistics.milliseconds += Date.now() - started;
  }
  return result;
}
