// The positioned lines of a ReadDocument regrouped for field finding: visual rows (lines at the same
// height, which readers may deliver as separate lines per column) made of segments (runs of words
// without a column gap). Formats without geometry get approximate boxes from character columns so
// that "right of" and "below" mean the same thing everywhere; those boxes are never reported.

import type { DocumentPage, Placement, PositionedWord, ReadDocument, TextLine } from '../document.ts';
import { unitePlacements } from '../readers/text-lines.ts';
import { matchesOf } from '../values/pattern-matches.ts';

export interface LayoutWord {
  text: string;
  /** Offset of the word in its segment's text. */
  start: number;
  box: Placement;
  confidence?: number;
}

export interface LayoutSegment {
  /** Position in DocumentLayout.segments, stable for the layout's lifetime. */
  id: number;
  pageNumber: number;
  /** Index of the segment's row within its page. */
  rowIndex: number;
  text: string;
  words: LayoutWord[];
  box: Placement;
}

export interface LayoutRow {
  pageNumber: number;
  index: number;
  segments: LayoutSegment[];
  top: number;
  bottom: number;
}

export interface LayoutPage {
  pageNumber: number;
  /** Where the page's text came from; OCR text needs more tolerant value reading. */
  source: DocumentPage['source'];
  rows: LayoutRow[];
  /** Median line height on the page, the unit for vertical distances. */
  typicalLineHeight: number;
}

export interface DocumentLayout {
  pages: LayoutPage[];
  segments: LayoutSegment[];
  /** True when boxes come from the document; false when they were approximated from text columns. */
  hasGeometry: boolean;
}

export { unitePlacements };

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

interface PlacedWord {
  text: string;
  box: Placement;
  confidence?: number;
}

function placedWordsOfLine(line: TextLine): PlacedWord[] | undefined {
  const words = line.words.filter((word) => word.text.trim().length > 0);
  if (words.length > 0 && words.every((word) => word.placement)) {
    return words.map((word: PositionedWord) => ({
      text: word.text,
      box: word.placement as Placement,
      ...(word.confidence !== undefined ? { confidence: word.confidence } : line.confidence !== undefined ? { confidence: line.confidence } : {}),
    }));
  }
  if (!line.placement) return undefined;
  // Words without boxes inside a placed line: spread them over the line box by character count.
  const texts = words.length > 0 ? words.map((word) => word.text) : line.text.split(/\s+/).filter(Boolean);
  const totalCharacters = texts.reduce((sum, text) => sum + text.length + 1, 0) - 1;
  let offset = 0;
  return texts.map((text) => {
    const box = {
      x: line.placement!.x + (offset / totalCharacters) * line.placement!.width,
      y: line.placement!.y,
      width: (text.length / totalCharacters) * line.placement!.width,
      height: line.placement!.height,
    };
    offset += text.length + 1;
    return { text, box, ...(line.confidence !== undefined ? { confidence: line.confidence } : {}) };
  });
}

