import type { PositionedWord, TextLine } from '../document.ts';
import { multiplyTransforms, transformedBounds } from './pdf-transform.ts';
import { clampToPage, sortInReadingOrder, unitePlacements } from './text-lines.ts';
import { matchesOf } from '../values/pattern-matches.ts';

// Turns pdf.js text items (runs of glyphs in PDF user space, in content-stream order) into words and
// lines placed as page fractions from the top-left corner.

/** The fields of a pdf.js TextItem this module needs. */
export interface PdfTextItem {
  str: string;
  /** Text rendering matrix [a, b, c, d, e, f]: text space (1 unit = font size) to user space. */
  transform: number[];
  /** Advance width of the run in user space units. */
  width: number;
}

/** The fields of a pdf.js PageViewport this module needs (scale 1: one unit is one PDF point). */
export interface PdfViewport {
  /** User space to viewport space (origin top-left, y down), including the page's /Rotate. */
  transform: number[];
  width: number;
  height: number;
}

/** Fraction of the font size below the baseline and above it that a line box covers. */
const descentEm = 0.22;
const ascentEm = 0.78;
/** Runs closer than this (in em) with no space between them are one word (kerned or split runs). */
const wordJoinGapEm = 0.15;
/**
 * A horizontal gap wider than this (in em) ends a line. Side-by-side blocks (two address columns,
 * a label far from its value) then become separate lines in the same row, the way Textract splits
 * LINEs; the shared row keeps them adjacent in reading order.
 */
const lineBreakGapEm = 3;

interface Fragment {
  text: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
  em: number;
  /** True when whitespace separated this fragment from the one before it in the same run. */
  followsSpace: boolean;
}

/** Splits one text item into whitespace-separated fragments with viewport-space boxes. */
function fragmentsOfItem(item: PdfTextItem, viewport: PdfViewport): Fragment[] {
  if (item.str.trim() === '' || item.transform.length < 6) return [];
  const fontSize = Math.hypot(item.transform[0] ?? 0, item.transform[1] ?? 0);
  if (fontSize === 0 || !Number.isFinite(fontSize)) return [];
  const toViewport = multiplyTransforms(viewport.transform, item.transform);
  const em = Math.hypot(toViewport[2], toViewport[3]) || Math.hypot(toViewport[0], toViewport[1]);
  // Glyph advances are not available per character; spread the run's width evenly over its characters.
  const text = item.str;
  // Characters are code points; only text with surrogate pairs has fewer of them than UTF-16 units.
  const hasSurrogates = /[\uD800-\uDFFF]/.test(text);
  const characterCount = (part: string): number => (hasSurrogates ? [...part].length : part.length);
  const runWidth = item.width / fontSize;
  const characterWidth = runWidth / characterCount(text);

  const fragments: Fragment[] = [];
  for (const word of matchesOf(/\S+/gu, text)) {
    const start = hasSurrogates ? characterCount(text.slice(0, word.index)) : word.index;
    const end = start + characterCount(word[0]);
    fragments.push({
      text: word[0],
      ...transformedBounds(toViewport, start * characterWidth, -descentEm, end * characterWidth, ascentEm),
      em,
      // Words are maximal runs without whitespace: any but one at the very start follows a space.
      followsSpace: word.index > 0,
    });
  }
  return fragments;
}

/** Groups fragments whose vertical centres fall within one another's span into rows, left to right. */
function groupIntoRows(fragments: Fragment[]): Fragment[][] {
  const byCentre = [...fragments].sort((first, second) => first.top + first.bottom - (second.top + second.bottom));
  const rows: { top: number; bottom: number; fragments: Fragment[] }[] = [];
  for (const fragment of byCentre) {
    const centre = (fragment.top + fragment.bottom) / 2;
    const row = rows.at(-1);
    if (row && centre >= row.top && centre <= row.bottom) {
      row.fragments.push(fragment);
    } else {
      rows.push({ top: fragment.top, bottom: fragment.bottom, fragments: [fragment] });
    }
  }
  return rows.map((row) => row.fragments.sort((first, second) => first.left - second.left));
}

/** Joins touching fragments into words and splits a row into lines at wide gaps. */
function linesOfRow(row: Fragment[], viewport: PdfViewport): TextLine[] {
  const lines: Fragment[][][] = [];
  let currentLine: Fragment[][] = [];
  let previous: Fragment | undefined;
  for (const fragment of row) {
    const gap = previous ? fragment.left - previous.right : 0;
    const em = Math.max(fragment.em, previous?.em ?? 0);
    if (previous && gap > lineBreakGapEm * em) {
      lines.push(currentLine);
      currentLine = [];
    }
    const currentWord = currentLine.at(-1);
    const joinsPreviousWord = previous !== undefined && currentLine.length > 0 && !fragment.followsSpace && gap < wordJoinGapEm * em;
    if (joinsPreviousWord && currentWord) currentWord.push(fragment);
    else currentLine.push([fragment]);
    previous = fragment;
  }
  if (currentLine.length > 0) lines.push(currentLine);

  return lines.map((lineWords) => {
    const words: PositionedWord[] = lineWords.map((wordFragments) => {
      let text = '';
      let left = Infinity;
      let top = Infinity;
      let right = -Infinity;
      let bottom = -Infinity;
      for (const fragment of wordFragments) {
        text += fragment.text;
        left = Math.min(left, fragment.left);
        top = Math.min(top, fragment.top);
        right = Math.max(right, fragment.right);
        bottom = Math.max(bottom, fragment.bottom);
      }
      return {
        text,
        placement: clampToPage({ x: left / viewport.width, y: top / viewport.height, width: (right - left) / viewport.width, height: (bottom - top) / viewport.height }),
      };
    });
    return {
      text: words.map((word) => word.text).join(' '),
      words,
      placement: clampToPage(unitePlacements(words.map((word) => word.placement!))),
    };
  });
}

/** Lines of one page's text layer, in reading order, placed as page fractions. */
export function linesFromTextItems(items: PdfTextItem[], viewport: PdfViewport): TextLine[] {
  const fragments = items.flatMap((item) => fragmentsOfItem(item, viewport));
  const lines = groupIntoRows(fragments).flatMap((row) => linesOfRow(row, viewport));
  return sortInReadingOrder(lines);
}

const READABLE_CHARACTER = /(?![\p{Co}\uFFFD])[\p{L}\p{N}\p{P}\p{S}]/gu;

/**
 * Characters of a text layer a reader could use. Fonts without a Unicode mapping produce private-use
 * code points or U+FFFD instead of letters; such a layer looks full but says nothing, like a scan.
 * Counting stops at `upTo`: the reader only asks whether a page has that many, and a full page would
 * otherwise have every character matched (and kept in an array) for that one comparison.
 */
export function readableCharacterCount(lines: TextLine[], upTo = Infinity): number {
  let readable = 0;
  for (const line of lines) {
    READABLE_CHARACTER.lastIndex = 0;
    while (readable < upTo && READABLE_CHARACTER.exec(line.text) !== null) readable += 1;
    if (readable >= upTo) break;
  }
  READABLE_CHARACTER.lastIndex = 0;
  return readable;
}
