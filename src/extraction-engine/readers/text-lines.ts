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
  const left = Math.min(...placements.map((placement) => placement.x));
  const top = Math.min(...placements.map((placement) => placement.y));
  const right = Math.max(...placements.map((placement) => placement.x + placement.width));
  const bottom = Math.max(...placements.map((placement) => placement.y + placement.height));
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
 * Orders placed lines top to bottom, then left to right. Lines whose vertical centre falls inside the
 * vertical span of the row's first line share a row, so a label and its value printed side by side
 * (as separate lines, or OCR blocks in different columns) come out next to each other.
 */
export function sortInReadingOrder(lines: TextLine[]): TextLine[] {
  const byTop = [...lines].sort((first, second) => (first.placement?.y ?? 0) - (second.placement?.y ?? 0));
  const ordered: TextLine[] = [];
  let index = 0;
  while (index < byTop.length) {
    const rowAnchor = byTop[index]!;
    const anchorTop = rowAnchor.placement?.y ?? 0;
    const anchorBottom = anchorTop + (rowAnchor.placement?.height ?? 0);
    const row: TextLine[] = [];
    while (index < byTop.length) {
      const candidate = byTop[index]!;
      const centre = (candidate.placement?.y ?? 0) + (candidate.placement?.height ?? 0) / 2;
      if (row.length > 0 && (centre < anchorTop || centre > anchorBottom)) break;
      row.push(candidate);
      index += 1;
    }
    ordered.push(...row.sort((first, second) => (first.placement?.x ?? 0) - (second.placement?.x ?? 0)));
  }
  return ordered;
}
