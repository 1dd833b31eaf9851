// The value reported for one field, shared by every step that settles a field (value selection,
// party names, tables): its placement is clamped to the page so a box that a reading let spill over
// the edge is still a valid placement.

import type { Placement } from '../document.ts';
import type { FieldValue } from '../values/field-value.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { ExtractedTable } from './table-specification.ts';

export interface FieldResult {
  name: string;
  value: FieldValue | undefined;
  confidence?: number;
  pageNumber?: number;
  /** Only when the document has real geometry. */
  placement?: Placement;
  evidence?: string;
  /** The rows of a `table` field (value stays undefined). */
  table?: ExtractedTable;
  /** A part of an amount that sum rules leave out: the tip in a total that net plus tax does not cover. */
  outsideSums?: number;
}

export function resultFrom(name: string, candidate: FieldCandidate, confidence: number, hasGeometry: boolean, value: FieldValue = candidate.value): FieldResult {
  return {
    name,
    value,
    confidence,
    pageNumber: candidate.pageNumber,
    ...(hasGeometry ? { placement: clampPlacement(candidate.box) } : {}),
    evidence: candidate.evidence,
  };
}

/** The box kept inside the page, in fractions rounded to four places. */
export function clampPlacement(box: Placement): Placement {
  const x = Math.min(1, Math.max(0, box.x));
  const y = Math.min(1, Math.max(0, box.y));
  const round = (value: number): number => Math.round(value * 10000) / 10000;
  return { x: round(x), y: round(y), width: round(Math.min(1 - x, Math.max(0, box.width))), height: round(Math.min(1 - y, Math.max(0, box.height))) };
}
