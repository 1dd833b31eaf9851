// Values next to labels: on the same line to the right (in the label's segment or the following
// columns of the row), or below the label in the rows underneath, overlapping it horizontally.

import { findValuesAfterLabel, type FoundValue, type ValueContext } from '../values/field-value.ts';
import { hasLegalForm, looksLikeKeyAndValue } from '../values/party-name.ts';
import { boxOfRange, confidenceOfRange, unitePlacements, type DocumentLayout, type LayoutRow, type LayoutSegment } from './document-layout.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { FieldSpecification } from './field-specification.ts';
import type { LabelMatch } from './label-anchors.ts';

interface TextPiece {
  segment: LayoutSegment;
  /** Offset of the piece in the virtual text and in its segment. */
  virtualStart: number;
  segmentStart: number;
  length: number;
}

/** Several segment slices joined with a column gap, mapping offsets back to their segments. */
class VirtualText {
  text = '';
  readonly pieces: TextPiece[] = [];

  append(segment: LayoutSegment, segmentStart: number, segmentEnd: number): void {
    if (this.text.length > 0) this.text += '   ';
    this.pieces.push({ segment, virtualStart: this.text.length, segmentStart, length: segmentEnd - segmentStart });
    this.text += segment.text.slice(segmentStart, segmentEnd);
  }

  locate(virtualIndex: number): { piece: TextPiece; offset: number; pieceIndex: number } | undefined {
    for (let pieceIndex = this.pieces.length - 1; pieceIndex >= 0; pieceIndex -= 1) {
      const piece = this.pieces[pieceIndex];
      if (piece && virtualIndex >= piece.virtualStart) return { piece, offset: virtualIndex - piece.virtualStart, pieceIndex };
    }
    return undefined;
  }
}

export interface LabelCandidateContext {
  layout: DocumentLayout;
  labelsBySegment: Map<number, LabelMatch[]>;
  valueContext: ValueContext;
}

function nextLabelStart(context: LabelCandidateContext, segment: LayoutSegment, after: number): number {
  const labels = context.labelsBySegment.get(segment.id) ?? [];
  const next = labels.filter((label) => label.start >= after && !label.qualifiesLabelBefore).sort((left, right) => left.start - right.start)[0];
  return next ? next.start : segment.text.length;
}

function startsWithLabel(context: LabelCandidateContext, segment: LayoutSegment, from = 0): boolean {
  const labels = context.labelsBySegment.get(segment.id) ?? [];
  return labels.some((label) => label.start >= from && segment.text.slice(from, label.start).trim().length === 0);
}

function rowOf(context: LabelCandidateContext, segment: LayoutSegment): LayoutRow | undefined {
  return context.layout.pages.find((page) => page.pageNumber === segment.pageNumber)?.rows[segment.rowIndex];
}

function toCandidate(field: FieldSpecification, found: FoundValue, virtual: VirtualText, score: number, evidence: string): FieldCandidate | undefined {
  const location = virtual.locate(found.index);
  if (!location) return undefined;
  const start = location.piece.segmentStart + location.offset;
  const end = start + Math.min(found.length, location.piece.length - location.offset);
  const ocrConfidence = confidenceOfRange(location.piece.segment, start, end);
  return {
    fieldName: field.name,
    value: found.value,
    score: score * found.quality * (0.4 + 0.6 * ocrConfidence),
    pageNumber: location.piece.segment.pageNumber,
    box: boxOfRange(location.piece.segment, start, end),
    segmentId: location.piece.segment.id,
    evidence: `${evidence}${location.pieceIndex > 0 ? ' (next column)' : ''}`,
    ...(found.confidenceCeiling !== undefined ? { confidenceCeiling: found.confidenceCeiling } : {}),
  };
}

/**
 * Company names wrap: "MVM Musterhafter" above "Versicherungsverein Musterstadt a.G.". When the
 * next line in the column ends with a legal form and the name does not, the name continues there.
 */
function withWrappedNameLine(candidate: FieldCandidate, nextRow: LayoutRow | undefined, columnX: number): FieldCandidate {
  if (typeof candidate.value !== 'string' || hasLegalForm(candidate.value) || !nextRow) return candidate;
  const continuation = nextRow.segments.find((segment) => Math.abs(segment.box.x - columnX) < 0.01);
  if (!continuation || /\d/.test(continuation.text) || !hasLegalForm(continuation.text)) return candidate;
  if (continuation.box.y - (candidate.box.y + candidate.box.height) > candidate.box.height * 1.2) return candidate;
  return {
    ...candidate,
    value: `${candidate.value} ${continuation.text.trim()}`,
    box: unitePlacements([candidate.box, continuation.box]),
    evidence: `${candidate.evidence} + wrapped line`,
  };
}

