// Extracts the fields of one document type from a document's layout: label anchors first, then
// document-wide evidence for the prebuilt roles, then value selection with consistency checks
// (net + tax = total, issue date before due date) and a calibrated confidence per field.

import type { Placement, ReadDocument } from '../document.ts';
import { distance } from 'fastest-levenshtein';
import { findAmounts } from '../values/amount.ts';
import { parseValueOfType, type FieldValue, type ValueContext } from '../values/field-value.ts';
import { normalizeForMatching } from '../values/text-normalization.ts';
import { selectAmounts } from './amount-consistency.ts';
import { calibrateConfidence, groupByValue, roundConfidence } from './candidate-selection.ts';
import { boxOfRange, buildDocumentLayout, unitePlacements, type DocumentLayout, type LayoutRow } from './document-layout.ts';
import { companyNameCandidates, findAddressBlocks, type AddressBlock, ibanCandidates, impliedCurrencyCandidates, letterheadCandidates, mentionsAddress, namesBusiness, receiptHeadCandidates, returnAddressCandidates, vatIdCandidates, withLegalFormRestored, type Party } from './document-evidence.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { DocumentTypeSpecification, FieldRole, FieldSpecification } from './field-specification.ts';
import { dateAfterDocumentNumber, firstUnlabelledDate } from './issue-date-evidence.ts';
import { compileLabelSources, findLabelMatches, type LabelMatch } from './label-anchors.ts';
import { candidatesNearLabel } from './label-candidates.ts';
import { tableFieldResults } from './line-items.ts';
import { nameSpeltAsOnPage } from './name-spelling.ts';
import { boxOfRateLines, rateLinesTotal, taxSummaryTotalRows } from './rate-totals.ts';
import { findTillPayment, MAX_CASH_ROUNDING } from './till-payment.ts';
import { matchesOf } from '../values/pattern-matches.ts';
import { TOTALS_ROLES, type ExtractionContext, fieldOfRole, roleOfLabel, CandidatePool, prepareContext, pageOf } from './extraction-context.ts';
import { type FieldResult, resultFrom } from './field-result.ts';
import { type ValidationProblem, applyValidations } from './field-validations.ts';

export type { FieldResult } from './field-result.ts';
export type { ValidationProblem } from './field-validations.ts';
export { applyValidations } from './field-validations.ts';

export interface FieldExtraction {
  fields: FieldResult[];
  validationProblems: ValidationProblem[];
  /** How the chosen total compares with the page's own arithmetic, when the page prints a check of it. */
  totalCheck?: TotalCheck;
}

/**
 * The page's arithmetic about the chosen total, from the strongest check it prints: tendered minus
 * change, else the tax summary's rate lines, else net plus tax. `boxes` are the total's line and the
 * lines it was checked against: where a misread digit that breaks the arithmetic is to be looked for.
 */
export interface TotalCheck {
  pageNumber: number;
  agrees: boolean;
  boxes: Placement[];
}

export interface ExtractFieldsOptions {
  /** Reuse a layout built for routing. */
  layout?: DocumentLayout;
}

/** Below this, a value is more often wrong than right; reporting nothing is more useful. */
const MIN_REPORTED_SCORE = 0.3;

/** Words of a document title that are not part of the sender's name ("Sammy Maystone INVOICE"). */
const TITLE_WORDS = new Set(['invoice', 'tax', 'receipt', 'rechnung', 'quittung', 'facture', 'factuur', 'faktura', 'fattura', 'factura', 'bill', 'payment', 'original', 'copy', 'kopie', 'credit', 'note', 'gutschrift', 'avoir']);

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

/**
 * The total after cash rounding ("Total After Adj", "Rounded Total"): a total candidate printed below
 * the chosen one that differs from it by a rounding step. It is what the customer paid; the exact
 * total above it is the one that adds up with net and tax, which is why the triple search picks it.
 */
