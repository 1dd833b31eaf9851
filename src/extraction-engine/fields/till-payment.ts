// What a till prints under its total: the cash tendered, the change given back, the cash rounding
// adjustment and a restaurant's tip. Tendered minus change is what the customer paid, which is the
// total: an independent check of the total read from its own line, and the rounding line turns an
// exact total into the amount paid when no rounded total is printed (or OCR lost it).

import { findAmounts } from '../values/amount.ts';
import type { ValueContext } from '../values/field-value.ts';
import type { DocumentLayout } from './document-layout.ts';
import type { FieldCandidate } from './field-candidate.ts';
import type { FieldSpecification } from './field-specification.ts';
import { compileLabelSources, findLabelMatches, type LabelMatch } from './label-anchors.ts';
import { candidatesNearLabel } from './label-candidates.ts';

const tenderedLabels = { en: ['cash', 'cash tendered', 'tendered', 'amount tendered', 'paid amount', 'payment', 'received', 'cash received', 'amount received'], de: ['gegeben', 'bar'], fr: ['espèces'], nl: ['contant'], pl: ['gotowka'], es: ['efectivo'], it: ['contanti'] };
const changeLabels = { en: ['change', 'change due', 'change amt', 'change amount'], de: ['rückgeld', 'zurück'], fr: ['rendu', 'monnaie rendue'], nl: ['wisselgeld', 'terug'], pl: ['reszta'], es: ['cambio'], it: ['resto'] };
const tipLabels = { en: ['tip', 'tips', 'gratuity', 'added tip'], de: ['trinkgeld'], fr: ['pourboire'], nl: ['fooi'], pl: ['napiwek'], es: ['propina'], it: ['mancia'] };
const roundingLabels = { en: ['rounding', 'rounding adj', 'rounding adjustment', 'round adj'], de: ['rundung'], fr: ['arrondi'], nl: ['afronding'], pl: ['zaokraglenie'], es: ['redondeo'], it: ['arrotondamento'] };

/** Cash is paid in the smallest coin: a rounding adjustment is never more than this. */
export const MAX_CASH_ROUNDING = 0.05;

export interface TillPayment {
  /** Tendered minus change, when both are printed. */
  paid?: number;
  /** The rounding adjustment line with its amount (signed), when one is printed. */
  rounding?: FieldCandidate;
  /** The tendered and change amounts that give `paid`: where a disagreeing total is checked. */
  paymentLines?: FieldCandidate[];
  /** An amount on a rounding line larger than any adjustment: the rounded total ("Rounding RM 182.00"). */
  roundedTotal?: FieldCandidate;
  /** The tip written or printed under a restaurant's total, when it is an amount above nothing. */
  tip?: FieldCandidate;
  /** The cash tendered, when the slip prints no change line at all: paid exactly. */
  tenderedWithoutChange?: FieldCandidate;
}

function paymentField(name: string, labels: Record<string, string[]>): FieldSpecification {
  return { name, type: 'amount', required: false, labels, patterns: [] };
}

const fields = {
  tendered: paymentField('tendered', tenderedLabels),
  change: paymentField('change', changeLabels),
  rounding: paymentField('rounding', roundingLabels),
  tip: paymentField('tip', tipLabels),
};

function labelsBySegmentOf(labels: LabelMatch[]): Map<number, LabelMatch[]> {
  const labelsBySegment = new Map<number, LabelMatch[]>();
  for (const label of labels) labelsBySegment.set(label.segment.id, [...(labelsBySegment.get(label.segment.id) ?? []), label]);
  return labelsBySegment;
}

/** The amount printed on the label's own line, the strongest first. */
function amountBeside(field: FieldSpecification, labels: LabelMatch[], layout: DocumentLayout, valueContext: ValueContext): FieldCandidate | undefined {
  const labelsBySegment = labelsBySegmentOf(labels);
  return labels
    .filter((label) => label.fieldName === field.name && label.atSegmentStart)
    .flatMap((label) => candidatesNearLabel(field, label, { layout, labelsBySegment, valueContext }))
    .filter((candidate) => candidate.evidence.startsWith('right of') && typeof candidate.value === 'number')
    .sort((left, right) => right.score - left.score)[0];
}

/**
 * The payment amount as its line prints it, its digits not grouped by a space: a till prints no
 * thousands separator, so "7 100.00" is a speck read as 7 before 100.00, not seven thousand.
 */
function readAsMoney(line: FieldCandidate | undefined, layout: DocumentLayout): FieldCandidate | undefined {
  const segment = line ? layout.segments[line.segmentId] : undefined;
  if (!line || !segment || typeof line.value !== 'number') return line;
  const value = line.value;
  const printed = findAmounts(segment.text).find((amount) => Math.abs(amount.value - value) < 0.005);
  return printed && !/\d\s\d{3}/u.test(printed.text) ? line : undefined;
}

export function findTillPayment(layout: DocumentLayout, valueContext: ValueContext): TillPayment {
  const labels = findLabelMatches(
    layout,
    compileLabelSources([
      { fieldName: fields.tendered.name, labels: tenderedLabels },
      { fieldName: fields.change.name, labels: changeLabels },
      { fieldName: fields.rounding.name, labels: roundingLabels },
      { fieldName: fields.tip.name, labels: tipLabels },
    ]),
  );
  const tenderedLine = readAsMoney(amountBeside(fields.tendered, labels, layout, valueContext), layout);
  const changeLine = amountBeside(fields.change, labels, layout, valueContext);
  // Some tills print the cash tendered as a deduction from the balance ("Cash -50.00"): its size is what was handed over.
  const tendered = typeof tenderedLine?.value === 'number' ? Math.abs(tenderedLine.value) : undefined;
  const change = changeLine?.value;
  const rounding = amountBeside(fields.rounding, labels, layout, valueContext);
  const roundingLines = labels
    .filter((label) => label.fieldName === fields.rounding.name && label.atSegmentStart)
    .flatMap((label) => candidatesNearLabel(fields.rounding, label, { layout, labelsBySegment: labelsBySegmentOf(labels), valueContext }))
    .filter((candidate) => candidate.evidence.startsWith('right of') && typeof candidate.value === 'number' && Math.abs(candidate.value) > MAX_CASH_ROUNDING + 1e-9);
  const payment: TillPayment = {};
  if (typeof tendered === 'number' && typeof change === 'number' && tendered >= change && tendered > 0) {
    payment.paid = Math.round((tendered - change) * 100) / 100;
    payment.paymentLines = [tenderedLine!, changeLine!];
  }
  const changeLabelled = labels.some((label) => label.fieldName === fields.change.name);
  if (!changeLabelled && tenderedLine && typeof tendered === 'number' && tendered > 0) payment.tenderedWithoutChange = tenderedLine;
  if (rounding && typeof rounding.value === 'number' && rounding.value !== 0 && Math.abs(rounding.value) <= MAX_CASH_ROUNDING + 1e-9) payment.rounding = rounding;
  const tip = amountBeside(fields.tip, labels, layout, valueContext);
  if (tip && typeof tip.value === 'number' && tip.value > 0) payment.tip = tip;
  const roundedTotal = roundingLines.sort((left, right) => right.score - left.score)[0];
  if (roundedTotal) payment.roundedTotal = roundedTotal;
  return payment;
}
