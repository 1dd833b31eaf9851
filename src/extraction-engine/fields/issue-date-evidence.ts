// Issue dates that no "Date" label announces: the date printed right after the document number in
// the title ("Rechnung Nr. 471102 vom 05.03.2018", "Facture n°562044387 du 02 Juillet 2015"), and
// on receipts the first date on the page.

import { findDates, findRepairedDates, type NumericDateOrder } from '../values/date.ts';
import { REPAIRED_DATE_CONFIDENCE_CEILING } from '../values/field-value.ts';
import { findIdentifierAtStart } from '../values/identifier.ts';
import { boxOfRange, type DocumentLayout, type LayoutSegment } from './document-layout.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { LabelMatch } from './label-anchors.ts';

/** Words that may stand between a document number and its date. */
const DATE_LINKING_WORDS = new Set(['vom', 'von', 'du', 'of', 'dated', 'from', 'z', 'dnia', 'van', 'del', 'de', 'le', 'am', 'issued', 'on', 'at', 'il', 'en', 'd.d.', 'dd']);

/** The date after the number that follows a document-number label, on its line or the next one. */
export function dateAfterDocumentNumber(layout: DocumentLayout, label: LabelMatch, order: NumericDateOrder, fieldName: string): FieldCandidate | undefined {
  const after = label.segment.text.slice(label.end);
  const identifier = findIdentifierAtStart(after);
  if (!identifier) return undefined;
  const restStart = label.end + identifier.index + identifier.length;
  // "... Nr. 471102 vom" with the date on the next line of the title.
  const restOfTitle = label.segment.text.slice(restStart).trim().toLowerCase();
  const nextRow = layout.pages.find((page) => page.pageNumber === label.segment.pageNumber)?.rows[label.segment.rowIndex + 1];
  const wrapped = nextRow?.segments.find((segment) => Math.abs(segment.box.x - label.segment.box.x) < 0.02);
  const places: { segment: LayoutSegment; offset: number }[] = [
    { segment: label.segment, offset: restStart },
    ...(wrapped && (restOfTitle === '' || DATE_LINKING_WORDS.has(restOfTitle)) ? [{ segment: wrapped, offset: 0 }] : []),
  ];
  for (const place of places) {
    const rest = place.segment.text.slice(place.offset);
    const date = findDates(rest, { order })[0];
    if (!date) continue;
    const between = rest.slice(0, date.index).trim().toLowerCase().split(/\s+/).filter(Boolean);
    if (between.some((word) => !DATE_LINKING_WORDS.has(word.replace(/[,:]$/, '')))) continue;
    const start = place.offset + date.index;
    return {
      fieldName,
      value: date.iso,
      score: 0.72 * label.strength,
      pageNumber: place.segment.pageNumber,
      box: boxOfRange(place.segment, start, start + date.length),
      segmentId: place.segment.id,
      evidence: 'date after the document number',
    };
  }
  return undefined;
}

/** The first date on the first page outside segments that other date labels claim: a weak guess. */
export function firstUnlabelledDate(layout: DocumentLayout, claimedSegments: Set<number>, order: NumericDateOrder, fieldName: string, yearsOnPage: readonly number[] = []): FieldCandidate | undefined {
  const firstPage = layout.pages[0];
  const segments = (firstPage?.rows.flatMap((row) => row.segments) ?? []).filter((segment) => !claimedSegments.has(segment.id));
  const asRead = firstDateIn(segments, (text) => findDates(text, { order })[0]);
  if (asRead) return { fieldName, ...asRead.place, value: asRead.date.iso, score: 0.38, evidence: 'first unlabelled date' };
  // No date exists as read: on an OCR page, the first one that exists with one misread digit replaced.
  if (firstPage?.source !== 'ocr') return undefined;
  const repaired = firstDateIn(segments, (text) => findRepairedDates(text, { order, yearsOnPage })[0]);
  if (!repaired) return undefined;
  return {
    fieldName,
    ...repaired.place,
    value: repaired.date.iso,
    // Below an unlabelled date that exists as read, above the floor under which nothing is reported.
    score: 0.32,
    evidence: `first unlabelled date, repaired from "${repaired.date.text}"`,
    confidenceCeiling: REPAIRED_DATE_CONFIDENCE_CEILING,
  };
}

/** The first segment in which `find` finds a date, with the date and where it is printed. */
function firstDateIn<FoundDate extends { index: number; length: number }>(
  segments: LayoutSegment[],
  find: (text: string) => FoundDate | undefined,
): { date: FoundDate; place: Pick<FieldCandidate, 'pageNumber' | 'box' | 'segmentId'> } | undefined {
  for (const segment of segments) {
    const date = find(segment.text);
    if (date) return { date, place: { pageNumber: segment.pageNumber, box: boxOfRange(segment, date.index, date.index + date.length), segmentId: segment.id } };
  }
  return undefined;
}