function cashRoundedTotal(chosen: FieldCandidate, candidates: FieldCandidate[]): FieldCandidate | undefined {
  if (typeof chosen.value !== 'number') return undefined;
  const exact = chosen.value;
  return candidates
    .filter((candidate) => {
      if (typeof candidate.value !== 'number' || candidate.pageNumber !== chosen.pageNumber || candidate.box.y <= chosen.box.y + chosen.box.height / 2) return false;
      const difference = Math.abs(candidate.value - exact);
      return difference > 0.001 && difference <= MAX_CASH_ROUNDING + 1e-9 && candidate.score >= chosen.score * 0.5;
    })
    .sort((left, right) => right.score - left.score)[0];
}

/**
 * The largest part of a total that its tax can be: the highest standard VAT rate (27%) is 21% of the
 * gross amount; the margin leaves room for a tax line that adds a levy or two rates.
 */
const MAX_TAX_SHARE_OF_TOTAL = 0.3;

/** Rows under the tax line searched for its unlabelled sum with the net. */
const ROWS_SEARCHED_FOR_SUM = 3;

/**
 * A total whose label was lost (OCR missed it, or the till prints none): the amount on the rows right
 * under the tax line that equals net + tax. Found only when no total was read at all.
 */
function unlabelledSumUnderTax(layout: DocumentLayout, net: FieldCandidate, tax: FieldCandidate, fieldName: string | undefined): FieldCandidate | undefined {
  if (!fieldName || typeof net.value !== 'number' || typeof tax.value !== 'number' || tax.value <= 0) return undefined;
  const sum = Math.round((net.value + tax.value) * 100) / 100;
  const taxSegment = layout.segments[tax.segmentId];
  const page = layout.pages.find((candidate) => candidate.pageNumber === tax.pageNumber);
  if (!taxSegment || !page) return undefined;
  for (const row of page.rows.slice(taxSegment.rowIndex + 1, taxSegment.rowIndex + 1 + ROWS_SEARCHED_FOR_SUM)) {
    for (const segment of row.segments) {
      const amount = findAmounts(segment.text).find((found) => found.decimals === 2 && Math.abs(found.value - sum) < 0.005);
      if (amount) {
        return { fieldName, value: sum, score: 0.6, pageNumber: page.pageNumber, box: boxOfRange(segment, amount.index, amount.index + amount.length), segmentId: segment.id, evidence: 'net + tax printed under the tax line' };
      }
    }
  }
  return undefined;
}

/** A total added up from the rate lines of a tax summary, with no printed total that agrees. */
const RATE_LINES_SUM_CONFIDENCE = 0.65;
/** The same, when a total or amount payable printed on the page agrees with it. */
const RATE_LINES_SUM_CONFIRMED = 0.85;
/** A printed total that the rate lines do not add up to: one of the lines was misread. */
const CONTRADICTED_BY_RATE_LINES = 0.75;

/**
 * The tax summary's rate lines add up to the total. A total that is one of them (a one-rate total
 * taken for want of a better one) or no total at all gives way to their sum; a total that differs
 * from the sum is doubted. Undefined when the page has no rate lines to add up or nothing changes.
 */
