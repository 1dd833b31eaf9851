import sharp from 'sharp';
import { distance } from 'fastest-levenshtein';
import type { Placement, PositionedWord, TextLine } from '../document.ts';
import {
  amountDueLabels,
  netAmountLabels,
  priorPaymentLabels,
  receiptNetAmountLabels,
  receiptTaxAmountLabels,
  receiptTotalLabels,
  taxAmountLabels,
  totalAmountLabels,
} from '../prebuilt/invoice-labels.ts';
import { findDates } from '../values/date.ts';
import { hasLegalForm } from '../values/party-name.ts';
import { hasAmount, isInLegalForm, keepsItsValue, punctuationSkeleton, secondLookAtDecidingLines, totalLabelPattern } from './line-second-look.ts';
import { inputHeight, type LineRecognizer, type RecognizedCharacter } from './line-recognizer.ts';
import type { OcrImage, OcrPool } from './ocr-pool.ts';
import { rasterBoxOf } from './raster-crops.ts';

// Tesseract misreads a letter or digit of a receipt photo's deciding lines surely and the same way
// however often it reads them ("TED" for "TEO", "73" for "99", "21/05" for "27/05"): re-reading with
// tesseract (line-second-look.ts) cannot outvote that. A recogniser of another kind (PP-OCRv4's
// network, line-recognizer.ts) reads those characters right, but it joins words and knows no layout.
// So it reads only the lines that decide the fields (the name at the head, the date, the total), and
// its characters replace a word of tesseract's only where the two readings align, the network is sure
// of every character it changes, and the word keeps its kind (a date stays a date, an amount keeps
// its decimal point). Measured in the extraction README ("Eleventh pass: a second recogniser on the deciding lines").

/** At most this many lines per page are recognised again (~0.05-0.15 s each). */
export const maxLinesPerPage = 8;
/** Of the lines with a total label (subtotal, total, rounded total...), the first this many. */
const maxTotalLines = 3;
/** The head name (and a brand line above it) is looked for in this top share of the page. */
const headShare = 0.4;
/** Margin around the line's box, in line heights, as the network's training crops have. */
const marginInLineHeights = 0.25;
/** Below this many milliseconds of the page's budget, no line is recognised again. */
const minimumBudgetMs = 1_000;
/** Tesseract's word confidence from which a word of letters counts as surely read. */
const sureWordConfidence = 0.9;
/** The least probability of every character the network changes: in a word tesseract doubted... */
const doubtedWordCharacterConfidence = 0.8;
/** ...in a word of letters tesseract was sure of... */
const sureWordCharacterConfidence = 0.85;
/** ...and in a word with digits, whose misreading changes a value. */
const digitCharacterConfidence = 0.8;
/**
 * A word tesseract doubted (below this) that the network reads with every changed character at least
 * `wholeWordCharacterConfidence` may be respelt beyond half its characters ("E&TEU" to "BAIFU", "73"
 * to "99"): a misread word can be wrong throughout, while a sure network reading of a doubted word
 * is not a crop of something else.
 */
const doubtedWholeWordConfidence = 0.8;
const wholeWordCharacterConfidence = 0.95;
/** Two readings of a line that differ in more than this share of characters are not of the same text. */
const maximumLineDifference = 0.4;

/** Statistics of the second recogniser in this process (for the evaluation's report of the added time). */
export const secondRecognitionStatistics = { pages: 0, linesRecognized: 0, wordsReplaced: 0, failures: 0, milliseconds: 0 };

/** Every label of an amount (net, tax, total, due, paid), longest first so "sub-total" wins over "total". */
const amountLabelsPattern = new RegExp(
  `(?<![\\p{L}])(?:${[
    ...new Set(
      [netAmountLabels, taxAmountLabels, totalAmountLabels, amountDueLabels, priorPaymentLabels, receiptTotalLabels, receiptNetAmountLabels, receiptTaxAmountLabels].flatMap((labels) =>
        Object.values(labels).flat(),
      ),
    ),
  ]
    .sort((a, b) => b.length - a.length)
    .map((label) => label.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'))
    .join('|')})(?![\\p{L}])`,
  'giu',
);
/** The amount labels a line holds ("sub-total", "total"...). */
const amountLabelsOn = (text: string): string[] => [...text.matchAll(amountLabelsPattern)].map((match) => match[0].toLowerCase());
/** Whether every label of the first reading is still read, alone or within a longer one ("total" in "total sales"). */
const keepsAmountLabels = (first: string, second: string): boolean => {
  const labels = amountLabelsOn(second);
  return amountLabelsOn(first).every((label) => labels.some((other) => other.includes(label)));
};
/** A total's amount printed with its cents ("18.90"): a count under a "Total" column header is none. */
const hasAmountWithCents = (text: string): boolean => /\d[.,]\d{2}(?!\d)/u.test(text) && hasAmount(text);
const hasDate = (text: string): boolean => findDates(text).length > 0;

