import type { Bbox, Block, Line, Word } from 'tesseract.js';

// Merges readings of one image made with different sets of language models (one worker per set, the
// same image, layout mode and preprocessing) into one reading, the way tesseract itself chooses between
// its languages when it is given several at once (`Tesseract::RetryWithLanguage` and `SelectBestWords`
// in tesseract's src/ccmain/control.cpp): within a line, the two readings' words are taken in the
// smallest groups whose right ends meet a word break of both (so a word one model read as two is
// compared with that one word), and the group of the second reading replaces the first's only when its
// least sure word is surer than the first group's least sure word and its rating is lower; words past the
// end of one reading's line are taken from the other (a word only one reading has within the line counts
// in its group, as in tesseract). tesseract's rating is the sum of the characters' costs, which
// tesseract.js does not report: it is taken here as the sum of the characters' doubt (100 minus each
// symbol's confidence; a word's confidence is 100 + 5 x tesseract's certainty). tesseract also lets a
// dictionary word win within a margin; tesseract.js does not say which words are in the dictionary.
// Ties keep the first reading, as tesseract keeps the language it tried first.

/** Lines of two readings are the same line when their heights overlap by at least this share of the lower one. */
const sameLineOverlap = 0.5;

/** One reading of the image: tesseract's blocks from one worker. */
export type Reading = Block[];

/**
 * One reading made of several of the same image, the first reading taken as the base (the worker with
 * the first language of the full set). Lines are paired by their placement; a line only one reading
 * found is kept as read. The result holds one block of one paragraph: the callers use lines and words.
 */
export function mergeReadings(readings: readonly Reading[]): Block[] {
  if (readings.length === 0) return [];
  if (readings.length === 1) return readings[0]!;
  let merged = linesOf(readings[0]!);
  for (const reading of readings.slice(1)) merged = mergeLines(merged, linesOf(reading));
  const template = readings.flat()[0];
  return merged.length === 0 || !template ? [] : [asBlock(merged, template)];
}

function linesOf(reading: Reading): Line[] {
  return reading.flatMap((block) => (block.paragraphs ?? []).flatMap((paragraph) => paragraph.lines ?? []));
}

function mergeLines(base: Line[], other: Line[]): Line[] {
  const taken = new Set<Line>();
  const result: Line[] = [];
  for (const line of base) {
    const partner = bestPartner(line, other, taken);
    if (!partner) {
      result.push(line);
      continue;
    }
    taken.add(partner);
    result.push(lineOfWords(line, chooseWords(wordsInOrder(line), wordsInOrder(partner))));
  }
  // Lines the base reading did not find at all (no base line at their height) are text it missed.
  for (const line of other) {
    if (!taken.has(line) && !base.some((baseLine) => sharesHeight(baseLine.bbox, line.bbox))) result.push(line);
  }
  return result.sort((a, b) => a.bbox.y0 - b.bbox.y0 || a.bbox.x0 - b.bbox.x0);
}

function bestPartner(line: Line, candidates: Line[], taken: Set<Line>): Line | undefined {
  let best: Line | undefined;
  let bestOverlap = 0;
  for (const candidate of candidates) {
    if (taken.has(candidate) || !overlapsAcross(line.bbox, candidate.bbox)) continue;
    const overlap = heightOverlap(line.bbox, candidate.bbox);
    if (overlap >= sameLineOverlap && overlap > bestOverlap) {
      best = candidate;
      bestOverlap = overlap;
    }
  }
  return best;
}

const overlapsAcross = (a: Bbox, b: Bbox): boolean => Math.min(a.x1, b.x1) > Math.max(a.x0, b.x0);
const sharesHeight = (a: Bbox, b: Bbox): boolean => overlapsAcross(a, b) && heightOverlap(a, b) >= sameLineOverlap;

function heightOverlap(a: Bbox, b: Bbox): number {
  const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return overlap / Math.max(1, Math.min(a.y1 - a.y0, b.y1 - b.y0));
}