function checkedAgainstRateLines(
  context: ExtractionContext,
  total: AmountChoiceOf | undefined,
  printedTotals: FieldCandidate[],
  fieldName: string,
  arithmetic: { totalCheck?: TotalCheck },
): AmountChoiceOf | undefined {
  const byRates = rateLinesTotal(context.layout);
  if (!byRates) return undefined;
  const value = total?.candidate.value;
  const rateCheck = (agrees: boolean): TotalCheck => ({ pageNumber: byRates.pageNumber, agrees, boxes: [...(total ? [total.candidate.box] : []), boxOfRateLines(byRates)] });
  if (typeof value === 'number' && Math.abs(value - byRates.value) < 0.005) {
    arithmetic.totalCheck = rateCheck(true);
    return undefined;
  }
  if (typeof value === 'number' && !byRates.parts.some((part) => Math.abs(part - value) < 0.005)) {
    arithmetic.totalCheck = rateCheck(false);
    return { ...total!, confidence: roundConfidence(total!.confidence * CONTRADICTED_BY_RATE_LINES) };
  }
  const confirmed = printedTotals.some((candidate) => typeof candidate.value === 'number' && Math.abs(candidate.value - byRates.value) < 0.005);
  const candidate: FieldCandidate = {
    fieldName,
    value: byRates.value,
    score: 0.6,
    pageNumber: byRates.pageNumber,
    box: boxOfRateLines(byRates),
    segmentId: byRates.rows[0]!.segments[0]!.id,
    evidence: `sum of the tax summary's rate lines (${byRates.parts.join(' + ')})`,
  };
  arithmetic.totalCheck = { pageNumber: byRates.pageNumber, agrees: true, boxes: [candidate.box] };
  return { candidate, confidence: confirmed ? RATE_LINES_SUM_CONFIRMED : RATE_LINES_SUM_CONFIDENCE };
}

type AmountChoiceOf = { candidate: FieldCandidate; confidence: number };

/** Confidence of a total that tendered minus change confirms: the till's own arithmetic agrees. */
const CONFIRMED_BY_PAYMENT = 0.93;
/** A total that disagrees with tendered minus change is doubtful: one of the lines was misread. */
const CONTRADICTED_BY_PAYMENT = 0.6;

/**
 * A till's payment lines check its total: tendered minus change is what was paid. A rounding
 * adjustment printed under the total (with no rounded total read) gives the amount paid.
 */
function checkedAgainstTillPayment(
  context: ExtractionContext,
  total: { candidate: FieldCandidate; confidence: number },
  alreadyRounded: boolean,
  arithmetic: { totalCheck?: TotalCheck },
): { candidate: FieldCandidate; confidence: number } {
  if (typeof total.candidate.value !== 'number') return total;
  const payment = findTillPayment(context.layout, { dateOrder: context.dateOrder, ...(context.language ? { language: context.language } : {}), fromOcr: context.layout.pages.some((page) => page.source === 'ocr') });
  let checked = total;
  const rounding = payment.rounding;
  const roundingBelowTotal =
    rounding !== undefined && rounding.pageNumber === total.candidate.pageNumber && rounding.box.y > total.candidate.box.y + total.candidate.box.height / 2;
  if (!alreadyRounded && roundingBelowTotal && typeof rounding.value === 'number') {
    const rounded = Math.round((total.candidate.value + rounding.value) * 100) / 100;
    checked = { candidate: { ...total.candidate, value: rounded, evidence: `${total.candidate.evidence}, plus the rounding adjustment under it` }, confidence: roundConfidence(total.confidence * 0.9) };
  }
  // "Rounding RM 182.00" under "Total Sales RM 181.98": the rounding line prints the rounded total itself.
  const roundedLine = payment.roundedTotal;
  if (checked === total && !alreadyRounded && roundedLine && typeof roundedLine.value === 'number' && isBelow(roundedLine, total.candidate) && isCashRoundingStep(roundedLine.value - total.candidate.value)) {
    checked = { candidate: { ...roundedLine, fieldName: total.candidate.fieldName, evidence: `${roundedLine.evidence}: the total rounded to the coin` }, confidence: roundConfidence(total.confidence * 0.9) };
  }
  if (payment.paid === undefined) return checked;
  // Tendered minus change is the amount paid, the total rounded to the coin where the till rounds
  // cash and its rounding line was not read.
  const roundedByPayment = isCashRoundingStep(payment.paid - (checked.candidate.value as number)) && isWholeCoin(payment.paid);
  if (roundedByPayment) {
    checked = {
      candidate: { ...checked.candidate, value: payment.paid, evidence: `${checked.candidate.evidence}, rounded to the coin as cash tendered minus change says` },
      confidence: Math.min(ROUNDED_BY_PAYMENT_CONFIDENCE, checked.confidence),
    };
  }
  const agrees = Math.abs(payment.paid - (checked.candidate.value as number)) < 0.005;
  const usedRounding = checked !== total && rounding ? [rounding.box] : [];
  arithmetic.totalCheck = {
    pageNumber: total.candidate.pageNumber,
    agrees,
    boxes: [total.candidate.box, ...usedRounding, ...(payment.paymentLines ?? []).filter((line) => line.pageNumber === total.candidate.pageNumber).map((line) => line.box)],
  };
  // A total the payment rounded has the payment's word only, not a second reading's: not confirmed by it.
  if (roundedByPayment) return checked;
  return { ...checked, confidence: agrees ? Math.max(checked.confidence, CONFIRMED_BY_PAYMENT) : roundConfidence(checked.confidence * CONTRADICTED_BY_PAYMENT) };
}