/**
 * The lines (indices, top to bottom) that decide a receipt's fields: the line of the head with a
 * legal form and the line above it, the first line of words at the head (often a brand over the legal name), the first
 * line with a date, and the lines with a total label with the line of its amount when printed below.
 */
export function linesToRecognizeAgain(lines: readonly TextLine[]): number[] {
  const chosen = new Set<number>();
  const inHead = (line: TextLine): boolean => (line.placement?.y ?? 1) < headShare;
  const named = lines.findIndex((line) => inHead(line) && hasLegalForm(line.text));
  // The first two lines of words at the head: a logo read as letters ("TREES") may come before the name.
  const firstWords = lines.flatMap((line, index) => (inHead(line) && /\p{L}{3}/u.test(line.text) ? [index] : [])).slice(0, 2);
  // The line above the legal form holds the name when it runs over two lines ("GARDENIA BAKERIES (KL)" over "SDN BHD").
  for (const index of [...firstWords, named - 1, named]) if (index >= 0) chosen.add(index);
  const date = lines.findIndex((line) => hasDate(line.text));
  if (date >= 0) chosen.add(date);
  const totals: number[] = [];
  lines.forEach((line, index) => {
    if (!totalLabelPattern.test(line.text)) return;
    if (hasAmountWithCents(line.text)) totals.push(index);
    else if (index + 1 < lines.length && hasAmountWithCents(lines[index + 1]!.text)) totals.push(index + 1);
  });
  for (const total of totals.slice(0, maxTotalLines)) chosen.add(total);
  return [...chosen]
    .filter((index) => lines[index]!.placement !== undefined)
    .sort((a, b) => a - b)
    .slice(0, maxLinesPerPage);
}

/** An edit turning the first reading's characters into the second's (indices into each, -1 for none). */
interface AlignedCharacter {
  first: number;
  second: number;
}

/** The cheapest alignment (Levenshtein, unit costs) of `first` to `second`, in reading order. */
export function alignCharacters(first: readonly string[], second: readonly string[]): AlignedCharacter[] {
  const columns = second.length + 1;
  const cost = new Uint32Array((first.length + 1) * columns);
  for (let i = 0; i <= first.length; i += 1) cost[i * columns] = i;
  for (let j = 0; j <= second.length; j += 1) cost[j] = j;
  for (let i = 1; i <= first.length; i += 1) {
    for (let j = 1; j <= second.length; j += 1) {
      const substitution = cost[(i - 1) * columns + j - 1]! + (first[i - 1] === second[j - 1] ? 0 : 1);
      cost[i * columns + j] = Math.min(substitution, cost[(i - 1) * columns + j]! + 1, cost[i * columns + j - 1]! + 1);
    }
  }
  const aligned: AlignedCharacter[] = [];
  let [i, j] = [first.length, second.length];
  while (i > 0 || j > 0) {
    const here = cost[i * columns + j]!;
    if (i > 0 && j > 0 && here === cost[(i - 1) * columns + j - 1]! + (first[i - 1] === second[j - 1] ? 0 : 1)) {
      aligned.push({ first: (i -= 1), second: (j -= 1) });
    } else if (i > 0 && here === cost[(i - 1) * columns + j]! + 1) {
      aligned.push({ first: (i -= 1), second: -1 });
    } else {
      aligned.push({ first: -1, second: (j -= 1) });
    }
  }
  return aligned.reverse();
}

