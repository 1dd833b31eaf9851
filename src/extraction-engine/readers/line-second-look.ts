import { distance } from 'fastest-levenshtein';
import type { DocumentPage, PageArithmeticCheck, Placement, PositionedWord, TextLine } from '../document.ts';
import { totalAmountLabels } from '../prebuilt/invoice-labels.ts';
import { findAmounts } from '../values/amount.ts';
import { findDates } from '../values/date.ts';
import { hasLegalForm, legalFormRanges } from '../values/party-name.ts';
import type { OcrImage, OcrPool } from './ocr-pool.ts';
import { rasterBoxOf, readRasterBox, type PixelBox } from './raster-crops.ts';
import { clampToPage, unitePlacements } from './text-lines.ts';
import { TimeBudgetExceededError } from './time-budget.ts';

// A few lines decide most of a receipt's fields: the name with its legal form at the head, the total
// line and the date line. Read as part of a whole page, a letter or digit on them is sometimes misread
// ("KUCHAT" for "KUCHAI", "16.49" for "16.40"). Where such a line carries a word tesseract doubted,
// the line alone is cut from the page raster with a margin, enlarged and read again as a single line
// (PSM 7); where that re-read would change a word, it is read once more at another size with its
// contrast stretched. A word is replaced only where both re-reads agree on another spelling (two of
// three reads); everything else keeps the first reading. Measured in the extraction README ("Second
// look at the deciding lines").

/** At most this many lines per page are read again: each costs one or two small recognitions (~0.1-0.5 s each). */
export const maxLinesPerPage = 4;
/** A line is in doubt when one of its words was read with less confidence than this. */
const doubtfulWordConfidence = 0.9;
/** Re-reads vote for a spelling only when none is below the first confidence and their mean reaches the second. */
const minimumVotingConfidence = 0.4;
const minimumMeanVotingConfidence = 0.6;
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
const numericDatePattern = /(?<!\d)\d{1,4}([-/.])\d{1,2}\1\d{2,4}(?!\d)/u;
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

/**
 * The re-read words at the places of the first reading's words: a re-read that splits the line into
 * the same number of words is taken word for word; one that splits or joins words differently ("CW"
 * read again as "C W") has no counterpart for any word. (Tesseract's boxes of words read from an
 * enlarged single line often reach over the next word, so boxes cannot pair the words.)
 */
function counterparts(words: readonly PositionedWord[], reread: readonly PositionedWord[]): (PositionedWord | undefined)[] {
  return words.map((_, index) => (reread.length === words.length ? reread[index] : undefined));
}

/** A re-read date or amount must still be one: "17-06-13" read again as "17-66-13" is no repair. */
function keepsItsValue(original: string, replacement: string): boolean {
  if (findDates(original).length > 0 && findDates(replacement).length === 0) return false;
  return !hasAmount(original) || hasAmount(replacement);
}

/**
 * Whether the line's word at `index` may be respelt `replacement`. A word of letters tesseract was sure
 * of stays: re-reads of a crop also agree on misreadings ("MART" as "HART"). Digits are read surely and
 * wrongly more often ("16.49" at 0.9 for "16.40"); their repairs keep the word's shape and value. A
 * word of a legal form as first read stays ("SDN" of "SDN BHD" read again as "SON"): the form is
 * evidence that the first reading got that word right (a misread form may still be restored).
 */
function mayBeRepaired(line: TextLine, index: number, replacement: string): boolean {
  const word = line.words[index]!;
  if ((word.confidence ?? 1) >= doubtfulWordConfidence && !/\d/u.test(word.text)) return false;
  if (!isAdmissibleRepair(word.text, replacement) || !keepsItsValue(word.text, replacement)) return false;
  return !isInLegalForm(line, index);
}

/** Whether the line's word at `index` is (part of) a legal form as first read ("SDN" of "SDN BHD"). */
function isInLegalForm(line: TextLine, index: number): boolean {
  const text = line.words.map((word) => word.text).join(' ');
  const start = line.words.slice(0, index).reduce((offset, word) => offset + word.text.length + 1, 0);
  const end = start + line.words[index]!.text.length;
  return legalFormRanges(text).some((range) => range.start < end && start < range.end);
}

/**
 * Whether a first re-read leaves anything to decide: when it would repair no word (it reads the line
 * as first read, or splits it differently), a second re-read cannot outvote the first reading.
 */
export function rereadMayRepair(line: TextLine, reread: readonly PositionedWord[]): boolean {
  return counterparts(line.words, reread).some((other, index) => other !== undefined && mayBeRepaired(line, index, other.text));
}

/**
 * Chooses each word of a line from its first reading and the re-reads of the line alone (two of three
 * reads agreeing outvote the first): a word read with doubt (below 0.9), or any word with digits, is replaced where every re-read
 * (at least two) has the same other spelling at its place, none below confidence 0.4 and 0.6 on
 * average, and the repair is admissible (isAdmissibleRepair, keepsItsValue). The replaced word takes
 * the lowest confidence of the agreeing reads; every other word is kept as first read.
 */