/** A total rounded to the coin because the payment says so, its rounding line unread: never certain. */
const ROUNDED_BY_PAYMENT_CONFIDENCE = 0.85;

/** A difference a cash rounding adjustment makes: not nothing, at most the smallest coin. */
function isCashRoundingStep(difference: number): boolean {
  return Math.abs(difference) > 0.001 && Math.abs(difference) <= MAX_CASH_ROUNDING + 1e-9;
}

/** An amount in whole five-cent coins, as cash rounding leaves it. */
function isWholeCoin(amount: number): boolean {
  return Math.abs(Math.round(amount * 100) % 5) === 0;
}

function isBelow(candidate: FieldCandidate, reference: FieldCandidate): boolean {
  return candidate.pageNumber === reference.pageNumber && candidate.box.y > reference.box.y + reference.box.height / 2;
}

/** A total known only from cash tendered minus change: the till's arithmetic, but no total line read. */
const PAID_AT_TILL_CONFIDENCE = 0.6;

/**
 * A till receipt whose total line was not read (or not recognised: "\ wffos (Inclusive of GST)") still
 * says what was paid: cash tendered minus the change given back is the total.
 */
function totalPaidAtTill(context: ExtractionContext, fieldName: string): AmountChoiceOf | undefined {
  const payment = findTillPayment(context.layout, { dateOrder: context.dateOrder, ...(context.language ? { language: context.language } : {}), fromOcr: context.layout.pages.some((page) => page.source === 'ocr') });
  const [tendered, change] = payment.paymentLines ?? [];
  if (payment.paid === undefined || payment.paid <= 0 || !tendered || !change) return undefined;
  const candidate: FieldCandidate = {
    fieldName,
    value: payment.paid,
    score: PAID_AT_TILL_CONFIDENCE,
    pageNumber: tendered.pageNumber,
    box: unitePlacements([tendered.box, change.box]),
    segmentId: tendered.segmentId,
    evidence: 'cash tendered minus change',
  };
  return { candidate, confidence: PAID_AT_TILL_CONFIDENCE };
}

/**
 * Net plus tax against the total, the weakest check (a subtotal printed with the tax included reads as
 * a net that does not add up): only where net, tax and total were all read on the total's page.
 */
function totalCheckedByTaxes(context: ExtractionContext, total: FieldCandidate, net: FieldCandidate | undefined, tax: FieldCandidate | undefined): TotalCheck | undefined {
  if (!net || !tax || typeof total.value !== 'number' || typeof net.value !== 'number' || typeof tax.value !== 'number') return undefined;
  if (net.pageNumber !== total.pageNumber || tax.pageNumber !== total.pageNumber || !context.layout.hasGeometry) return undefined;
  return { pageNumber: total.pageNumber, agrees: Math.abs(net.value + tax.value - total.value) < 0.005, boxes: [total.box, net.box, tax.box] };
}

function mentionsPriorPayment(layout: DocumentLayout, priorPaymentLabels: Record<string, string[]>): boolean {
  return findLabelMatches(layout, compileLabelSources([{ fieldName: 'prior-payment', labels: priorPaymentLabels }])).length > 0;
}

