// Invoices print several amounts near "total"-like labels (subtotals, tax bases, payments). The
// triple where net + tax = total is almost certainly the right one, so the selection searches for it
// and trusts it more than any single label. Tax printed per rate (7 % and 19 %) is added up.

import type { FieldCandidate } from './field-candidate.ts';
import { calibrateConfidence, groupByValue, roundConfidence } from './candidate-selection.ts';

export interface AmountCandidates {
  net: FieldCandidate[];
  tax: FieldCandidate[];
  total: FieldCandidate[];
  due: FieldCandidate[];
}

export interface AmountSelectionOptions {
  /** An unpaid document with no amount due printed owes its total (see priorPaymentLabels). */
  dueIsTotalUnlessPrinted?: boolean;
}

export interface AmountChoice {
  candidate: FieldCandidate;
  confidence: number;
}

export type AmountSelection = Partial<Record<keyof AmountCandidates, AmountChoice>>;

const CONSISTENCY_TOLERANCE = 0.015;
const MISSING_SCORE = 0.2;
const TOP = 6;

interface Scored {
  candidate: FieldCandidate;
  score: number;
}

function top(candidates: FieldCandidate[]): Scored[] {
  return groupByValue(candidates)
    .slice(0, TOP)
    .map((group) => ({ candidate: { ...group.best, value: group.value }, score: group.score }));
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** A total read with its decimal point restored is a repair of the reading: never reported as certain. */
const RESTORED_POINT_CONFIDENCE = 0.85;

/**
 * OCR drops the decimal point of faint print ("Net Total: 2120" for 21.20). A whole number of at least
 * three digits may be the total in cents; such candidates count only where net + tax confirm them.
 */
function withDecimalPointRestored(totals: Scored[]): Scored[] {
  return totals
    .filter((total) => Number.isInteger(total.candidate.value) && Math.abs(total.candidate.value as number) >= 100)
    .map((total) => ({
      candidate: { ...total.candidate, value: round((total.candidate.value as number) / 100), evidence: `${total.candidate.evidence}; decimal point restored` },
      score: total.score * 0.9,
    }));
}

/**
 * Twice an amount printed on two tax lines of its own, as India's CGST and SGST are (always the same
 * half of the rate). Only a candidate: it is chosen where net plus it gives the total, so a tax printed
 * twice (its line in the totals, again in a summary) is not doubled.
 */
function equalTaxLineSums(taxes: Scored[], printed: FieldCandidate[]): Scored[] {
  const sums: Scored[] = [];
  for (const tax of taxes) {
    if (typeof tax.candidate.value !== 'number' || tax.candidate.value === 0) continue;
    const lines = new Set(printed.filter((candidate) => candidate.value === tax.candidate.value).map((candidate) => candidate.segmentId));
    if (lines.size >= 2) sums.push({ candidate: { ...tax.candidate, value: round(tax.candidate.value * 2), evidence: 'sum of two equal tax lines' }, score: tax.score * 0.8 });
  }
  return sums;
}

/** Sums of two different per-rate tax amounts, as extra tax candidates. */
function perRateTaxSums(taxes: Scored[]): Scored[] {
  const sums: Scored[] = [];
  const values = taxes.filter((tax) => typeof tax.candidate.value === 'number' && tax.candidate.value !== 0);
  for (let first = 0; first < values.length; first += 1) {
    for (let second = first + 1; second < values.length; second += 1) {
      const left = values[first] as Scored;
      const right = values[second] as Scored;
      // Credit notes print negative tax per rate; never mix signs.
      if (Math.sign(left.candidate.value as number) !== Math.sign(right.candidate.value as number)) continue;
      sums.push({
        candidate: { ...left.candidate, value: round((left.candidate.value as number) + (right.candidate.value as number)), evidence: 'sum of tax per rate' },
        score: Math.min(left.score, right.score) * 0.8,
      });
    }
  }
  return sums;
}

export function selectAmounts(amounts: AmountCandidates, options: AmountSelectionOptions = {}): AmountSelection {
  // The amount due equals the total unless something was prepaid, so it is a weaker total candidate.
  const printedTotals = top([...amounts.total, ...amounts.due.map((candidate) => ({ ...candidate, score: candidate.score * (amounts.total.length > 0 ? 0.75 : 0.9) }))]);
  const largestTotal = Math.max(0, ...printedTotals.map((total) => Math.abs(total.candidate.value as number)));
  const nets = top(amounts.net);
  const printedTaxes = top(amounts.tax);
  const taxesPrintedOrPerRate = [...printedTaxes, ...perRateTaxSums(printedTaxes)];
  // Twice a tax printed twice is searched for a sum that adds up, but is no rival of the printed figure.
  const taxes = [...taxesPrintedOrPerRate, ...equalTaxLineSums(printedTaxes, amounts.tax)];
  // A total whose decimal point is restored is believed only where an amount printed above it plus
  // the tax give it ("3 Item(s) Total: 30.00", "GST: 1.80", "Net Total: 3180"); that amount is its net.
  const restoredBases = new Map<Scored, Scored>();
  for (const restored of withDecimalPointRestored(printedTotals)) {
    const base = [...nets, ...printedTotals].find((amount) => taxes.some((tax) => Math.abs((amount.candidate.value as number) + (tax.candidate.value as number) - (restored.candidate.value as number)) <= CONSISTENCY_TOLERANCE));
    if (base) restoredBases.set(restored, nets.includes(base) ? base : { ...base, score: base.score * 0.8 });
  }
  const repairedTotals = [...restoredBases.keys()];
  const totals = [...printedTotals, ...repairedTotals];
  const selection: AmountSelection = {};

  let best: { total?: Scored; net?: Scored; tax?: Scored; score: number; consistent: boolean } = { score: -Infinity, consistent: false };
  for (const total of totals.length > 0 ? totals : [undefined]) {
    const restoredBase = total ? restoredBases.get(total) : undefined;
    for (const net of restoredBase ? [restoredBase] : [...nets, undefined]) {
      for (const tax of [...taxes, undefined]) {
        const totalValue = total?.candidate.value as number | undefined;
        const netValue = net?.candidate.value as number | undefined;
        const taxValue = tax?.candidate.value as number | undefined;
        let score = (total?.score ?? 0) + (net?.score ?? MISSING_SCORE) + (tax?.score ?? MISSING_SCORE);
        let consistent = false;
        if (restoredBase && taxValue === undefined) continue;
        // A positive total has no negative tax (a credit note's are both negative): such a figure is
        // something else in parentheses, as accounts print negatives ("Tax (₹)" with ₹ read as 7).
        if (totalValue !== undefined && totalValue > 0 && taxValue !== undefined && taxValue < 0) continue;
        if (totalValue !== undefined && netValue !== undefined && taxValue !== undefined) {
          consistent = Math.abs(netValue + taxValue - totalValue) <= CONSISTENCY_TOLERANCE;
          if (restoredBase && !consistent) continue;
          // Of several consistent rows (per tax rate, then their sum), the document total is the largest.
          if (consistent) score += 1.2 + (largestTotal > 0 ? 0.3 * (Math.abs(totalValue) / largestTotal) : 0);
        }
        if (totalValue !== undefined && totalValue >= 0) {
          if (netValue !== undefined && netValue > totalValue + CONSISTENCY_TOLERANCE) score -= 0.6;
          if (taxValue !== undefined && taxValue > totalValue) score -= 0.6;
          if (netValue !== undefined && taxValue !== undefined && taxValue > netValue && netValue > 0) score -= 0.4;
        }
        if (score > best.score) best = { ...(total ? { total } : {}), ...(net ? { net } : {}), ...(tax ? { tax } : {}), score, consistent };
      }
    }
  }

  const confidenceOf = (choice: Scored, pool: Scored[]): number => {
    if (best.consistent) return roundConfidence(Math.min(0.99, 0.88 + 0.11 * Math.min(1, choice.score)));
    const runnerUp = pool.find((entry) => entry.candidate.value !== choice.candidate.value);
    return calibrateConfidence(choice.score, runnerUp?.score);
  };
  if (best.total) {
    const confidence = confidenceOf(best.total, totals);
    selection.total = { candidate: best.total.candidate, confidence: repairedTotals.includes(best.total) ? Math.min(RESTORED_POINT_CONFIDENCE, confidence) : confidence };
  }
  if (best.net) selection.net = { candidate: best.net.candidate, confidence: confidenceOf(best.net, nets) };
  if (best.tax) selection.tax = { candidate: best.tax.candidate, confidence: confidenceOf(best.tax, taxesPrintedOrPerRate) };
  // Without a total to check against, tax lines of similar strength on different rows are per-rate
  // lines (MwSt A 7 %, MwSt B 19 %): the document's tax is their sum.
  if (!best.consistent && !best.net && printedTaxes.length >= 2) {
    const [first, second] = printedTaxes as [Scored, Scored];
    const perRate = perRateTaxSums([first, second])[0];
    if (perRate && first.candidate.segmentId !== second.candidate.segmentId && Math.abs(first.score - second.score) < 0.15) {
      selection.tax = { candidate: perRate.candidate, confidence: roundConfidence(calibrateConfidence(perRate.score, undefined) * 0.8) };
    }
  }

  // Net = total - tax when only the net is not printed (no tax: "Tax $0.00"; or gross-only rows).
  if (!selection.net && selection.total && selection.tax && selection.tax.confidence >= 0.5) {
    const derived = round((selection.total.candidate.value as number) - (selection.tax.candidate.value as number));
    if (derived >= 0 || (selection.total.candidate.value as number) < 0) {
      selection.net = {
        candidate: { ...selection.total.candidate, value: derived, evidence: 'total minus tax' },
        confidence: roundConfidence(Math.min(selection.total.confidence, selection.tax.confidence) * 0.8),
      };
    }
  }

  const dues = top(amounts.due);
  const due = dues[0];
  if (due) selection.due = { candidate: due.candidate, confidence: calibrateConfidence(due.score, dues[1]?.score) };
  else if (options.dueIsTotalUnlessPrinted && selection.total) {
    selection.due = {
      candidate: { ...selection.total.candidate, evidence: 'the total: no amount due printed, no payment shown' },
      confidence: roundConfidence(selection.total.confidence * 0.75),
    };
  }
  return selection;
}
