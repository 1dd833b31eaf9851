// Extracts the fields of one document type from a document's layout: label anchors first, then
// document-wide evidence for the prebuilt roles, then value selection with consistency checks
// (net + tax = total, issue date before due date) and a calibrated confidence per field.

import type { ReadDocument } from '../document.ts';
import { parseValueOfType, type FieldValue } from '../values/field-value.ts';
import { selectAmounts } from './amount-consistency.ts';
import { calibrateConfidence, groupByValue, roundConfidence } from './candidate-selection.ts';
import { buildDocumentLayout, type DocumentLayout } from './document-layout.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { DocumentTypeSpecification, FieldSpecification } from './field-specification.ts';
import { tableFieldResults } from './line-items.ts';
import { nameSpeltAsOnPage } from './name-spelling.ts';
import { TOTALS_ROLES, type ExtractionContext, fieldOfRole, roleOfLabel, CandidatePool, prepareContext, pageOf } from './extraction-context.ts';
import { type FieldResult, resultFrom } from './field-result.ts';
import { type ValidationProblem, applyValidations } from './field-validations.ts';
import { type TotalCheck, cashRoundedTotal, MAX_TAX_SHARE_OF_TOTAL, unlabelledSumUnderTax, checkedAgainstRateLines, checkedAgainstTillPayment, totalPaidAtTill, totalCheckedByTaxes, mentionsPriorPayment } from './total-checks.ts';
import { withWholeNames, chooseBuyerFromAddressBlock } from './party-names.ts';
import { addLabelCandidates, addPatternCandidates, addRoleEvidence } from './candidate-generation.ts';

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

/** Normalizes an embedded e-invoice value for a field's type; undefined when it does not fit. */
export function embeddedValueFor(field: FieldSpecification, raw: string | number): FieldValue | undefined {
  return parseValueOfType(field.type, raw, { ...(field.allowedValues ? { allowedValues: field.allowedValues } : {}) });
}