/**
 * A legal form ends a name where the line often goes on ("Rohstoff AG Salzgitter"): a candidate that
 * is the start of a longer one from the same line names the same party, and supports the longer value.
 */
function withWholeNames(candidates: FieldCandidate[]): FieldCandidate[] {
  return candidates.map((candidate) => {
    if (typeof candidate.value !== 'string') return candidate;
    const shorter = candidate.value;
    // What follows must read as more of the name (a place, a word), not punctuation or a number.
    const whole = candidates.find(
      (other) =>
        other.segmentId === candidate.segmentId &&
        typeof other.value === 'string' &&
        other.value.startsWith(`${shorter} `) &&
        /^(?: \p{Lu}[\p{L}.&-]*){1,2}$/u.test(other.value.slice(shorter.length)),
    );
    return whole ? { ...candidate, value: whole.value } : candidate;
  });
}

/** Differences (per letter) between two readings of one name that OCR makes: "SANYO" for "SANYU". */
const OCR_VARIANT_DISTANCE = 0.2;

/** The same name read twice, once with a few letters misread. */
function isReadingOf(name: string, other: string): boolean {
  const longer = Math.max(name.length, other.length);
  return longer > 0 && distance(name, other) / longer <= OCR_VARIANT_DISTANCE;
}

/** "TAX INVOICE", "Invoice": the document's title, never a party. */
function isDocumentTitle(text: string): boolean {
  const words = normalizeForMatching(text).split(/[^\p{L}]+/u).filter(Boolean);
  return words.length > 0 && words.every((word) => TITLE_WORDS.has(word));
}

/**
 * An unlabelled address block that is not the seller's is the buyer's (window envelopes, bill-to
 * blocks without a heading); used only when nothing else named the buyer and the block is unique.
 * A till receipt names a private customer only under a label ("Customer:"): an unlabelled block there
 * is the buyer only when it names a business (a tax invoice to a shop); otherwise it is the shop's own
 * address or branch, a street, or pieces of the slip's lines.
 */
function chooseBuyerFromAddressBlock(context: ExtractionContext, chosen: Map<string, FieldResult>): void {
  const buyerField = fieldOfRole(context, 'buyer-name');
  if (!buyerField || chosen.get(buyerField.name)?.value !== undefined) return;
  const sellerField = fieldOfRole(context, 'seller-name');
  const sellerName = sellerField ? chosen.get(sellerField.name)?.value : undefined;
  const sellerKey = typeof sellerName === 'string' ? normalizeForMatching(sellerName) : undefined;
  const namesSeller = (block: AddressBlock) =>
    sellerKey !== undefined &&
    (isReadingOf(normalizeForMatching(block.name), sellerKey) ||
      block.segments.some((segment) => normalizeForMatching(segment.text).includes(sellerKey) || sellerKey.includes(normalizeForMatching(block.name))));
  const onTill = context.specification.sellerHeadsDocument === true;
  const notSellers = findAddressBlocks(context.layout).filter((block) => !isDocumentTitle(block.name) && !namesSeller(block) && (!onTill || namesBusiness(block.name)));
  const outermost = notSellers.filter(
    (block) => context.parties.partyOf(block.nameSegment.id) !== 'seller' && !notSellers.some((other) => other !== block && other.segments.slice(1).includes(block.nameSegment)),
  );
  const block = outermost[0];
  if (!block || outermost.length !== 1) return;
  const candidate: FieldCandidate = {
    fieldName: buyerField.name,
    value: withLegalFormRestored(block.name),
    score: 0.45,
    pageNumber: block.nameSegment.pageNumber,
    box: block.nameSegment.box,
    segmentId: block.nameSegment.id,
    evidence: 'unlabelled address block',
  };
  chosen.set(buyerField.name, resultFrom(buyerField.name, candidate, calibrateConfidence(candidate.score, undefined), context.layout.hasGeometry));
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
