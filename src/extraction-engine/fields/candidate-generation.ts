// Every place a field's value may come from, gathered as scored candidates before any is chosen:
// values near the field's labels, configured patterns in the whole document, and document-wide
// evidence for the prebuilt roles (currency, IBAN, VAT ids, party names). Generation stays apart from
// selection so a new source of evidence is a new candidate, not a new rule in the choice.

import { parseValueOfType, type ValueContext } from '../values/field-value.ts';
import { matchesOf } from '../values/pattern-matches.ts';
import { boxOfRange, type DocumentLayout, type LayoutRow } from './document-layout.ts';
import {
  companyNameCandidates,
  ibanCandidates,
  impliedCurrencyCandidates,
  letterheadCandidates,
  mentionsAddress,
  receiptHeadCandidates,
  returnAddressCandidates,
  vatIdCandidates,
  type Party,
} from './document-evidence.ts';
import { fieldOfRole, pageOf, TOTALS_ROLES, type CandidatePool, type ExtractionContext } from './extraction-context.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { FieldRole, FieldSpecification } from './field-specification.ts';
import { dateAfterDocumentNumber, firstUnlabelledDate } from './issue-date-evidence.ts';
import { compileLabelSources, findLabelMatches, type LabelMatch } from './label-anchors.ts';
import { candidatesNearLabel } from './label-candidates.ts';
import { TITLE_WORDS } from './party-names.ts';
import { taxSummaryTotalRows } from './rate-totals.ts';

const ROLE_PARTY: Partial<Record<FieldRole, Party>> = { 'seller-vat-id': 'seller', 'buyer-vat-id': 'buyer' };

export function addLabelCandidates(context: ExtractionContext, pool: CandidatePool): void {
  const issueDateField = fieldOfRole(context, 'issue-date');
  let summaryTotals: Map<LayoutRow, number | undefined> | undefined;
  let itemHeaders: Set<string> | undefined;
  for (const label of context.labelMatches) {
    const field = label.fieldName ? context.fieldsByName.get(label.fieldName) : undefined;
    if (!field) continue;
    const valueContext: ValueContext = {
      dateOrder: context.dateOrder,
      ...(context.language ? { language: context.language } : {}),
      ...(field.allowedValues ? { allowedValues: field.allowedValues } : {}),
      ...(field.patterns.length > 0 ? { patterns: field.patterns } : {}),
      ...(field.shape ? { shape: field.shape } : {}),
      ...(field.dateInRange ? { dateInRange: field.dateInRange } : {}),
      fromOcr: pageOf(context, label.segment)?.source === 'ocr',
      yearsOnPage: context.yearsOnPage,
    };
    // "NO. 31G&33G, JALAN SETIA INDAH": a number label that opens an address line gives a house number.
    if (field.role === 'document-number' && mentionsAddress(label.segment.text.slice(label.end).replace(/^\W*\S+/u, ''))) continue;
    let found = candidatesNearLabel(field, label, { layout: context.layout, labelsBySegment: context.labelsBySegment, valueContext });
    // "QTY ITEM TOTAL" heads a till's item table: the amounts under its "TOTAL" are the items' own (an
    // invoice's table may end in a row that sums its columns, which is the document's figure).
    if (context.specification.sellerHeadsDocument && field.role !== undefined && TOTALS_ROLES.has(field.role)) {
      itemHeaders ??= itemTableHeaderRows(context);
      if (itemHeaders.has(`${label.segment.pageNumber}:${label.segment.rowIndex}`)) found = found.filter((candidate) => !candidate.evidence.startsWith('below'));
    }
    // "TOTAL : 26.00 1.56" under a GST summary adds up the summary's columns: its first figure is not
    // the document's total, its net plus tax is.
    if (field.role === 'total-amount') {
      summaryTotals ??= taxSummaryTotalRows(context.layout);
      found = grossOfSummaryRows(found, summaryTotals, context.layout);
    }
    const party = field.role ? ROLE_PARTY[field.role] : undefined;
    if (party) {
      // The same "VAT id" label serves both parties: whose block it is in decides.
      const owner = context.parties.partyOf(label.segment.id) ?? 'seller';
      found = found.map((candidate) => ({ ...candidate, score: candidate.score * (owner === party ? 1 : 0.25) }));
    }
    pool.add(found);
    if (field.role === 'document-number' && issueDateField) {
      const date = dateAfterDocumentNumber(context.layout, label, context.dateOrder, issueDateField.name);
      if (date) pool.add([date]);
    }
  }
  if (issueDateField) {
    const claimedByOtherDates = new Set(
      context.labelMatches
        .filter((label) => label.fieldName !== issueDateField.name && context.fieldsByName.get(label.fieldName ?? '')?.type === 'date')
        .map((label) => label.segment.id),
    );
    const date = firstUnlabelledDate(context.layout, claimedByOtherDates, context.dateOrder, issueDateField.name, context.yearsOnPage);
    if (date) pool.add([date]);
  }
}

/** Configured patterns of a field without labels are searched in the whole document. */
export function addPatternCandidates(context: ExtractionContext, pool: CandidatePool): void {
  for (const field of context.specification.fields) {
    if (field.patterns.length === 0 || Object.keys(field.labels).length > 0) continue;
    pool.add(
      patternCandidates(context.layout, field, {
        dateOrder: context.dateOrder,
        ...(context.language ? { language: context.language } : {}),
        patterns: field.patterns,
        ...(field.allowedValues ? { allowedValues: field.allowedValues } : {}),
      }),
    );
  }
}