const PARTY_SHAPES = new Set(['party-name']);

/** Candidates to the right of the label on its row, then in up to three rows below it. */
export function candidatesNearLabel(field: FieldSpecification, label: LabelMatch, context: LabelCandidateContext): FieldCandidate[] {
  const isPartyName = field.shape !== undefined && PARTY_SHAPES.has(field.shape);
  // A party label must be a key ("Seller:", or alone on its line); "Lieferant GmbH" is a name.
  if (isPartyName && (!label.isKey || !label.atSegmentStart)) return [];
  const right = candidatesRightOf(field, label, context);
  // Below: only for header-like labels: nothing usable to their right, and first in their segment or
  // one of several labels in a header row. "14 Tage netto" ends a sentence and heads no column.
  if (right.textFollows && right.candidates.length > 0) return right.candidates;
  if (!label.atSegmentStart && (context.labelsBySegment.get(label.segment.id)?.length ?? 0) < 2) return right.candidates;
  return [...right.candidates, ...candidatesBelow(field, label, context, isPartyName)];
}

function labelTextOf(label: LabelMatch): string {
  return label.segment.text.slice(label.start, label.end);
}

/** A total of the supplies at one tax rate is a part of the document's total, rarely all of it. */
const PER_RATE_TOTAL_FACTOR = 0.35;

/**
 * "Total 0% supplies: 31.78", "Summe 19 %": a bare total word followed at once by a tax rate totals
 * the lines at that rate. A qualified label keeps its rate ("Total incl. 19% VAT" is the total).
 */
function isPerRateTotal(labelText: string, betweenLabelAndValue: string): boolean {
  return !/\s/u.test(labelText.trim()) && /^\s*[@:]?\s*\d{1,2}(?:[.,]\d{1,2})?\s?%/u.test(betweenLabelAndValue);
}