const isLetterOrDigit = (character: string): boolean => /[\p{L}\p{N}]/u.test(character);
/** Characters a word may take from the network: Latin script, digits and the punctuation documents print. */
const readableCharacter = /^[\p{Script=Latin}\p{N}\s.,:;/\\'"&@#%()\-+*=!?$€£¥]$/u;

/** A character of the network's reading, and whether it differs from the first reading's there. */
export interface SpeltCharacter extends RecognizedCharacter {
  changed: boolean;
  /** The network read a space before this character: it sees a word start here. */
  afterSpace?: boolean;
}

/**
 * The network's spelling of each of the first reading's words: the characters aligned to the word's
 * own, and those it reads between two of the word's characters or before its first. Characters read
 * between two words go with the word before (a trailing "." or ")"), before the first word with it.
 */
function spellingsOfWords(words: readonly PositionedWord[], characters: readonly (RecognizedCharacter & { afterSpace?: boolean })[]): SpeltCharacter[][] {
  const owner: number[] = [];
  const firstCharacters: string[] = [];
  words.forEach((word, index) => {
    for (const character of word.text) {
      owner.push(index);
      firstCharacters.push(character);
    }
  });
  const spellings: SpeltCharacter[][] = words.map(() => []);
  let lastOwner = 0;
  for (const step of alignCharacters(firstCharacters, characters.map((character) => character.text))) {
    if (step.first >= 0) lastOwner = owner[step.first]!;
    if (step.second < 0) continue;
    const character = characters[step.second]!;
    spellings[lastOwner]!.push({ ...character, changed: step.first < 0 || firstCharacters[step.first] !== character.text });
  }
  return spellings;
}

const digitsIn = (text: string): number => text.replace(/\D/gu, '').length;


/** Where the punctuation stands, counted from the start or from the end of the word. */
const punctuationPlaces = (text: string): string => [...text].map((character) => (/[\p{L}\p{N}]/u.test(character) ? '_' : character)).join('');

/**
 * Whether the punctuation stands where it stood, counted from either end ("2/06/2018" read "12/06/2018"
 * gains a digit in front): "14.0" for "1.40" moves the decimal point, from both ends.
 */
function keepsPunctuationPlaces(original: string, replacement: string): boolean {
  const [first, second] = [punctuationPlaces(original), punctuationPlaces(replacement)];
  const fromEnd = (text: string, length: number): string => text.slice(Math.max(0, text.length - length));
  const length = Math.min(first.length, second.length);
  return first.slice(0, length) === second.slice(0, length) || fromEnd(first, length) === fromEnd(second, length);
}

/** Tesseract's punctuation at the word's edges that the network left out ("(KL)" read "KL") is kept. */
function withEdgesOf(original: string, spelling: string): string {
  const leading = /^[^\p{L}\p{N}]*/u.exec(original)![0];
  const trailing = /[^\p{L}\p{N}]*$/u.exec(original)![0];
  let text = spelling;
  if (leading && !text.startsWith(leading)) text = leading + text.replace(/^[^\p{L}\p{N}]*/u, '');
  if (trailing && !text.endsWith(trailing)) text = text.replace(/[^\p{L}\p{N}]*$/u, '') + trailing;
  return text;
}

/** An "I" between small letters is an "l", as in "WorId": the network often confuses the two. */
const withCaseOfNeighbours = (text: string): string => text.replace(/(?<=\p{Ll})I(?=\p{Ll})/gu, 'l');

/**
 * The replacement the network reads for `word`, or undefined where the word stays as first read:
 * when the spellings agree, when the network is unsure of a character it changes (less sure for a
 * word tesseract doubted), when the spelling holds characters no field reads (a Chinese name), when it
 * changes more than half the word, and, for a word with digits, unless it keeps its punctuation, its
 * length within one digit and its value (a date stays a date, an amount an amount).
 */
export function respelling(word: PositionedWord, spelling: readonly SpeltCharacter[]): PositionedWord | undefined {
  // Where the network reads two words ("Sdn. Bhd." for tesseract's "Sdn."), the word is not respelt.
  if (spelling.some((character, index) => index > 0 && character.afterSpace)) return undefined;
  const text = withCaseOfNeighbours(withEdgesOf(word.text, spelling.map((character) => character.text).join('').trim()));
  // Another case alone is no repair: the first reading's case stays.
  if (text.toLowerCase() === word.text.toLowerCase() || text === '' || ![...text].every((character) => readableCharacter.test(character))) return undefined;
  const changed = spelling.filter((character) => character.changed && isLetterOrDigit(character.text));
  const least = Math.min(1, ...(changed.length > 0 ? changed : spelling).map((character) => character.confidence));
  const readSurelyAgain = (word.confidence ?? 1) < doubtedWholeWordConfidence && least >= wholeWordCharacterConfidence;
  if (!readSurelyAgain && distance(word.text.toLowerCase(), text.toLowerCase()) > Math.max(word.text.length, text.length) / 2) return undefined;
  // A word grows by a character it lost ("LAN" to "LIAN"), not by another word the network joined to it ("Sdn." to "Sdn.Bhd.").
  if (text.length - word.text.length > Math.max(1, Math.floor(word.text.length / 4))) return undefined;
  // Punctuation alone ("/" read as ".") says nothing a field reads.
  if (!/[\p{L}\p{N}]/u.test(word.text)) return undefined;
  const withDigits = /\d/u.test(word.text) || /\d/u.test(text);
  if (withDigits) {
    if (least < digitCharacterConfidence || Math.abs(text.length - word.text.length) > 1) return undefined;
    // A digit the network does not see was more likely cut off by the crop than printed by mistake.
    if (digitsIn(text) < digitsIn(word.text)) return undefined;
    if (punctuationSkeleton(text) !== punctuationSkeleton(word.text) || !keepsPunctuationPlaces(word.text, text)) return undefined;
    if (!keepsItsValue(word.text, text)) return undefined;
  } else if (least < ((word.confidence ?? 1) >= sureWordConfidence ? sureWordCharacterConfidence : doubtedWordCharacterConfidence)) {
    return undefined;
  }
  return { ...word, text, confidence: Math.min(...spelling.map((character) => character.confidence)) };
}

/**
 * The line with each word respelt as the network reads it where `respelling` allows (a word of a legal
 * form as first read stays: the form is evidence tesseract read it right); unchanged when the two
 * readings, spaces left out, differ in more than 40% of their characters (a crop of something else).
 */
export function lineRespelt(line: TextLine, characters: readonly RecognizedCharacter[]): { line: TextLine; replaced: number } {
  // Spaces are left out of the alignment (the network joins and splits words unlike tesseract), but
  // each character remembers whether one preceded it.
  const second = characters.flatMap((character, index) =>
    character.text.trim() === '' ? [] : [{ ...character, ...(index > 0 && characters[index - 1]!.text.trim() === '' ? { afterSpace: true } : {}) }],
  );
  const first = line.words.map((word) => word.text).join('');
  if (second.length === 0 || first.length === 0) return { line, replaced: 0 };
  if (distance(first.toLowerCase(), second.map((character) => character.text).join('').toLowerCase()) > maximumLineDifference * Math.max(first.length, second.length)) {
    return { line, replaced: 0 };
  }
  const spellings = spellingsOfWords(line.words, second);
  let replaced = 0;
  const words = line.words.map((word, index) => {
    if (isInLegalForm(line, index)) return word;
    const respelt = respelling(word, spellings[index]!);
    if (!respelt) return word;
    replaced += 1;
    return respelt;
  });
  if (replaced === 0) return { line, replaced };
  const text = words.map((word) => word.text).join(' ');
  // An amount's label read by tesseract ("SUB-TOTAL", not "SUR-TOTAL") is evidence it read that line's words right.
  if (!keepsAmountLabels(line.text, text)) return { line, replaced: 0 };
  return { line: { ...line, text, words }, replaced };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * The band the line's text runs in: from the median top to the median bottom of its words, across
 * all of them. A speck or a logo read as a tall word ("bzy" three lines high beside "99 SPEED MART")
 * would otherwise stretch the crop until the text in it is too small for the network to read.
 */
export function textBandOf(line: TextLine): Placement {
  const placements = line.words.flatMap((word) => (word.placement ? [word.placement] : []));
  if (placements.length === 0) return line.placement!;
  const top = median(placements.map((placement) => placement.y));
  const bottom = median(placements.map((placement) => placement.y + placement.height));
  const left = Math.min(...placements.map((placement) => placement.x));
  const right = Math.max(...placements.map((placement) => placement.x + placement.width));
  return bottom > top ? { x: left, y: top, width: right - left, height: bottom - top } : line.placement!;
}

/** The line's crop of the greyscale raster, scaled to the network's input height. */
async function lineImage(pixels: { data: Buffer; width: number; height: number }, raster: OcrImage, line: TextLine) {
  const givenHeight = raster.deskew?.givenHeight ?? raster.height;
  const band = textBandOf(line);
  // Half a line height more on the left and right: a first or last character tesseract's box cut into.
  const givenWidth = raster.deskew?.givenWidth ?? raster.width;
  const widened = (0.5 * band.height * givenHeight) / givenWidth;
  const box = rasterBoxOf({ ...band, x: Math.max(0, band.x - widened), width: band.width + 2 * widened }, raster, marginInLineHeights * band.height * givenHeight);
  const width = Math.max(1, Math.round((box.width * inputHeight) / box.height));
  const { data } = await sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 1 } })
    .extract(box)
    .resize(width, inputHeight, { fit: 'fill', kernel: 'lanczos3' })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, width * inputHeight), width, height: inputHeight };
}