/** Document-wide evidence for the prebuilt roles. */
export function addRoleEvidence(context: ExtractionContext, pool: CandidatePool): void {
  const { layout, parties } = context;
  for (const field of context.specification.fields) {
    switch (field.role) {
      case 'currency': {
        const mentioned = context.documentCurrencies.length > 0 ? context.documentCurrencies : impliedCurrencyCandidates(layout, context.language, context.country);
        pool.add(mentioned.map((candidate) => ({ ...candidate, fieldName: field.name })));
        break;
      }
      case 'iban':
        pool.add(ibanCandidates(layout, field.name, parties));
        break;
      case 'seller-vat-id':
        pool.add(vatIdCandidates(layout, field.name, 'seller', parties));
        break;
      case 'buyer-vat-id':
        pool.add(vatIdCandidates(layout, field.name, 'buyer', parties));
        break;
      case 'seller-name': {
        const labelledSegments = new Set(context.labelMatches.filter((label) => label.atSegmentStart).map((label) => label.segment.id));
        pool.add(companyNameCandidates(layout, field.name, 'seller', parties));
        pool.add(letterheadCandidates(layout, field.name, TITLE_WORDS, parties, labelledSegments));
        if (context.specification.sellerHeadsDocument) pool.add(receiptHeadCandidates(layout, field.name));
        break;
      }
      case 'buyer-name':
        pool.add(companyNameCandidates(layout, field.name, 'buyer', parties));
        break;
      default:
        break;
    }
  }
  const sellerField = fieldOfRole(context, 'seller-name');
  const buyerField = fieldOfRole(context, 'buyer-name');
  if (sellerField && buyerField) pool.add(returnAddressCandidates(layout, context.returnAddress, sellerField.name, buyerField.name));
}

/**
 * Rows ("page:row") that head the item table: they name its quantity column and its description or
 * unit price column ("Qty Description Price Disc Total", "QTY ITEM TOTAL").
 */
function itemTableHeaderRows(context: ExtractionContext): Set<string> {
  const columns = context.specification.fields.find((field) => field.role === 'line-items')?.columns ?? [];
  const quantity = columns.find((column) => column.role === 'quantity');
  const others = columns.filter((column) => column.role === 'description' || column.role === 'unit-price');
  if (!quantity || others.length === 0) return new Set();
  const matches = findLabelMatches(
    context.layout,
    compileLabelSources([{ fieldName: 'quantity', labels: quantity.headerLabels }, ...others.map((column) => ({ fieldName: 'other', labels: column.headerLabels }))]),
  );
  const key = (label: LabelMatch) => `${label.segment.pageNumber}:${label.segment.rowIndex}`;
  const withQuantity = new Set(matches.filter((label) => label.fieldName === 'quantity').map(key));
  return new Set(matches.filter((label) => label.fieldName === 'other' && withQuantity.has(key(label))).map(key));
}

/** A total read from the summary's net and tax counts less than a total printed on a line of its own. */
const SUMMARY_GROSS_FACTOR = 0.75;

/** Total candidates of a tax summary's total row replaced by the gross that row gives, once per row. */
function grossOfSummaryRows(candidates: FieldCandidate[], summaryTotals: Map<LayoutRow, number | undefined>, layout: DocumentLayout): FieldCandidate[] {
  const kept: FieldCandidate[] = [];
  const rowsDone = new Set<LayoutRow>();
  for (const candidate of candidates) {
    const row = rowOfSegment(layout, candidate.segmentId);
    if (!row || !summaryTotals.has(row)) {
      kept.push(candidate);
      continue;
    }
    const gross = summaryTotals.get(row);
    if (gross === undefined || rowsDone.has(row)) continue;
    rowsDone.add(row);
    kept.push({ ...candidate, value: gross, score: candidate.score * SUMMARY_GROSS_FACTOR, evidence: `${candidate.evidence}: net plus tax of the tax summary's total row` });
  }
  return kept;
}

function rowOfSegment(layout: DocumentLayout, segmentId: number): LayoutRow | undefined {
  const segment = layout.segments[segmentId];
  return segment && layout.pages.find((page) => page.pageNumber === segment.pageNumber)?.rows[segment.rowIndex];
}

function patternCandidates(layout: DocumentLayout, field: FieldSpecification, valueContext: ValueContext): FieldCandidate[] {
  const found: FieldCandidate[] = [];
  const globalPatterns = field.patterns.map((pattern) => new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`));
  for (const segment of layout.segments) {
    for (const pattern of globalPatterns) {
      for (const match of matchesOf(pattern, segment.text)) {
        const text = match[1] ?? match[0];
        const value = parseValueOfType(field.type, text, valueContext);
        if (value === undefined) continue;
        const start = match.index + Math.max(0, match[0].indexOf(text));
        // Earlier matches score a little higher: documents state their key references first.
        found.push({ fieldName: field.name, value, score: Math.max(0.5, 0.75 - 0.05 * found.length), pageNumber: segment.pageNumber, box: boxOfRange(segment, start, start + text.length), segmentId: segment.id, evidence: `pattern ${pattern.source}` });
      }
    }
  }
  return found;
}
