import type { Placement, PositionedWord, TextLine } from '../document.ts';

// Building blocks shared by the readers: lines from plain strings (formats without geometry), boxes
// united into line boxes, and the reading order the contract promises (top to bottom, then left to right).

/** A line of a format without page geometry: words are the whitespace-separated tokens. */
export function unplacedLine(text: string): TextLine | undefined {
  const trimmed = text.replace(/\s+$/u, '').replace(/^\s+/u, '');
  if (trimmed === '') return undefined;
  const words = trimmed.split(/\s+/u).map((word): PositionedWord => ({ text: word }));
  return { text: trimmed, words };
}

/** Unplaced lines from a block of text, one per non-blank line. */
export function unplacedLines(text: string): TextLine[] {
  return text.split(/\r\n|\r|\n/u).flatMap((line) => unplacedLine(line) ?? []);
}

/** The smallest box holding all given boxes. */
export function unitePlacements(placements: Placement[]): Placement {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const placement of placements) {
    left = Math.min(left, placement.x);
    top = Math.min(top, placement.y);
    right = Math.max(right, placement.x + placement.width);
    bottom = Math.max(bottom, placement.y + placement.height);
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Clamps a box to the page; rounding keeps the JSON small without losing useful precision. */
export function clampToPage(placement: Placement): Placement {
  const left = clampFraction(placement.x);
  const top = clampFraction(placement.y);
  const right = clampFraction(placement.x + placement.width);
  const bottom = clampFraction(placement.y + placement.height);
  return { x: round(left), y: round(top), width: round(right - left), height: round(bottom - top) };
}

function clampFraction(value: number): number {
  return Math.min(1, Math.max(0, value));
}

function round(value: number): number {
  return Math.round(value * 100_000) / 100_000;
}

/**
 * Groups placed lines into visual rows, top to bottom, each row left to right. A line belongs to the
 * row whose first (topmost) line spans its vertical centre, so a label and its value printed side by
 * side (as separate lines, or OCR blocks in different columns) share a row. Lines without placement
 * each form their own row, in their given order.
 */
export function groupIntoRows(lines: TextLine[]): TextLine[][] {
  if (lines.some((line) => line.placement === undefined)) return lines.map((line) => [line]);
  const byTop = [...lines].sort((first, second) => first.placement!.y - second.placement!.y);
  const rows: TextLine[][] = [];
  let index = 0;
  while (index < byTop.length) {
    const anchor = byTop[index]!.placement!;
    const row: TextLine[] = [];
    while (index < byTop.length) {
      const candidate = byTop[index]!.placement!;
      const centre = candidate.y + candidate.height / 2;
      if (row.length > 0 && (centre < anchor.y || centre > anchor.y + anchor.height)) break;
      row.push(byTop[index]!);
      index += 1;
    }
    rows.push(row.sort((first, second) => first.placement!.x - second.placement!.x));
  }
  return rows;
}

/** Orders placed lines top to bottom, then left to right (see groupIntoRows). */
export function sortInReadingOrder(lines: TextLine[]): TextLine[] {
  return groupIntoRows(lines).flat();
}