/**
 * The deciding lines (linesToRecognizeAgain) read by the second recogniser: its characters for each
 * line read, by the line's index. Lines taller than wide (a page turned a quarter) and a page budget
 * nearly spent are not read. Never rejects: when the recogniser (or the raster's decoding) fails, the
 * lines read so far are all there is, and the page keeps tesseract's reading of the rest.
 */
export async function readDecidingLinesAgain(recognizer: LineRecognizer, raster: OcrImage, lines: readonly TextLine[], budgetMs: () => number): Promise<Map<number, RecognizedCharacter[]>> {
  const readings = new Map<number, RecognizedCharacter[]>();
  if (budgetMs() < minimumBudgetMs) return readings;
  const started = Date.now();
  const givenHeight = raster.deskew?.givenHeight ?? raster.height;
  const givenWidth = raster.deskew?.givenWidth ?? raster.width;
  const chosen = linesToRecognizeAgain(lines).filter((index) => lines[index]!.placement!.height * givenHeight <= lines[index]!.placement!.width * givenWidth);
  if (chosen.length === 0) return readings;
  try {
    const { data, info } = await sharp(raster.bytes).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    const pixels = { data, width: info.width, height: info.height };
    for (const index of chosen) {
      if (budgetMs() < minimumBudgetMs) break;
      readings.set(index, await recognizer.recognize(await lineImage(pixels, raster, lines[index]!)));
    }
  } catch {
    // A second opinion that cannot be had (the network failed to load or run) is no fault of the
    // document: the page is read, only not checked again.
    secondRecognitionStatistics.failures += 1;
  }
  secondRecognitionStatistics.pages += 1;
  secondRecognitionStatistics.linesRecognized += readings.size;
  secondRecognitionStatistics.milliseconds += Date.now() - started;
  return readings;
}

