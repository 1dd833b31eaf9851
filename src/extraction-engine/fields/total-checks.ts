// Checks of the chosen total against the arithmetic the page prints itself: a rounded total under
// the exact one, net + tax printed without its label, the tax summary's rate lines, the till's cash
// tendered minus change. Kept apart from selection because each check can replace or doubt the total
// and records which lines it compared (`TotalCheck`), where a misread digit is to be looked for.

import type { Placement } from '../document.ts';
import { findAmounts } from '../values/amount.ts';
import { roundConfidence } from './candidate-selection.ts';
import { boxOfRange, unitePlacements, type DocumentLayout } from './document-layout.ts';
import type { ExtractionContext } from './extraction-context.ts';
import type { FieldCandidate } from './field-candidate.ts';
import { compileLabelSources, findLabelMatches } from './label-anchors.ts';
import { boxOfRateLines, rateLinesTotal, taxSummaryRateRowsTotal, type RateLinesTotal } from './rate-totals.ts';
import { findTillPayment, MAX_CASH_ROUNDING, type TillPayment } from './till-payment.ts';

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

/**
 * The total after cash rounding ("Total After Adj", "Rounded Total"): a total candidate printed below
 * the chosen one that differs from it by a rounding step. It is what the customer paid; the exact
 * total above it is the one that adds up with net and tax, which is why the triple search picks it.
 */
