// Extracts the fields of one document type from a document's layout: label anchors first, then
// document-wide evidence for the prebuilt roles, then value selection with consistency checks
// (net + tax = total, issue date before due date) and a calibrated confidence per field.

import type { ReadDocument } from '../document.ts';
import { parseValueOfType, type FieldValue, type ValueContext } from '../values/field-value.ts';
import { selectAmounts } from './amount-consistency.ts';
import { calibrateConfidence, groupByValue, roundConfidence } from './candidate-selection.ts';
import { boxOfRange, buildDocumentLayout, type DocumentLayout, type LayoutRow } from './document-layout.ts';
import { companyNameCandidates, ibanCandidates, impliedCurrencyCandidates, letterheadCandidates, mentionsAddress, receiptHeadCandidates, returnAddressCandidates, vatIdCandidates, type Party } from './document-evidence.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { DocumentTypeSpecification, FieldRole, FieldSpecification } from './field-specification.ts';
import { dateAfterDocumentNumber, firstUnlabelledDate } from './issue-date-evidence.ts';
import { compileLabelSources, findLabelMatches, type LabelMatch } from './label-anchors.ts';
import { candidatesNearLabel } from './label-candidates.ts';
import { tableFieldResults } from './line-items.ts';
import { nameSpeltAsOnPage } from './name-spelling.ts';
import { taxSummaryTotalRows } from './rate-totals.ts';
import { matchesOf } from '../values/pattern-matches.ts';
import { TOTALS_ROLES, type ExtractionContext, fieldOfRole, roleOfLabel, CandidatePool, prepareContext, pageOf } from './extraction-context.ts';
import { type FieldResult, resultFrom } from './field-result.ts';
import { type ValidationProblem, applyValidations } from './field-validations.ts';
import { type TotalCheck, cashRoundedTotal, MAX_TAX_SHARE_OF_TOTAL, unlabelledSumUnderTax, checkedAgainstRateLines, checkedAgainstTillPayment, totalPaidAtTill, totalCheckedByTaxes, mentionsPriorPayment } from './total-checks.ts';
import { TITLE_WORDS, withWholeNames, chooseBuyerFromAddressBlock } from './party-names.ts';

export type { FieldResult } from './field-result.ts';
export type { ValidationProblem } from './field-validations.ts';
export { applyValidations } from './field-validations.ts';
export type { TotalCheck } from './total-checks.ts';

export interface FieldExtraction {
  fields: FieldResult[];
  validationProblems: ValidationProblem[];
  /** How the chosen total compares with the page's own arithmetic, when the page prints a check of it. */
  totalCheck?: TotalCheck;
}

export interface ExtractFieldsOptions {
  /** Reuse a layout built for routing. */
  layout?: DocumentLayout;
}

/** Below this, a value is more often wrong than right; reporting nothing is more useful. */
const MIN_REPORTED_SCORE = 0.3;

const ROLE_PARTY: Partial<Record<FieldRole, Party>> = { 'seller-vat-id': 'seller', 'buyer-vat-id': 'buyer' };

