// Choosing one value for every field of the document from the candidate pool. The amounts are chosen
// together (net + tax = total) and then checked against the page's arithmetic (total-checks.ts); the
// other fields take their best-supported value (candidate-selection.ts), and a value scored too low
// is not reported at all.

import { selectAmounts } from './amount-consistency.ts';
import { calibrateConfidence, groupByValue, roundConfidence } from './candidate-selection.ts';
import { fieldOfRole, pageOf, type CandidatePool, type ExtractionContext } from './extraction-context.ts';
import type { FieldCandidate } from './field-candidate.ts';
import { resultFrom, type FieldResult } from './field-result.ts';
import { nameSpeltAsOnPage } from './name-spelling.ts';
import { withWholeNames } from './party-names.ts';
import {
  cashRoundedTotal,
  checkedAgainstRateLines,
  checkedAgainstTillPayment,
  MAX_TAX_SHARE_OF_TOTAL,
  mentionsPriorPayment,
  totalCheckedByTaxes,
  totalPaidAtTill,
  totalWithItsPointRestored,
  totalWithTip,
  unlabelledSumUnderTax,
  type TotalCheck,
} from './total-checks.ts';

/** Below this, a value is more often wrong than right; reporting nothing is more useful. */
const MIN_REPORTED_SCORE = 0.3;

export function selectValues(context: ExtractionContext, pool: CandidatePool, arithmetic: { totalCheck?: TotalCheck } = {}): Map<string, FieldResult> {
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
  const tipped = amountSelection.total && totalWithTip(context, amountSelection.total.candidate, [...pool.of(amountFields.total?.name), ...pool.of(amountFields.due?.name)]);
  if (amountSelection.total && tipped) amountSelection.total = { candidate: tipped.total, confidence: amountSelection.total.confidence };
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
  if (amountSelection.total && context.specification.sellerHeadsDocument) amountSelection.total = totalWithItsPointRestored(context, amountSelection.total);
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
    if (!field || !selection) continue;
    const result = resultFrom(field.name, selection.candidate, selection.confidence, hasGeometry);
    // Net plus tax adds up to the total before the tip (validated by the document type's sum rule).
    chosen.set(field.name, role === 'total' && tipped && selection.candidate === tipped.total ? { ...result, outsideSums: tipped.tip } : result);
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