export function cashRoundedTotal(chosen: FieldCandidate, candidates: FieldCandidate[]): FieldCandidate | undefined {
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

/** The till's payment lines, found once per extraction: the tip, the rounding and the payment checks all read them. */
const tillPayments = new WeakMap<ExtractionContext, TillPayment>();

function tillPaymentOf(context: ExtractionContext): TillPayment {
  let payment = tillPayments.get(context);
  if (!payment) {
    payment = findTillPayment(context.layout, { dateOrder: context.dateOrder, ...(context.language ? { language: context.language } : {}), fromOcr: context.layout.pages.some((page) => page.source === 'ocr') });
    tillPayments.set(context, payment);
  }
  return payment;
}

/**
 * The total with the tip: a restaurant's slip prints its total, the tip under it and the sum of both
 * ("Total 30.52", "Tip 6.00", "Grand Total 36.52"), and what the card was charged is the sum. The
 * total that adds up with net and tax is the one above the tip, which is why the triple search picks
 * it. Taken only where an amount printed under the tip line is that total plus the tip.
 */
export function totalWithTip(context: ExtractionContext, chosen: FieldCandidate, candidates: FieldCandidate[]): { total: FieldCandidate; tip: number } | undefined {
  if (typeof chosen.value !== 'number') return undefined;
  const tip = tillPaymentOf(context).tip;
  if (!tip || typeof tip.value !== 'number' || !isBelow(tip, chosen)) return undefined;
  const sum = Math.round((chosen.value + tip.value) * 100) / 100;
  const withTip = candidates
    .filter((candidate) => typeof candidate.value === 'number' && Math.abs(candidate.value - sum) < 0.005 && isBelow(candidate, tip))
    .sort((left, right) => right.score - left.score)[0];
  return withTip && { total: { ...withTip, fieldName: chosen.fieldName, evidence: `${withTip.evidence}: the total above it plus the tip` }, tip: tip.value };
}

/**
 * The largest part of a total that its tax can be: the highest standard VAT rate (27%) is 21% of the
 * gross amount; the margin leaves room for a tax line that adds a levy or two rates.
 */
export const MAX_TAX_SHARE_OF_TOTAL = 0.3;

/** Rows under the tax line searched for its unlabelled sum with the net. */
const ROWS_SEARCHED_FOR_SUM = 3;

/**
 * A total whose label was lost (OCR missed it, or the till prints none): the amount on the rows right
 * under the tax line that equals net + tax. Found only when no total was read at all.
 */
export function unlabelledSumUnderTax(layout: DocumentLayout, net: FieldCandidate, tax: FieldCandidate, fieldName: string | undefined): FieldCandidate | undefined {
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
export function checkedAgainstRateLines(
  context: ExtractionContext,
  total: AmountChoiceOf | undefined,
  printedTotals: FieldCandidate[],
  fieldName: string,
  arithmetic: { totalCheck?: TotalCheck },
): AmountChoiceOf | undefined {
  const byRates = rateLinesTotal(context.layout) ?? confirmedTaxTableTotal(context.layout);
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

/**
 * The sum of a tax summary table's rate rows (taxSummaryRateRowsTotal) where the page prints that
 * amount outside the table too: a rate row OCR lost would leave the sum short, and a short sum is
 * printed nowhere. The printed amount may be a total whose label OCR could not read ("fatal A dk
 * nding 21.40" for Total After Rounding).
 */
function confirmedTaxTableTotal(layout: DocumentLayout): RateLinesTotal | undefined {
  const byTable = taxSummaryRateRowsTotal(layout);
  if (!byTable) return undefined;
  const page = layout.pages.find((candidate) => candidate.pageNumber === byTable.pageNumber);
  const tableRows = new Set(byTable.rows);
  const printedElsewhere = page?.rows.some(
    (row) => !tableRows.has(row) && row.segments.some((segment) => findAmounts(segment.text).some((amount) => !amount.isPercentage && amount.decimals === 2 && Math.abs(amount.value - byTable.value) < 0.005)),
  );
  return printedElsewhere ? byTable : undefined;
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
export function checkedAgainstTillPayment(
  context: ExtractionContext,
  total: { candidate: FieldCandidate; confidence: number },
  alreadyRounded: boolean,
  arithmetic: { totalCheck?: TotalCheck },
): { candidate: FieldCandidate; confidence: number } {
  if (typeof total.candidate.value !== 'number') return total;
  const payment = tillPaymentOf(context);
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
  // A till prints money with its cents: a total read as a whole number ("5" of "5:15", "0" of
  // "39 . 00") is a line OCR broke up, and the payment the till printed under it says what was paid.
  if (!agrees && payment.paid > 0 && !readWithCents(context.layout, total.candidate)) {
    arithmetic.totalCheck = { pageNumber: total.candidate.pageNumber, agrees: false, boxes: [total.candidate.box, ...(payment.paymentLines ?? []).map((line) => line.box)] };
    return totalPaidAtTill(context, total.candidate.fieldName) ?? checked;
  }
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

/** A total whose decimal point OCR lost, restored from the amount it totals: a repair, never certain. */
const POINT_RESTORED_CONFIDENCE = 0.7;

/**
 * A till prints money with its cents, so a total read as a whole number of three digits or more
 * ("1200" under "Total") where the same figure with its point ("12.00") is printed above it, as the
 * item or subtotal it totals, is that amount with its point lost to the camera. Any other whole
 * number stays as read (a currency without cents prints no amount with a point to match).
 */
export function totalWithItsPointRestored(context: ExtractionContext, total: AmountChoiceOf): AmountChoiceOf {
  const value = total.candidate.value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || readWithCents(context.layout, total.candidate)) return total;
  const restored = value / 100;
  const totalLine = context.layout.segments[total.candidate.segmentId];
  const printedAbove = context.layout.segments.some(
    (segment) =>
      segment.pageNumber === total.candidate.pageNumber &&
      segment !== totalLine &&
      segment.box.y + segment.box.height / 2 < total.candidate.box.y &&
      findAmounts(segment.text).some((amount) => amount.decimals === 2 && Math.abs(amount.value - restored) < 0.005),
  );
  if (!printedAbove) return total;
  return {
    candidate: { ...total.candidate, value: restored, evidence: `${total.candidate.evidence}, its decimal point restored from the amount printed above it` },
    confidence: Math.min(total.confidence, POINT_RESTORED_CONFIDENCE),
  };
}

/** A total rounded to the coin because the payment says so, its rounding line unread: never certain. */
const ROUNDED_BY_PAYMENT_CONFIDENCE = 0.85;

/** Whether the total's own line prints it as money, with two decimals ("24.00", "RM 5.75"). */
function readWithCents(layout: DocumentLayout, candidate: FieldCandidate): boolean {
  const segment = layout.segments[candidate.segmentId];
  if (!segment || typeof candidate.value !== 'number') return true;
  const value = candidate.value;
  return findAmounts(segment.text).some((amount) => amount.decimals === 2 && Math.abs(Math.abs(amount.value) - Math.abs(value)) < 0.005);
}

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
/** A total known only from the cash tendered on a slip without a change line. */
const PAID_EXACTLY_CONFIDENCE = 0.5;

/**
 * A till receipt whose total line was not read (or not recognised: "\ wffos (Inclusive of GST)") still
 * says what was paid: cash tendered minus the change given back is the total, or the cash tendered
 * where no change line is printed.
 */
export function totalPaidAtTill(context: ExtractionContext, fieldName: string): AmountChoiceOf | undefined {
  const payment = tillPaymentOf(context);
  const [tendered, change] = payment.paymentLines ?? [];
  // A slip that prints the cash tendered and no change line at all was paid exactly ("TOTAL AMOUNT",
  // its figure unread, over "CASH RM 50.00"): the weakest evidence of a total, but the page's own.
  const exact = payment.tenderedWithoutChange;
  if (exact && typeof exact.value === 'number') {
    const candidate: FieldCandidate = { ...exact, fieldName, value: Math.abs(exact.value), score: PAID_EXACTLY_CONFIDENCE, evidence: 'cash tendered, no change printed' };
    return { candidate, confidence: PAID_EXACTLY_CONFIDENCE };
  }
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
export function totalCheckedByTaxes(context: ExtractionContext, total: FieldCandidate, net: FieldCandidate | undefined, tax: FieldCandidate | undefined): TotalCheck | undefined {
  if (!net || !tax || typeof total.value !== 'number' || typeof net.value !== 'number' || typeof tax.value !== 'number') return undefined;
  if (net.pageNumber !== total.pageNumber || tax.pageNumber !== total.pageNumber || !context.layout.hasGeometry) return undefined;
  return { pageNumber: total.pageNumber, agrees: Math.abs(net.value + tax.value - total.value) < 0.005, boxes: [total.box, net.box, tax.box] };
}

export function mentionsPriorPayment(layout: DocumentLayout, priorPaymentLabels: Record<string, string[]>): boolean {
  return findLabelMatches(layout, compileLabelSources([{ fieldName: 'prior-payment', labels: priorPaymentLabels }])).length > 0;
}