function addLabelCandidates(context: ExtractionContext, pool: CandidatePool): void {
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
function addPatternCandidates(context: ExtractionContext, pool: CandidatePool): void {
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
function addRoleEvidence(context: ExtractionContext, pool: CandidatePool): void {
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

function selectValues(context: ExtractionContext, pool: CandidatePool, arithmetic: { totalCheck?: TotalCheck } = {}): Map<string, FieldResult> {
  const chosen = new Map<string, FieldResult>();
  const hasGeometry = context.layout.hasGeometry;
  const amountFields = {
    net: fieldOfRole(context, 'net-amount'),
    tax: fieldOfRole(context, 'tax-amount'),
    total: fieldOfRole(context, 'total-amount'),
    due: fieldOfRole(context, 'amount-due'),
  };
  const priorPaymentLabels = context.specification.priorPaymentLabels;
  const amountSelection = selectAmounts(
    {
      net: pool.of(amountFields.net?.name),
      tax: pool.of(amountFields.tax?.name),
      total: pool.of(amountFields.total?.name),
      due: pool.of(amountFields.due?.name),
    },
    { dueIsTotalUnlessPrinted: priorPaymentLabels !== undefined && !mentionsPriorPayment(context.layout, priorPaymentLabels) },
  );
  const roundedTotal = amountSelection.total && cashRoundedTotal(amountSelection.total.candidate, pool.of(amountFields.total?.name));
  if (amountSelection.total && roundedTotal) amountSelection.total = { candidate: roundedTotal, confidence: amountSelection.total.confidence };
  if (!amountSelection.total && amountSelection.net && amountSelection.tax) {
    // The tax may be printed twice (its line in the totals, again in a tax summary at the foot): the
    // sum sits under one of them, not necessarily under the one read most surely.
    const { net, tax } = amountSelection;
    const taxLines = [tax.candidate, ...pool.of(amountFields.tax?.name).filter((candidate) => candidate.value === tax.candidate.value && candidate.segmentId !== tax.candidate.segmentId)];
    const total = taxLines.map((line) => unlabelledSumUnderTax(context.layout, net.candidate, line, amountFields.total?.name)).find((found) => found !== undefined);
    if (total) amountSelection.total = { candidate: total, confidence: roundConfidence(Math.min(amountSelection.net.confidence, amountSelection.tax.confidence) * 0.85) };
  }
  const byRates = amountFields.total ? checkedAgainstRateLines(context, amountSelection.total, [...pool.of(amountFields.total.name), ...pool.of(amountFields.due?.name)], amountFields.total.name, arithmetic) : undefined;
  if (byRates) amountSelection.total = byRates;
  if (amountSelection.total) amountSelection.total = checkedAgainstTillPayment(context, amountSelection.total, roundedTotal !== undefined, arithmetic);
  else if (amountFields.total && context.specification.sellerHeadsDocument) amountSelection.total = totalPaidAtTill(context, amountFields.total.name);
  // The tax is part of the total: one above the share of the total finally chosen (by the rate lines
  // or the till's payment, after the triple search) that any tax rate gives was another figure read
  // as tax, such as a tax id's digits or the total itself on a "Total incl. GST" line; and a positive
  // total has no negative tax (see selectAmounts).
  const finalTotal = amountSelection.total?.candidate.value;
  const notPartOfTotal = (candidate: FieldCandidate) =>
    typeof finalTotal === 'number' &&
    finalTotal >= 0 &&
    typeof candidate.value === 'number' &&
    (candidate.value > finalTotal * MAX_TAX_SHARE_OF_TOTAL || (finalTotal > 0 && candidate.value < 0));
  if (amountSelection.tax && notPartOfTotal(amountSelection.tax.candidate)) delete amountSelection.tax;
  // A positive total has a positive net: a zero read as the net is another line's figure (a zero-rated
  // GST line, an empty rounding), never all of the total being tax.
  const notNetOfTotal = (candidate: FieldCandidate) => typeof finalTotal === 'number' && finalTotal > 0 && typeof candidate.value === 'number' && candidate.value <= 0;
  if (amountSelection.net && notNetOfTotal(amountSelection.net.candidate)) delete amountSelection.net;
  if (amountSelection.total && !arithmetic.totalCheck) arithmetic.totalCheck = totalCheckedByTaxes(context, amountSelection.total.candidate, amountSelection.net?.candidate, amountSelection.tax?.candidate);
  for (const role of Object.keys(amountFields) as (keyof typeof amountFields)[]) {
    const field = amountFields[role];
    const selection = amountSelection[role];
    if (field && selection) chosen.set(field.name, resultFrom(field.name, selection.candidate, selection.confidence, hasGeometry));
  }
  for (const field of context.specification.fields) {
    if (chosen.has(field.name)) continue;
    const candidates =
      field.role === 'seller-name' || field.role === 'buyer-name'
        ? withWholeNames(pool.of(field.name))
        : field.role === 'tax-amount'
          ? pool.of(field.name).filter((candidate) => !notPartOfTotal(candidate))
          : field.role === 'net-amount'
            ? pool.of(field.name).filter((candidate) => !notNetOfTotal(candidate))
            : pool.of(field.name);
    const groups = groupByValue(candidates);
    const best = groups[0];
    if (!best || best.score < MIN_REPORTED_SCORE) {
      chosen.set(field.name, { name: field.name, value: undefined });
      continue;
    }
    const confidence = Math.min(calibrateConfidence(best.score, groups[1]?.score), best.best.confidenceCeiling ?? 1);
    // OCR misreads a letter of a name the page spells again in its web or e-mail address.
    const respelt = field.role === 'seller-name' && typeof best.value === 'string' && pageOf(context, best.best)?.source === 'ocr' ? nameSpeltAsOnPage(best.value, context.layout, best.best.segmentId) : undefined;
    if (respelt) {
      chosen.set(field.name, resultFrom(field.name, { ...best.best, evidence: `${best.best.evidence}, spelt as on the page` }, Math.min(confidence, RESPELT_NAME_CONFIDENCE), hasGeometry, respelt));
      continue;
    }
    chosen.set(field.name, resultFrom(field.name, best.best, confidence, hasGeometry, best.value));
  }
  return chosen;
}

/** A name respelt from its address on the page is a repair of the reading: never reported as certain. */
const RESPELT_NAME_CONFIDENCE = 0.85;

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

export function extractFields(document: ReadDocument, specification: DocumentTypeSpecification, options: ExtractFieldsOptions = {}): FieldExtraction {
  const context = prepareContext(document, specification, options.layout ?? buildDocumentLayout(document));
  const pool = new CandidatePool(specification);
  addLabelCandidates(context, pool);
  addPatternCandidates(context, pool);
  addRoleEvidence(context, pool);
  const arithmetic: { totalCheck?: TotalCheck } = {};
  const chosen = selectValues(context, pool, arithmetic);
  chooseBuyerFromAddressBlock(context, chosen);
  addTables(context, chosen);
  const validationProblems = applyValidations(specification, chosen);
  return {
    fields: specification.fields.map((field) => chosen.get(field.name) ?? { name: field.name, value: undefined }),
    validationProblems,
    ...(arithmetic.totalCheck ? { totalCheck: arithmetic.totalCheck } : {}),
  };
}

/**
 * The document's tables, read once the totals are chosen (the rows' sum is checked against them), and
 * the line item count as the number of rows of the item table.
 */
function addTables(context: ExtractionContext, chosen: Map<string, FieldResult>): void {
  const tableFields = context.specification.fields.filter((field) => field.type === 'table' && field.columns);
  if (tableFields.length === 0) return;
  const totalsRows = new Set(
    context.labelMatches
      .filter((label) => {
        const role = roleOfLabel(context, label);
        return role !== undefined && TOTALS_ROLES.has(role) && label.atSegmentStart;
      })
      .map((label) => `${label.segment.pageNumber}:${label.segment.rowIndex}`),
  );
  const sums = [fieldOfRole(context, 'net-amount'), fieldOfRole(context, 'total-amount')].flatMap((field) => {
    const value = field ? chosen.get(field.name)?.value : undefined;
    return typeof value === 'number' ? [value] : [];
  });
  for (const result of tableFieldResults(context.layout, tableFields, { totalsRows, sums }, fieldOfRole(context, 'line-item-count')?.name)) chosen.set(result.name, result);
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

/** Normalizes an embedded e-invoice value for a field's type; undefined when it does not fit. */
export function embeddedValueFor(field: FieldSpecification, raw: string | number): FieldValue | undefined {
  return parseValueOfType(field.type, raw, { ...(field.allowedValues ? { allowedValues: field.allowedValues } : {}) });
}
