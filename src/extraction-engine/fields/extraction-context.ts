// What every step of field extraction needs to know about one document and one type, prepared once:
// its labels, parties, currency and date order (both change how other values are read). The candidate
// pool collects what the steps find, so generating candidates and choosing among them stay apart.

import type { ReadDocument } from '../document.ts';
import { inferNumericDateOrder, yearsIn, type NumericDateOrder } from '../values/date.ts';
import { groupByValue } from './candidate-selection.ts';
import type { DocumentLayout, LayoutSegment } from './document-layout.ts';
import { currencyCandidates, documentCountry, type DocumentCountry, findReturnAddressSegments, PartyBlocks, type Party } from './document-evidence.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { DocumentTypeSpecification, FieldRole, FieldSpecification } from './field-specification.ts';
import { compileLabelSources, findLabelMatches, type LabelMatch } from './label-anchors.ts';

/** The roles of the totals block: their labels end the item table, and a till's item table has its own "TOTAL". */
export const TOTALS_ROLES = new Set<FieldRole>(['net-amount', 'total-amount', 'tax-amount', 'amount-due']);

/** What every extraction step needs to know about the document and the type. */
export interface ExtractionContext {
  layout: DocumentLayout;
  language: string | undefined;
  dateOrder: NumericDateOrder;
  /** Years of the dates on the page that exist as read: evidence for repairing misread ones. */
  yearsOnPage: number[];
  specification: DocumentTypeSpecification;
  fieldsByName: Map<string, FieldSpecification>;
  labelMatches: LabelMatch[];
  labelsBySegment: Map<number, LabelMatch[]>;
  parties: PartyBlocks;
  returnAddress: LayoutSegment[];
  documentCurrencies: FieldCandidate[];
  /** The country the page clearly names, if any: resolves shared currency signs and implies a currency. */
  country?: DocumentCountry;
}

export function fieldOfRole(context: ExtractionContext, role: FieldRole): FieldSpecification | undefined {
  return context.specification.fields.find((field) => field.role === role);
}

export function roleOfLabel(context: ExtractionContext, label: LabelMatch): FieldRole | undefined {
  return label.fieldName ? context.fieldsByName.get(label.fieldName)?.role : undefined;
}

/** Candidates per field name; candidates for fields the type does not define are dropped. */
export class CandidatePool {
  private readonly byField: Map<string, FieldCandidate[]>;

  constructor(specification: DocumentTypeSpecification) {
    this.byField = new Map(specification.fields.map((field) => [field.name, []]));
  }

  add(candidates: FieldCandidate[]): void {
    for (const candidate of candidates) this.byField.get(candidate.fieldName)?.push(candidate);
  }

  of(fieldName: string | undefined): FieldCandidate[] {
    return (fieldName ? this.byField.get(fieldName) : undefined) ?? [];
  }
}

export function prepareContext(document: ReadDocument, specification: DocumentTypeSpecification, layout: DocumentLayout): ExtractionContext {
  const language = document.language;
  const fieldsByName = new Map(specification.fields.map((field) => [field.name, field]));
  const compiled = compileLabelSources([
    ...specification.fields.map((field) => ({ fieldName: field.name, labels: field.labels })),
    ...specification.fields.flatMap((field) => (field.weakLabels ? [{ fieldName: field.name, labels: field.weakLabels, strengthFactor: 0.55 }] : [])),
    { fieldName: undefined, labels: specification.distractorLabels },
  ]);
  const labelMatches = findLabelMatches(layout, compiled);
  const labelsBySegment = new Map<number, LabelMatch[]>();
  for (const label of labelMatches) labelsBySegment.set(label.segment.id, [...(labelsBySegment.get(label.segment.id) ?? []), label]);

  // Currency and date order first: both change how other values are read.
  const country = documentCountry(layout);
  const documentCurrencies = currencyCandidates(layout, language, country);
  const likelyCurrency = groupByValue(documentCurrencies)[0]?.value;
  const texts = document.pages.flatMap((page) => page.lines.map((line) => line.text));
  const dateOrder = inferNumericDateOrder({
    texts,
    ...(language ? { language } : {}),
    ...(typeof likelyCurrency === 'string' ? { currency: likelyCurrency } : {}),
    ...(country ? { country: country.country } : {}),
  });

  const partyLabels = labelMatches.flatMap((label) => {
    const role = label.fieldName ? fieldsByName.get(label.fieldName)?.role : undefined;
    const party: Party | undefined = role === 'seller-name' ? 'seller' : role === 'buyer-name' ? 'buyer' : undefined;
    return party && label.isKey ? [{ label, party }] : [];
  });
  const returnAddress = findReturnAddressSegments(layout);
  const parties = new PartyBlocks(layout, partyLabels, returnAddress);
  return { layout, language, dateOrder, yearsOnPage: yearsIn(texts), specification, fieldsByName, labelMatches, labelsBySegment, parties, returnAddress, documentCurrencies, ...(country ? { country } : {}) };
}

/** The page something was found on (a candidate, a label's segment). */
export function pageOf(context: ExtractionContext, found: { pageNumber: number }) {
  return context.layout.pages.find((page) => page.pageNumber === found.pageNumber);
}