const wordsInOrder = (line: Line): Word[] => [...(line.words ?? [])].filter((word) => word.text.trim() !== '').sort((a, b) => a.bbox.x0 - b.bbox.x0);

/** Where one reading stands within a group: its least sure word so far, the doubt of its words, and whether it lacks a word there. */
interface GroupSide {
  leastConfidence: number;
  rating: number;
  lacking: boolean;
  counted: Set<Word>;
}

/** tesseract's rating of a word (lower is better), from its characters' confidences when tesseract.js gives them. */
export function wordRating(word: Word): number {
  const symbols = word.symbols ?? [];
  if (symbols.length > 0) return symbols.reduce((sum, symbol) => sum + (100 - symbol.confidence), 0);
  return Math.max(1, word.text.trim().length) * (100 - word.confidence);
}

/**
 * The words of one line chosen group by group from two readings of it (`base` wins ties). A group ends
 * where both readings have a word break: the right end of the last word of each lies before the next
 * word of either.
 */
export function chooseWords(base: readonly Word[], other: readonly Word[]): Word[] {
  const chosen: Word[] = [];
  let b = 0;
  let n = 0;
  while (b < base.length || n < other.length) {
    const startB = b;
    const startN = n;
    const baseSide: GroupSide = { leastConfidence: Infinity, rating: 0, lacking: false, counted: new Set() };
    const otherSide: GroupSide = { leastConfidence: Infinity, rating: 0, lacking: false, counted: new Set() };
    while (b < base.length || n < other.length) {
      const baseEnds = evaluate(base, b, baseSide);
      const otherEnds = evaluate(other, n, otherSide);
      if (Math.max(baseEnds.right, otherEnds.right) < Math.min(baseEnds.nextLeft, otherEnds.nextLeft)) break;
      if ((baseEnds.right < otherEnds.right && b < base.length) || n === other.length) b += 1;
      else n += 1;
    }
    const otherBetter =
      !otherSide.lacking && (baseSide.lacking || (otherSide.leastConfidence > baseSide.leastConfidence && otherSide.rating < baseSide.rating));
    if (otherBetter) chosen.push(...other.slice(startN, n + 1));
    else if (!baseSide.lacking) chosen.push(...base.slice(startB, b + 1));
    b = b < base.length ? b + 1 : b;
    n = n < other.length ? n + 1 : n;
  }
  return chosen;
}

function evaluate(words: readonly Word[], index: number, side: GroupSide): { right: number; nextLeft: number } {
  const word = words[index];
  if (!word) {
    side.lacking = true;
    return { right: -Infinity, nextLeft: Infinity };
  }
  side.leastConfidence = Math.min(side.leastConfidence, word.confidence);
  if (!side.counted.has(word)) {
    side.counted.add(word);
    side.rating += wordRating(word);
  }
  return { right: word.bbox.x1, nextLeft: words[index + 1]?.bbox.x0 ?? Infinity };
}

function lineOfWords(line: Line, words: Word[]): Line {
  const confidence = words.length === 0 ? 0 : words.reduce((sum, word) => sum + word.confidence, 0) / words.length;
  return { ...line, words, text: words.map((word) => word.text).join(' '), confidence, bbox: unite([line.bbox, ...words.map((word) => word.bbox)]) };
}

function unite(boxes: Bbox[]): Bbox {
  return {
    x0: Math.min(...boxes.map((box) => box.x0)),
    y0: Math.min(...boxes.map((box) => box.y0)),
    x1: Math.max(...boxes.map((box) => box.x1)),
    y1: Math.max(...boxes.map((box) => box.y1)),
  };
}

/** The merged lines as one block, its other properties (the page) those of a block of the readings. */
function asBlock(lines: Line[], template: Block): Block {
  const bbox = unite(lines.map((line) => line.bbox));
  const text = lines.map((line) => line.text).join('\n');
  const confidence = lines.reduce((sum, line) => sum + line.confidence, 0) / lines.length;
  const paragraph = { lines, text, confidence, bbox, is_ltr: true };
  return { ...template, paragraphs: [paragraph], text, confidence, bbox };
}