/**
 * The page's lines with those the second recogniser read respelt where it is sure (lineRespelt). The
 * lines may have changed since they were read (tesseract's own second look respells words in place):
 * the respelling aligns the network's characters with the words as they are now.
 */
export function linesRespelt(lines: readonly TextLine[], readings: ReadonlyMap<number, readonly RecognizedCharacter[]>): TextLine[] {
  return lines.map((line, index) => {
    const characters = readings.get(index);
    if (!characters) return line;
    const respelt = lineRespelt(line, characters);
    secondRecognitionStatistics.wordsReplaced += respelt.replaced;
    return respelt.line;
  });
}

/**
 * The page's lines after both second looks at its deciding lines: tesseract's own re-reads
 * (secondLookAtDecidingLines) on the pool's workers and, at the same time on this thread, the second
 * recogniser's, whose readings are then aligned with the lines as tesseract's look left them. Without
 * a recogniser, tesseract's look alone.
 */
export async function lookAgainAtDecidingLines(ocr: OcrPool, recognizer: LineRecognizer | undefined, raster: OcrImage, lines: TextLine[], budgetMs: () => number): Promise<TextLine[]> {
  const recognizing = recognizer ? readDecidingLinesAgain(recognizer, raster, lines, budgetMs) : undefined;
  const looked = await secondLookAtDecidingLines(ocr, raster, lines, budgetMs);
  return recognizing ? linesRespelt(looked, await recognizing) : looked;
}
