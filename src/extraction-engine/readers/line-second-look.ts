import sharp from 'sharp';
import { distance } from 'fastest-levenshtein';
import type { DocumentPage, PageArithmeticCheck, Placement, PositionedWord, TextLine } from '../document.ts';
import { totalAmountLabels } from '../prebuilt/invoice-labels.ts';
import { findAmounts } from '../values/amount.ts';
import { findDates } from '../values/date.ts';
import { hasLegalForm, legalFormRanges } from '../values/party-name.ts';
import type { OcrImage, OcrPool, PageLayout } from './ocr-pool.ts';
import { medianWordHeight, uncoveredTextRegions } from './missed-lines.ts';
import { rasterBoxOf, readRasterBox, type PixelBox } from './raster-crops.ts';
import { readAtOnce } from './reads-at-once.ts';
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

/** A total label anywhere on a line, standing as a word (also used by second-recognition.ts). */
export const totalLabelPattern = new RegExp(
  `(?:^|[^\\p{L}])(?:${[...new Set(Object.values(totalAmountLabels).flat())].map((label) => label.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')).join('|')})(?:$|[^\\p{L}])`,
  'iu',
);
/** A numeric date as printed (or misread into an impossible one: "12-02-2618" is still a date line). */
const numericDatePattern = /(?<!\d)\d{1,4}([-/.])\d{1,2}\1\d{2,4}(?!\d)/u;
const monthNameDatePattern = /(?<!\d)\d{1,2}\s?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\p{L}*\s?\d{2,4}(?!\d)/iu;

/** Statistics of the second looks in this process (for the evaluation's report of the added time). */
export const secondLookStatistics = { pages: 0, linesReread: 0, wordsReplaced: 0, milliseconds: 0 };