export function chooseLineWords(line: TextLine, rereads: readonly (readonly PositionedWord[])[]): { line: TextLine; replaced: number } {
  if (rereads.length < 2) return { line, replaced: 0 };
  const aligned = rereads.map((reread) => counterparts(line.words, reread));
  let replaced = 0;
  const words = line.words.map((word, index) => {
    const others = aligned.map((reread) => reread[index]);
    const first = others[0];
    if (!first || !mayBeRepaired(line, index, first.text) || others.some((other) => !other || other.text !== first.text)) return word;
    const confidences = others.map((other) => other!.confidence ?? 0);
    if (Math.min(...confidences) < minimumVotingConfidence || confidences.reduce((sum, value) => sum + value, 0) / confidences.length < minimumMeanVotingConfidence) return word;
    replaced += 1;
    return { ...word, text: first.text, confidence: Math.min(...confidences) };
  });
  if (replaced === 0) return { line, replaced };
  return { line: { ...line, text: words.map((word) => word.text).join(' '), words }, replaced };
}

/** The line's box in raster pixels, with a margin, inside the raster. */
function cropBox(placement: Placement, raster: OcrImage): PixelBox {
  const lineHeight = placement.height * (raster.deskew ? raster.deskew.givenHeight : raster.height);
  return rasterBoxOf(placement, raster, marginInLineHeights * lineHeight);
}

/** Reads the crop enlarged to `textHeight` and returns its words placed on the page as the first reading placed its own. */
async function rereadLine(
  ocr: OcrPool,
  raster: OcrImage,
  line: TextLine,
  textHeight: number,
  stretchContrast: boolean,
  timeoutMs: number,
  mayShrink = false,
): Promise<PositionedWord[]> {
  const box = cropBox(line.placement!, raster);
  const lineHeightPixels = Math.max(1, box.height / (1 + 2 * marginInLineHeights));
  const scale = Math.min(4, Math.max(mayShrink ? 0.25 : 1, textHeight / lineHeightPixels));
  const read = await readRasterBox(ocr, raster, box, { scale, layout: 'single-line', timeoutMs, stretchContrast });
  return read.flatMap((readLine) => readLine.words);
}

/**
 * The page's lines with the deciding lines read a second time (see the top of this file). Lines taller
 * than wide (read on a page turned a quarter) and a page budget nearly spent are left as read.
 */