/** The rest of the label's segment, then the next columns of the row until another label. */
function candidatesRightOf(field: FieldSpecification, label: LabelMatch, context: LabelCandidateContext): { candidates: FieldCandidate[]; textFollows: boolean } {
  const right = new VirtualText();
  const ownEnd = nextLabelStart(context, label.segment, label.end);
  right.append(label.segment, label.end, ownEnd);
  const row = rowOf(context, label.segment);
  if (ownEnd === label.segment.text.length && row) {
    for (const segment of row.segments) {
      if (segment.box.x <= label.segment.box.x + label.segment.box.width - 0.001 || segment.id === label.segment.id) continue;
      if (startsWithLabel(context, segment)) break;
      const end = nextLabelStart(context, segment, 0);
      right.append(segment, 0, end);
      if (end < segment.text.length || right.pieces.length >= 4) break;
    }
  }
  const candidates: FieldCandidate[] = [];
  for (const found of findValuesAfterLabel(field.type, right.text, context.valueContext)) {
    const location = right.locate(found.index);
    const direction = location && location.pieceIndex > 0 ? 0.93 : 1;
    const perRate = field.role === 'total-amount' && isPerRateTotal(labelTextOf(label), right.text.slice(0, found.index));
    const candidate = toCandidate(field, found, right, label.strength * direction * (perRate ? PER_RATE_TOTAL_FACTOR : 1), `right of "${labelTextOf(label)}"`);
    if (candidate) candidates.push(candidate);
  }
  const textFollows = label.segment.text.slice(label.end, ownEnd).replace(/^[\s:#.]+/, '').length > 0;
  return { candidates, textFollows };
}

const DIRECTION_FACTORS_BELOW = [0.9, 0.78, 0.65, 0.55];

/** Up to three rows below the label (four for party names), words overlapping it horizontally. */
function candidatesBelow(field: FieldSpecification, label: LabelMatch, context: LabelCandidateContext, isPartyName: boolean): FieldCandidate[] {
  const page = context.layout.pages.find((candidatePage) => candidatePage.pageNumber === label.segment.pageNumber);
  const row = rowOf(context, label.segment);
  if (!page || !row) return [];
  const candidates: FieldCandidate[] = [];
  const maxDistance = page.typicalLineHeight * 5.5;
  const tolerance = 0.008;
  const numeric = field.type === 'amount' || field.type === 'number' || field.type === 'integer';
  let rowsSearched = 0;
  // Rows whose one figure, under the header, has a label of another field before it ("Subtotal 688.00").
  const labelledElsewhere = new Set<FieldCandidate>();
  for (let rowIndex = row.index + 1; rowIndex < page.rows.length && rowsSearched < (isPartyName ? 4 : 3); rowIndex += 1) {
    const below = page.rows[rowIndex];
    if (!below) break;
    if (below.top - label.box.y - label.box.height > maxDistance * (rowsSearched + 1) * 0.6 + maxDistance * 0.4) break;
    const overlapping = below.segments.flatMap((segment) =>
      segment.words
        .filter((word) => word.box.x < label.box.x + label.box.width + tolerance && word.box.x + word.box.width > label.box.x - tolerance)
        .map((word) => ({ segment, word })),
    );
    if (overlapping.length === 0) continue;
    rowsSearched += 1;
    // Amount columns are right-aligned under their header: take the number most under the label.
    const chosen = numeric
      ? overlapping
          .map((entry) => ({
            ...entry,
            overlap: Math.min(entry.word.box.x + entry.word.box.width, label.box.x + label.box.width) - Math.max(entry.word.box.x, label.box.x),
          }))
          .filter((entry) => /\d/.test(entry.word.text))
          .sort((left, right) => right.overlap - left.overlap)[0]
      : overlapping[0];
    if (!chosen) continue;
    if (startsWithLabel(context, chosen.segment, chosen.word.start)) break;
    const belowText = new VirtualText();
    belowText.append(chosen.segment, chosen.word.start, nextLabelStart(context, chosen.segment, chosen.word.start + 1));
    const restOfRow = [chosen.segment.text.slice(chosen.word.start), ...below.segments.filter((segment) => segment.box.x > chosen.segment.box.x).map((segment) => segment.text)].join(' ');
    if (isPartyName && looksLikeKeyAndValue(restOfRow)) continue;
    const values = findValuesAfterLabel(field.type, belowText.text, context.valueContext);
    const first = numeric ? values.find((value) => value.index === 0 || belowText.text.slice(0, value.index).trim().length <= 3) : values[0];
    if (first) {
      const direction = DIRECTION_FACTORS_BELOW[rowsSearched - 1] ?? 0.5;
      const candidate = toCandidate(field, first, belowText, label.strength * direction, `below "${labelTextOf(label)}"`);
      if (candidate) candidates.push(isPartyName ? withWrappedNameLine(candidate, page.rows[rowIndex + 1], chosen.word.box.x) : candidate);
      if (candidate && figuresOn(below) === 1 && rowLabelledBefore(context, below, chosen.word.box.x, field.name)) labelledElsewhere.add(candidate);
      // A column of amounts under a header lists per-rate rows, then their sum: keep looking.
      if (numeric) continue;
      break;
    }
    // A party block may start with a line that is not the name ("GLN 4000001123452").
    if (!isPartyName) break;
  }
  return numeric ? withSumRowFirst(candidates, labelledElsewhere) : candidates;
}

/** How many words of the row are figures: a totals row of a table has one per column, a labelled line one. */
function figuresOn(row: LayoutRow): number {
  return row.segments.flatMap((segment) => segment.words).filter((word) => /^\D{0,3}\d[\d.,' ]*\D{0,2}$/u.test(word.text)).length;
}

/** Labels left of `x` on the row name another field than `fieldName`, and not this one ("USt. Gesamt: 75,04" is the tax's). */
function rowLabelledBefore(context: LabelCandidateContext, row: LayoutRow, x: number, fieldName: string): boolean {
  const labels = row.segments.filter((segment) => segment.box.x < x).flatMap((segment) => context.labelsBySegment.get(segment.id) ?? []).filter((label) => label.fieldName !== undefined && label.box.x < x);
  return labels.length > 0 && labels.every((label) => label.fieldName !== fieldName);
}

/**
 * Rows per tax rate, then a row that adds them up: the sum row is the document's figure, though it is
 * the farthest from the header, so it gets the first row's score. Not where the sum row is one figure
 * labelled as another field's ("Subtotal 688.00" under an item table's "Total" column): it is that
 * field's figure, where a table's totals row ("Summe 473,00 89,87 562,87") sums every column.
 */
function withSumRowFirst(column: FieldCandidate[], labelledElsewhere: Set<FieldCandidate>): FieldCandidate[] {
  const last = column.at(-1);
  if (!last || labelledElsewhere.has(last) || column.length < 3 || column.some((candidate) => typeof candidate.value !== 'number')) return column;
  const rows = column.slice(0, -1);
  const sum = rows.reduce((total, candidate) => total + (candidate.value as number), 0);
  if (Math.abs(sum - (last.value as number)) > 0.011 * rows.length || (last.value as number) === 0) return column;
  return [...rows, { ...last, score: Math.max(last.score, rows[0]!.score * 1.05), evidence: `${last.evidence} (sum of the rows above)` }];
}