const isDoubtful = (line: TextLine): boolean => line.words.some((word) => (word.confidence ?? 1) < doubtfulWordConfidence);
/** Whether the text holds an amount that is no percentage (also used by second-recognition.ts). */
export const hasAmount = (text: string): boolean => findAmounts(text).some((amount) => !amount.isPercentage);
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
export const punctuationSkeleton = (text: string): string => text.replace(/[\p{L}\p{N}]/gu, '');

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
export function keepsItsValue(original: string, replacement: string): boolean {
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
export function isInLegalForm(line: TextLine, index: number): boolean {
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
  return counterparts(line.words, reread).some((other, index) => other !== undefined && mayBeRepaired(line, index, other.text)) || wordsReadBetween(line.words, reread).length > 0;
}

/** Re-reads agreeing on a spelling carry it only when none is below the first confidence and their mean reaches the second. */
function votesSurely(confidences: readonly number[]): boolean {
  return Math.min(...confidences) >= minimumVotingConfidence && confidences.reduce((sum, value) => sum + value, 0) / confidences.length >= minimumMeanVotingConfidence;
}

/** A word that anchors an insertion: more than one character, so a speck read as "|" or "." anchors nothing. */
const anchorsInsertion = (word: PositionedWord): boolean => word.text.replace(/[^\p{L}\p{N}]/gu, '').length >= 2;

/**
 * Words a re-read holds between two words that stand side by side in the first reading: "(KL)" in
 * "GARDENIA BAKERIES (KL) SDN BHD" where the page's reading went from "BAKERIES" straight to "SDN" (a
 * faint word the whole page's threshold lost). Found by the two neighbours, read the same in both,
 * wherever the re-read has them: it may split or join other words of the line differently.
 */
function wordsReadBetween(words: readonly PositionedWord[], reread: readonly PositionedWord[]): { after: number; word: PositionedWord }[] {
  const found: { after: number; word: PositionedWord }[] = [];
  for (let index = 0; index + 1 < words.length; index += 1) {
    const [left, right] = [words[index]!, words[index + 1]!];
    if (!anchorsInsertion(left) || !anchorsInsertion(right)) continue;
    for (let position = 1; position + 1 < reread.length; position += 1) {
      if (reread[position - 1]!.text !== left.text || reread[position + 1]!.text !== right.text) continue;
      const word = reread[position]!;
      if (/[\p{L}\p{N}]/u.test(word.text) && word.text !== left.text && word.text !== right.text) found.push({ after: index, word });
    }
  }
  return found;
}

/**
 * The words every re-read (at least two) holds at the same place between two neighbours of the first
 * reading, each read surely enough to vote (see chooseLineWords), with the lower of their confidences.
 */
function insertionsAgreed(words: readonly PositionedWord[], rereads: readonly (readonly PositionedWord[])[]): { after: number; word: PositionedWord }[] {
  if (rereads.length < 2) return [];
  const [first, ...others] = rereads.map((reread) => wordsReadBetween(words, reread));
  return first!.flatMap((insertion) => {
    const matching = others.map((found) => found.find((other) => other.after === insertion.after && other.word.text === insertion.word.text));
    if (matching.some((other) => other === undefined)) return [];
    const confidences = [insertion, ...matching].map((other) => other!.word.confidence ?? 0);
    return votesSurely(confidences) ? [{ after: insertion.after, word: { ...insertion.word, confidence: Math.min(...confidences) } }] : [];
  });
}

/**
 * Chooses each word of a line from its first reading and the re-reads of the line alone (two of three
 * reads agreeing outvote the first): a word read with doubt (below 0.9), or any word with digits, is replaced where every re-read
 * (at least two) has the same other spelling at its place, none below confidence 0.4 and 0.6 on
 * average, and the repair is admissible (isAdmissibleRepair, keepsItsValue). The replaced word takes
 * the lowest confidence of the agreeing reads; every other word is kept as first read. A word every
 * re-read holds between the same two neighbours, which the first reading has side by side, is added
 * there on the same terms (insertionsAgreed).
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
    if (!votesSurely(confidences)) return word;
    replaced += 1;
    return { ...word, text: first.text, confidence: Math.min(...confidences) };
  });
  // A word the page's reading left out between two of its words, read there by every re-read.
  const insertions = insertionsAgreed(line.words, rereads);
  const withInsertions = words.flatMap((word, index) => [word, ...insertions.filter((insertion) => insertion.after === index).map((insertion) => insertion.word)]);
  replaced += insertions.length;
  if (replaced === 0) return { line, replaced };
  return { line: { ...line, text: withInsertions.map((word) => word.text).join(' '), words: withInsertions }, replaced };
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
 * than wide (read on a page turned a quarter) and a page budget nearly spent are left as read. The
 * lines are read at once on the pool's workers (reads-at-once.ts); a line whose re-reads ran out of the
 * page's budget keeps its first reading.
 */
export async function secondLookAtDecidingLines(ocr: OcrPool, raster: OcrImage, lines: TextLine[], budgetMs: () => number): Promise<TextLine[]> {
  if (budgetMs() < minimumBudgetMs) return lines;
  const started = Date.now();
  const givenHeight = raster.deskew?.givenHeight ?? raster.height;
  const givenWidth = raster.deskew?.givenWidth ?? raster.width;
  const chosen = decidingLines(lines).filter((index) => lines[index]!.placement!.height * givenHeight <= lines[index]!.placement!.width * givenWidth);
  const rereadsOfLines = await readAtOnce(
    chosen.map((index) => async () => {
      const line = lines[index]!;
      // The second re-read only where the first leaves something to decide: most lines read the same.
      const rereads = [await rereadLine(ocr, raster, line, rereadTextHeights[0], false, budgetMs())];
      if (rereadMayRepair(line, rereads[0]!)) rereads.push(await rereadLine(ocr, raster, line, rereadTextHeights[1], true, budgetMs()));
      return rereads;
    }),
  );
  const result = [...lines];
  let reread = 0;
  for (const [position, index] of chosen.entries()) {
    const rereads = rereadsOfLines[position];
    if (!rereads) continue;
    reread += 1;
    const choice = chooseLineWords(lines[index]!, rereads);
    secondLookStatistics.wordsReplaced += choice.replaced;
    if (choice.replaced > 0) result[index] = { ...choice.line, placement: clampToPage(unitePlacements(choice.line.words.map((word) => word.placement!))) };
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
  if (budgetMs() >= minimumBudgetMs) {
    // Every line at both sizes at once (reads-at-once.ts); a line counts once both its re-reads are in.
    // Tall text is brought down to the same heights: tills print the total twice as high, and
    // tesseract reads a 66-pixel "7.40" as "1.40" where it reads the same digits 44 pixels high right.
    const rereads = await readAtOnce(
      indices.flatMap((index) => rereadTextHeights.map((textHeight, size) => () => rereadLine(ocr, raster, page.lines[index]!, textHeight, size > 0, budgetMs(), true))),
    );
    for (const [position, index] of indices.entries()) {
      const ofLine = rereads.slice(position * rereadTextHeights.length, (position + 1) * rereadTextHeights.length);
      if (ofLine.every((reread) => reread !== undefined)) readings.set(index, repairedLineReadings(page.lines[index]!, ofLine as PositionedWord[][]));
    }
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

// The head of a receipt names the seller, and it is where the page reading fails most (extraction
// README, "Remaining misses, by kind"): a name printed large or faint above the address is left out
// ("POPULAR BOOK / CO. (M) SDN BHD" over the outlet's address), or a word of it is ("VERBENA" of
// "VERBENA CONFECTIONERY SDN BHD"). The second look at a single line cannot bring back a line that was
// never read. So where the head is in doubt, the band of the page above its first address or
// registration line is cut out and read again alone as one block, twice (its text brought to the two
// sizes tesseract reads best, once with its contrast stretched); the band's lines are then taken from that reading where it
// reads them more surely and more fully (mergeHeadReading), and lines only it found are added.

/** The head band ends at the latest this far down the page. */
const headBandShare = 0.35;
/**
 * A line of the address block or the registration numbers under the name: the head band ends above
 * it. Words of an address, a phone or fax, a tax or company number, a postcode with a town.
 */
const addressOrRegistrationLine =
  /(?<!\p{L})(?:jalan|jln|lorong|persiaran|taman|tmn|lot|no\.?\s?\d|blok|block|bandar|seksyen|street|road|tel|fax|phone|gst|sst|co\.?\s?(?:reg|no)|company\s+no|reg\.?\s?no)(?!\p{L})|\(\s?\d{4,}\s?-?\s?[A-Z]\s?\)|(?<!\d)\d{5}(?!\d)\s+\p{L}/iu;
/** A head line is named surely when each of its words was read at least this surely. */
const sureHeadWordConfidence = 0.9;
/** Ink no word covers, in the head, up to this many line heights tall: a name printed twice as large over two lines. */
const headRegionLineHeights = 8;
/** A line or word the head re-read adds must average this confidence, none of its words below the second. */
const addedHeadLineConfidence = 0.75;
const addedHeadWordConfidence = 0.6;
/** A re-read word replaces a doubted one only when read surer by this much. */
const surerBy = 0.05;

/** Statistics of the head re-reads in this process (for the evaluation's report of the added time). */
export const headSecondLookStatistics = { pagesChecked: 0, pagesReread: 0, linesReplaced: 0, linesAdded: 0, milliseconds: 0 };

/**
 * The head band of a page (fractions of the page, top and bottom) and the first reading's lines in
 * it: from the top of the page down to the first address or registration line that is not itself a
 * line with a legal form (a name line may carry its company number: "MR. D.I.Y. (M) SDN BHD (860671-D)").
 * Undefined when the page has no such line in its top part: then there is no head to tell apart.
 */
export function headBand(lines: readonly TextLine[]): { top: number; bottom: number; lines: number[] } | undefined {
  const placed = lines.map((line, index) => ({ line, index })).filter(({ line }) => line.placement !== undefined && line.placement.y < headBandShare);
  const first = placed.find(({ line }) => addressOrRegistrationLine.test(line.text) && !hasLegalForm(line.text));
  if (!first) return undefined;
  const bottom = first.line.placement!.y;
  const inBand = placed.filter(({ line }) => line.placement!.y + line.placement!.height / 2 < bottom).map(({ index }) => index);
  return { top: 0, bottom, lines: inBand };
}

/**
 * Whether the head is in doubt: no line above the address carries a legal form read surely, and the
 * band holds no line of letters at all or a word of letters tesseract doubted. A head whose words were
 * all read surely is left alone, as is one whose legal name was.
 */
export function headIsDoubtful(lines: readonly TextLine[], band: { lines: readonly number[] }): boolean {
  const headLines = band.lines.map((index) => lines[index]!);
  const sure = (word: PositionedWord): boolean => (word.confidence ?? 1) >= sureHeadWordConfidence;
  if (headLines.some((line) => hasLegalForm(line.text) && line.words.every(sure))) return false;
  const wordsOfLetters = headLines.flatMap((line) => line.words).filter((word) => /\p{L}{2}/u.test(word.text));
  return wordsOfLetters.length === 0 || wordsOfLetters.some((word) => !sure(word));
}

/** Whether the head band holds ink, shaped like text, that no word of the first reading covers. */
async function headHasUnreadInk(raster: OcrImage, lines: readonly TextLine[], bottom: number): Promise<boolean> {
  const wordBoxes = wordBoxesOf(lines, raster);
  const lineHeight = medianWordHeight(wordBoxes);
  if (lineHeight === undefined) return false;
  const { data, info } = await sharp(raster.bytes).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const bandBottom = rasterBoxOf({ x: 0, y: 0, width: 1, height: bottom }, raster);
  const regions = uncoveredTextRegions({ data, width: info.width, height: info.height }, wordBoxes, lineHeight, headRegionLineHeights);
  return regions.some((region) => region.top + region.height <= bandBottom.top + bandBottom.height);
}

const lettersOf = (line: TextLine): number => line.words.reduce((count, word) => count + (word.text.match(/\p{L}/gu)?.length ?? 0), 0);
const meanConfidence = (words: readonly PositionedWord[]): number => words.reduce((sum, word) => sum + (word.confidence ?? 0), 0) / Math.max(1, words.length);

/** Whether two lines are one line read twice: the middle of each lies within the other's height. */
function sameHeight(first: Placement, second: Placement): boolean {
  const within = (middleOf: Placement, box: Placement): boolean => middleOf.y + middleOf.height / 2 >= box.y && middleOf.y + middleOf.height / 2 <= box.y + box.height;
  return within(first, second) && within(second, first);
}

/**
 * Whether two lines overlap in height and share a word of three letters or more: the same line read
 * with another box (a re-read's box may take in specks above a large name: "POPULAR BOOK 4").
 */
function readsSameWords(first: TextLine, second: TextLine): boolean {
  const [a, b] = [first.placement!, second.placement!];
  if (Math.min(a.y + a.height, b.y + b.height) <= Math.max(a.y, b.y)) return false;
  const words = new Set(first.words.map((word) => word.text).filter((text) => /\p{L}{3}/u.test(text)));
  return second.words.some((word) => words.has(word.text));
}

/** Whether a re-read line is read surely enough to join the page where the first reading had nothing. */
const isSureNewLine = (line: TextLine): boolean =>
  /\p{L}{3}/u.test(line.text) && meanConfidence(line.words) >= addedHeadLineConfidence && line.words.every((word) => (word.confidence ?? 0) >= addedHeadWordConfidence);

/**
 * One head line from its first reading and its re-read alone (both at the same height):
 * - the re-read holds every word of the first reading, in order and spelt the same, and more words
 *   read surely around them ("VERBENA" before "CONFECTIONERY SDN BHD"): the re-read line;
 * - both split the line into the same words: each word tesseract doubted (below 0.9) is respelt where
 *   the re-read spells it otherwise, surer by 0.05 and as an admissible repair, outside a legal form
 *   as first read (a number keeps its value; a word of letters may lose a misread digit);
 * - otherwise the first reading.
 */
export function mergeHeadLine(first: TextLine, reread: TextLine): { line: TextLine; changed: boolean } {
  const rereadTexts = reread.words.map((word) => word.text);
  const firstTexts = first.words.map((word) => word.text);
  for (let start = 0; start + firstTexts.length <= rereadTexts.length; start += 1) {
    if (firstTexts.length === 0 || rereadTexts.length === firstTexts.length) break;
    if (!firstTexts.every((text, index) => rereadTexts[start + index] === text)) continue;
    const extra = [...reread.words.slice(0, start), ...reread.words.slice(start + firstTexts.length)];
    if (!extra.every((word) => (word.confidence ?? 0) >= addedHeadLineConfidence && /\p{L}{2}/u.test(word.text))) break;
    const words = [...extra.slice(0, start), ...first.words, ...extra.slice(start)];
    return { line: { ...first, words, text: words.map((word) => word.text).join(' '), ...placementOf(words, first) }, changed: true };
  }
  if (rereadTexts.length !== firstTexts.length) return { line: first, changed: false };
  let changed = false;
  const words = first.words.map((word, index) => {
    const other = reread.words[index]!;
    if ((word.confidence ?? 1) >= doubtfulWordConfidence || (other.confidence ?? 0) < (word.confidence ?? 1) + surerBy) return word;
    // A word of letters with a digit in it ("(5ETIA") is a misread name, not a number to keep.
    const valueToKeep = !/\p{L}/u.test(word.text);
    if (!isAdmissibleRepair(word.text, other.text) || (valueToKeep && !keepsItsValue(word.text, other.text)) || isInLegalForm(first, index)) return word;
    changed = true;
    return { ...word, text: other.text, confidence: other.confidence };
  });
  return changed ? { line: { ...first, words, text: words.map((word) => word.text).join(' ') }, changed } : { line: first, changed };
}

function placementOf(words: readonly PositionedWord[], fallback: TextLine): { placement?: Placement } {
  const placements = words.flatMap((word) => (word.placement ? [word.placement] : []));
  return placements.length === words.length ? { placement: clampToPage(unitePlacements(placements)) } : fallback.placement ? { placement: fallback.placement } : {};
}

/**
 * The page's lines with a re-read of the head band (down to `bandBottom`) merged in: each first-read
 * line of letters in the band is merged with the re-read line at its height (mergeHeadLine); a re-read
 * line at a height where the page has no line of letters joins the page when read surely (isSureNewLine)
 * and not already there under another box (readsSameWords).
 */
export function mergeHeadReading(lines: readonly TextLine[], bandBottom: number, reread: readonly TextLine[]): { lines: TextLine[]; replaced: number; added: number } {
  const result = [...lines];
  let replaced = 0;
  const withLetters = lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.placement && line.placement.y + line.placement.height / 2 < bandBottom && lettersOf(line) >= 2)
    .map(({ index }) => index);
  const added: TextLine[] = [];
  for (const line of reread) {
    if (!line.placement || line.words.length === 0) continue;
    const partners = withLetters.filter((index) => sameHeight(lines[index]!.placement!, line.placement!));
    if (partners.length === 0) {
      if (isSureNewLine(line) && ![...withLetters.map((index) => lines[index]!), ...added].some((other) => readsSameWords(other, line))) added.push(line);
      continue;
    }
    if (partners.length > 1) continue;
    const merged = mergeHeadLine(result[partners[0]!]!, line);
    if (merged.changed) {
      result[partners[0]!] = merged.line;
      replaced += 1;
    }
  }
  return { lines: added.reduce(insertedByMiddle, result), replaced, added: added.length };
}

/**
 * The lines with `line` put before the first line whose middle lies lower than its own. Not sorted
 * into rows: a name read large reaches down over the top of the line under it, and would be put
 * after that line as if beside it.
 */
function insertedByMiddle(lines: TextLine[], line: TextLine): TextLine[] {
  const middle = (placement: Placement): number => placement.y + placement.height / 2;
  const before = lines.findIndex((other) => other.placement !== undefined && middle(other.placement) > middle(line.placement!));
  return before < 0 ? [...lines, line] : [...lines.slice(0, before), line, ...lines.slice(before)];
}

/**
 * The head band read ahead: while a till receipt is read whole on one worker, the pool's other worker
 * idles (a receipt read in bands loses names, "OCR speed: one page on both cores"). It reads the top of
 * the page alone first, finds the head band and the line height there as secondLookAtTheHead finds
 * them in the page reading, and reads the band at the second look's two sizes. The page reading then
 * decides whether the head is in doubt, as before; where it is, and its band and line height agree
 * with those read ahead, the reads already made are used instead of being made after the page
 * reading (extraction README, "OCR speed, round 8").
 */
export interface HeadReadAhead {
  /**
   * Settles once the top of the page was read: the band and line height the reads ahead are cut
   * with, or undefined when it showed no head band (or could not be read).
   */
  readonly band: Promise<HeadBandGuess | undefined>;
  /** Settles once the band was read, or undefined when the top of the page showed no head band or the reads failed. */
  readonly reads: Promise<HeadBandReads | undefined>;
}

/** The head band as the top of the page read alone shows it: where it ends, and the line height. */
export interface HeadBandGuess {
  bottom: number;
  lineHeight: number;
}

/** The head band's two reads at the second look's sizes, and the band and line height they were cut with. */
export interface HeadBandReads extends HeadBandGuess {
  rereads: TextLine[][];
}

/** A band read ahead stands for the page reading's when its bottom lies this close, in line heights... */
const aheadBottomTolerance = 0.5;
/** ...and its line height (which sets the reads' sizes) this close, as a share. */
const aheadLineHeightTolerance = 0.1;

/** Statistics of the head bands read ahead in this process: used, and read for nothing or read again. */
export const headReadAheadStatistics = { started: 0, used: 0, notAgreeing: 0 };

/**
 * Starts reading the head band ahead on the pool's idle worker. Only for a page read whole as one
 * block by a pool of two workers or more (a page read in bands keeps both busy). The reads never
 * reject: a failure or a spent budget leaves the second look to read the band itself.
 */
export function readHeadAhead(ocr: OcrPool, raster: OcrImage, layout: PageLayout, budgetMs: () => number): HeadReadAhead | undefined {
  if (ocr.size < 2 || layout !== 'single-block' || budgetMs() < minimumBudgetMs) return undefined;
  headReadAheadStatistics.started += 1;
  const band = (async (): Promise<HeadBandGuess | undefined> => {
    const top = rasterBoxOf({ x: 0, y: 0, width: 1, height: headBandShare }, raster);
    const lines = await readRasterBox(ocr, raster, top, { scale: 1, layout: 'single-block', timeoutMs: budgetMs() });
    const found = headBand(lines);
    const lineHeight = medianWordHeight(wordBoxesOf(lines, raster));
    return found && lineHeight !== undefined ? { bottom: found.bottom, lineHeight } : undefined;
  })().catch(() => undefined);
  const reads = band
    .then(async (guess) => {
      if (!guess) return undefined;
      const rereads = await readHeadBand(ocr, raster, guess.bottom, guess.lineHeight, budgetMs);
      return rereads ? { ...guess, rereads } : undefined;
    })
    .catch(() => undefined);
  return { band, reads };
}

function wordBoxesOf(lines: readonly TextLine[], raster: OcrImage): PixelBox[] {
  return lines.flatMap((line) => line.words).flatMap((word) => (word.placement ? [rasterBoxOf(word.placement, raster)] : []));
}

/**
 * The band above `bottom` read alone at the second look's two sizes, the smaller with its contrast
 * stretched: each brings back lines and words the other misses (a faint name, a large one). Both are
 * read at once (reads-at-once.ts). Undefined when either ran out of the page's budget.
 */
async function readHeadBand(ocr: OcrPool, raster: OcrImage, bottom: number, lineHeight: number, budgetMs: () => number): Promise<TextLine[][] | undefined> {
  const box = rasterBoxOf({ x: 0, y: 0, width: 1, height: bottom }, raster);
  const rereads = await readAtOnce(
    rereadTextHeights.map((textHeight, size) => () => {
      const scale = Math.min(4, Math.max(0.5, textHeight / lineHeight));
      return readRasterBox(ocr, raster, box, { scale, layout: 'single-block', timeoutMs: budgetMs(), stretchContrast: size === 0 });
    }),
  );
  return rereads.every((reread) => reread !== undefined) ? (rereads as TextLine[][]) : undefined;
}

/**
 * The time one read of the head band may take: what is left of the page's budget, but no longer than
 * the whole page's reading took (and never under the budget a second look needs to start). The band is
 * a fifth to a third of the page; where its read takes longer than the page, tesseract is reading a
 * textured background as thousands of specks (receipts/sroie_211: 11 s for each of the band's two
 * reads after a 2.9 s page reading), and the page reading's head stands, as when the budget runs out.
 */
function bandReadBudget(budgetMs: () => number, pageReadingMs: number | undefined): () => number {
  if (pageReadingMs === undefined) return budgetMs;
  const capMs = Math.max(minimumBudgetMs, pageReadingMs);
  return () => Math.min(budgetMs(), capMs);
}

/** Whether the band read ahead is the band the page reading puts the head in, at the same sizes. */
function readAheadAgrees(ahead: HeadBandGuess, bottom: number, lineHeight: number, raster: OcrImage): boolean {
  const pageHeight = raster.deskew ? raster.deskew.givenHeight : raster.height;
  return (
    Math.abs(ahead.bottom - bottom) * pageHeight <= aheadBottomTolerance * lineHeight && Math.abs(ahead.lineHeight - lineHeight) <= aheadLineHeightTolerance * lineHeight
  );
}

/**
 * The page's lines with the head read again where it is in doubt (see "The head of a receipt" above):
 * no sure legal name above the address, a doubted word there, or ink there no word covers. Pages with
 * no address or registration line near the top, and a page budget nearly spent, are left as read.
 * `ahead` holds the band's reads when they were started during the page reading (readHeadAhead).
 */
export async function secondLookAtTheHead(
  ocr: OcrPool,
  raster: OcrImage,
  lines: TextLine[],
  budgetMs: () => number,
  ahead?: HeadReadAhead,
  pageReadingMs?: number,
): Promise<TextLine[]> {
  const band = headBand(lines);
  if (!band || budgetMs() < minimumBudgetMs) return lines;
  const started = Date.now();
  headSecondLookStatistics.pagesChecked += 1;
  try {
    if (!headIsDoubtful(lines, band) && !(await headHasUnreadInk(raster, lines, band.bottom))) return lines;
    const lineHeight = medianWordHeight(wordBoxesOf(lines, raster));
    if (lineHeight === undefined) return lines;
    // Whether the band read ahead is this one is known from the top of the page alone: where it is
    // not, the band is read now rather than after reads ahead that would not be used (a noisy band
    // can take a worker many seconds).
    const guess = ahead ? await ahead.band : undefined;
    const agrees = guess !== undefined && readAheadAgrees(guess, band.bottom, lineHeight, raster);
    const readAhead = agrees ? await ahead!.reads : undefined;
    if (guess) headReadAheadStatistics[agrees ? 'used' : 'notAgreeing'] += 1;
    // The first re-read's lines join the page before the second is merged, so both do not add the
    // same line. If either ran out of the page's budget, the first reading stands.
    const rereads = readAhead ? readAhead.rereads : await readHeadBand(ocr, raster, band.bottom, lineHeight, bandReadBudget(budgetMs, pageReadingMs));
    if (!rereads) return lines;
    let merged = { lines, replaced: 0, added: 0 };
    for (const reread of rereads) {
      const next = mergeHeadReading(merged.lines, band.bottom, reread);
      merged = { lines: next.lines, replaced: merged.replaced + next.replaced, added: merged.added + next.added };
    }
    headSecondLookStatistics.pagesReread += 1;
    headSecondLookStatistics.linesReplaced += merged.replaced;
    headSecondLookStatistics.linesAdded += merged.added;
    return merged.lines;
  } catch (error) {
    // The first reading stands when the page's budget runs out during the head's second look.
    if (!(error instanceof TimeBudgetExceededError)) throw error;
    return lines;
  } finally {
    headSecondLookStatistics.milliseconds += Date.now() - started;
  }
}