/** Splits a line's words where the gap is wider than a few characters: a column boundary. */
function splitAtColumnGaps(words: PlacedWord[]): PlacedWord[][] {
  const characterWidths = words.map((word) => word.box.width / Math.max(1, word.text.length));
  const characterWidth = median(characterWidths);
  const threshold = Math.max(characterWidth * 2.2, 0.012);
  const runs: PlacedWord[][] = [];
  let current: PlacedWord[] = [];
  let previous: PlacedWord | undefined;
  for (const word of [...words].sort((left, right) => left.box.x - right.box.x)) {
    if (previous && word.box.x - (previous.box.x + previous.box.width) > threshold) {
      runs.push(current);
      current = [];
    }
    current.push(word);
    previous = word;
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function segmentFromWords(words: PlacedWord[], pageNumber: number): Omit<LayoutSegment, 'id' | 'rowIndex'> {
  let text = '';
  const layoutWords: LayoutWord[] = [];
  for (const word of words) {
    if (text.length > 0) text += ' ';
    layoutWords.push({ text: word.text, start: text.length, box: word.box, ...(word.confidence !== undefined ? { confidence: word.confidence } : {}) });
    text += word.text;
  }
  return { pageNumber, text, words: layoutWords, box: unitePlacements(words.map((word) => word.box)) };
}

/** Text-only lines: columns are runs separated by two or more spaces; boxes from character columns. */
function approximateSegments(lines: TextLine[], pageNumber: number): Omit<LayoutSegment, 'id' | 'rowIndex'>[][] {
  const widest = Math.max(40, ...lines.map((line) => line.text.length));
  const rowHeight = 1 / Math.max(60, lines.length + 1);
  return lines.map((line, lineIndex) => {
    const segments: Omit<LayoutSegment, 'id' | 'rowIndex'>[] = [];
    for (const run of matchesOf(/\S+(?: \S+)*/g, line.text)) {
      const words: PlacedWord[] = [];
      for (const word of matchesOf(/\S+/g, run[0])) {
        const column = run.index + word.index;
        words.push({ text: word[0], box: { x: column / widest, y: lineIndex * rowHeight, width: word[0].length / widest, height: rowHeight * 0.8 } });
      }
      segments.push(segmentFromWords(words, pageNumber));
    }
    return segments;
  });
}

/** Groups segments whose vertical centres fall within each other's height into rows. */
function groupIntoRows(segments: Omit<LayoutSegment, 'id' | 'rowIndex'>[]): Omit<LayoutSegment, 'id' | 'rowIndex'>[][] {
  const sorted = [...segments].sort((left, right) => left.box.y + left.box.height / 2 - (right.box.y + right.box.height / 2));
  const rows: { centre: number; height: number; segments: Omit<LayoutSegment, 'id' | 'rowIndex'>[] }[] = [];
  for (const segment of sorted) {
    const centre = segment.box.y + segment.box.height / 2;
    // OCR boxes hug the glyphs, so a short word sits off-centre of a tall one on the same line.
    const row = rows.find((candidate) => Math.abs(candidate.centre - centre) < Math.max(candidate.height, segment.box.height) * 0.6);
    if (row) row.segments.push(segment);
    else rows.push({ centre, height: segment.box.height, segments: [segment] });
  }
  return rows
    .sort((left, right) => left.centre - right.centre)
    .map((row) => row.segments.sort((left, right) => left.box.x - right.box.x));
}

export function buildDocumentLayout(document: ReadDocument): DocumentLayout {
  const segments: LayoutSegment[] = [];
  const pages: LayoutPage[] = [];
  let hasGeometry = false;
  for (const page of document.pages) {
    const placedLines = page.lines.map((line) => ({ line, words: placedWordsOfLine(line) }));
    const geometric = placedLines.length > 0 && placedLines.every((entry) => entry.words !== undefined);
    let rowsOfSegments: Omit<LayoutSegment, 'id' | 'rowIndex'>[][];
    if (geometric) {
      hasGeometry = true;
      const lineSegments = placedLines.flatMap((entry) => splitAtColumnGaps(entry.words ?? []).map((words) => segmentFromWords(words, page.pageNumber)));
      rowsOfSegments = groupIntoRows(lineSegments);
    } else {
      rowsOfSegments = approximateSegments(page.lines, page.pageNumber);
    }
    const rows: LayoutRow[] = rowsOfSegments.map((rowSegments, rowIndex) => {
      const placed = rowSegments.map((segment) => {
        const withId: LayoutSegment = { ...segment, id: segments.length, rowIndex };
        segments.push(withId);
        return withId;
      });
      const top = Math.min(...placed.map((segment) => segment.box.y));
      const bottom = Math.max(...placed.map((segment) => segment.box.y + segment.box.height));
      return { pageNumber: page.pageNumber, index: rowIndex, segments: placed, top, bottom };
    });
    const heights = rows.flatMap((row) => row.segments.map((segment) => segment.box.height));
    pages.push({ pageNumber: page.pageNumber, source: page.source, rows, typicalLineHeight: median(heights) || 0.015 });
  }
  return { pages, segments, hasGeometry };
}

/** The box of a character range of a segment: the united boxes of the words it touches. */
export function boxOfRange(segment: LayoutSegment, start: number, end: number): Placement {
  const touched = segment.words.filter((word) => word.start < end && word.start + word.text.length > start);
  return touched.length > 0 ? unitePlacements(touched.map((word) => word.box)) : segment.box;
}

/** Mean OCR confidence of the words in a character range; 1 for text layers. */
export function confidenceOfRange(segment: LayoutSegment, start: number, end: number): number {
  const touched = segment.words.filter((word) => word.start < end && word.start + word.text.length > start);
  const confidences = touched.map((word) => word.confidence).filter((confidence): confidence is number => confidence !== undefined);
  if (confidences.length === 0) return 1;
  return confidences.reduce((sum, confidence) => sum + confidence, 0) / confidences.length;
}

export function pageOf(layout: DocumentLayout, pageNumber: number): LayoutPage | undefined {
  return layout.pages.find((page) => page.pageNumber === pageNumber);
}