export async function secondLookAtDecidingLines(ocr: OcrPool, raster: OcrImage, lines: TextLine[], budgetMs: () => number): Promise<TextLine[]> {
  const started = Date.now();
  const result = [...lines];
  let reread = 0;
  try {
    for (const index of decidingLines(lines)) {
      const line = lines[index]!;
      const placement = line.placement!;
      if (placement.height * (raster.deskew?.givenHeight ?? raster.height) > placement.width * (raster.deskew?.givenWidth ?? raster.width)) continue;
      if (budgetMs() < minimumBudgetMs) break;
      // The second re-read only where the first leaves something to decide: most lines read the same.
      const rereads = [await rereadLine(ocr, raster, line, rereadTextHeights[0], false, budgetMs())];
      if (rereadMayRepair(line, rereads[0]!)) rereads.push(await rereadLine(ocr, raster, line, rereadTextHeights[1], true, budgetMs()));
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

/** At most this many lines of a page whose arithmetic fails are read again (the total, what checks it). */
export const maxArithmeticLines = 6;

/**
 * The re-read's characters on the first reading's words, or undefined: when the re-read, spaces left
 * out, has as many characters as the first reading's words, it is cut at their lengths ("7 .40" read
 * again for "1.40" gives "7.40"). A digit's place on the line is what pairs it, not tesseract's split.
 */
function charactersOnWords(words: readonly PositionedWord[], reread: readonly PositionedWord[]): { text: string; confidence: number }[] | undefined {
  if (reread.length === 0) return undefined;
  const joined = reread.map((word) => word.text).join('');
  if (joined.length !== words.reduce((length, word) => length + word.text.length, 0)) return undefined;
  const confidence = Math.min(...reread.map((word) => word.confidence ?? 0));
  let offset = 0;
  return words.map((word) => {
    const text = joined.slice(offset, offset + word.text.length);
    offset += word.text.length;
    return { text, confidence };
  });
}

/** Whether the punctuation stands at the same places: "14.0" for "1.40" moves the decimal point. */
const samePunctuationPlaces = (original: string, replacement: string): boolean =>
  [...original].every((character, index) => /[\p{L}\p{N}]/u.test(character) === /[\p{L}\p{N}]/u.test(replacement[index] ?? '') && (/[\p{L}\p{N}]/u.test(character) || character === replacement[index]));

/**
 * The line with the words that hold digits spelt as `spellings` says, where each is an admissible
 * repair (same shape, still a valid date or amount); undefined when nothing changes. Only digits:
 * the arithmetic that asked for the re-read speaks for amounts, not for names.
 */
function lineWithDigitsRespelt(line: TextLine, spellings: readonly ({ text: string; confidence: number } | undefined)[]): TextLine | undefined {
  let changed = false;
  const words = line.words.map((word, index) => {
    const spelling = spellings[index];
    if (!spelling || !/\d/u.test(word.text) || spelling.confidence < minimumVotingConfidence) return word;
    if (!isAdmissibleRepair(word.text, spelling.text) || !keepsItsValue(word.text, spelling.text) || !samePunctuationPlaces(word.text, spelling.text)) return word;
    changed = true;
    return { ...word, text: spelling.text, confidence: Math.min(spelling.confidence, word.confidence ?? 1) };
  });
  return changed ? { ...line, text: words.map((word) => word.text).join(' '), words } : undefined;
}

/**
 * The readings of a line to try, surest first: the spelling both re-reads agree on, then each re-read
 * alone. A single re-read is enough here because the page's arithmetic must then agree as well.
 */
export function repairedLineReadings(line: TextLine, rereads: readonly (readonly PositionedWord[])[]): TextLine[] {
  const spellings = rereads.map((reread) => charactersOnWords(line.words, reread));
  const readings: TextLine[] = [];
  const [first, second] = spellings;
  if (first && second) {
    const agreed = first.map((spelling, index) =>
      spelling.text === second[index]!.text ? { text: spelling.text, confidence: Math.min(spelling.confidence, second[index]!.confidence) } : undefined,
    );
    const both = lineWithDigitsRespelt(line, agreed);
    if (both) readings.push(both);
  }
  for (const spelling of spellings) {
    const alone = spelling && lineWithDigitsRespelt(line, spelling);
    if (alone && !readings.some((reading) => reading.text === alone.text)) readings.push(alone);
  }
  return readings;
}

/**
 * The page with the lines its arithmetic check names read again (both sizes of the second look), a
 * repaired reading kept only where the page then agrees: the total read "1.40" under "Cash 7.40 /
 * Change 0.00" is read again, and "7.40" is kept because tendered minus change then confirms it. One
 * line's repair is tried at a time, then every line's together; the first page that agrees is kept.
 */
export async function rereadWhereArithmeticFails(ocr: OcrPool, raster: OcrImage, page: DocumentPage, check: PageArithmeticCheck, budgetMs: () => number): Promise<DocumentPage> {
  const indices = check.linesToReread(page).filter((index) => page.lines[index]?.placement !== undefined && /\d/u.test(page.lines[index]!.text)).slice(0, maxArithmeticLines);
  if (indices.length === 0) return page;
  const started = Date.now();
  const readings = new Map<number, TextLine[]>();
  try {
    for (const index of indices) {
      if (budgetMs() < minimumBudgetMs) break;
      const line = page.lines[index]!;
      const rereads: PositionedWord[][] = [];
      // Tall text is brought down to the same heights: tills print the total twice as high, and
      // tesseract reads a 66-pixel "7.40" as "1.40" where it reads the same digits 44 pixels high right.
      for (const [size, textHeight] of rereadTextHeights.entries()) rereads.push(await rereadLine(ocr, raster, line, textHeight, size > 0, budgetMs(), true));
      readings.set(index, repairedLineReadings(line, rereads));
    }
  } catch (error) {
    if (!(error instanceof TimeBudgetExceededError)) throw error;
  }
  arithmeticStatistics.pages += 1;
  arithmeticStatistics.linesReread += readings.size;
  const withLines = (replacements: Map<number, TextLine>): DocumentPage => ({
    ...page,
    lines: page.lines.map((line, index) => {
      const replacement = replacements.get(index);
      return replacement ? { ...replacement, placement: line.placement! } : line;
    }),
  });
  const tries: Map<number, TextLine>[] = [];
  for (const [index, options] of readings) for (const option of options) tries.push(new Map([[index, option]]));
  for (const choice of [0, 1, 2]) {
    const together = new Map<number, TextLine>();
    for (const [index, options] of readings) if (options[choice]) together.set(index, options[choice]!);
    if (together.size > 1) tries.push(together);
  }
  const agreeing = tries.map(withLines).find((candidate) => check.agrees(candidate));
  arithmeticStatistics.milliseconds += Date.now() - started;
  if (!agreeing) return page;
  arithmeticStatistics.pagesRepaired += 1;
  return agreeing;
}

/** Statistics of the re-reads asked for by a page's failing arithmetic (for the evaluation's report). */
export const arithmeticStatistics = { pages: 0, linesReread: 0, pagesRepaired: 0, milliseconds: 0 };
