// A possible value for a field, with where it was found and how much the finder believes it.

import type { Placement } from '../document.ts';
import type { FieldValue } from '../values/field-value.ts';

export interface FieldCandidate {
  fieldName: string;
  value: FieldValue;
  /** Belief in [0, ~1.2] before calibration; comparable between candidates of one field. */
  score: number;
  pageNumber: number;
  box: Placement;
  /** Segment the value was read from, so other heuristics can tell whose block it sits in. */
  segmentId: number;
  /** Short description of the evidence, for debugging and evaluation reports. */
  evidence: string;
  /** Highest confidence the value may be reported with, whatever its score (a repaired OCR misreading). */
  confidenceCeiling?: number;
}

/** Key for grouping candidates that carry the same value. */
export function valueKey(value: FieldValue): string {
  return typeof value === 'string' ? `s:${value.toLowerCase().replace(/\s+/g, ' ')}` : `${typeof value}:${String(value)}`;
}
