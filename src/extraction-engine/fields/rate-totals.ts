// A tax summary that totals the supplies at each rate ("Total 6% supplies (Incl. GST): 25.44",
// "Total 0% supplies: 7.61") adds up to the document's total: every supply is at one rate. The sum of
// the rate lines is an independent reading of the total, made of lines other than the total's own.

import { findAmounts } from '../values/amount.ts';
import type { DocumentLayout, LayoutRow } from './document-layout.ts';
import { boxOfRange, unitePlacements } from './document-layout.ts';

/** A total word, then at once a tax rate: the line totals the supplies at that rate. */
const RATE_LINE = /^[^\p{L}\d]*(?:total|totaal|totale|summe|gesamt)\s*[@:]?\s*(\d{1,2}(?:[.,]\d{1,2})?)\s?%(.*)$/iu;
/** The rate's amount includes its tax ("incl. GST", "Inc. GST", "inclusive", "with tax"). */
const INCLUDES_TAX = /\b(?:incl?|inclusive|including|inkl|with|mit|ttc)\b/iu;
/** The rate's amount is before its tax ("excl. GST", "exclusive", "net", "ohne"). */
const EXCLUDES_TAX = /\b(?:excl?|exclusive|excluding|exkl|before|net|netto|ohne|without|ht)\b/iu;

export interface RateLinesTotal {
  /** The sum of the tax-inclusive amount of each rate. */
  value: number;
  /** The tax-inclusive amount of each rate. */
  parts: number[];
  pageNumber: number;
  /** The rows that were added up. */
  rows: LayoutRow[];
}

interface RateLine {
  rate: number;
  kind: 'includes-tax' | 'excludes-tax' | 'unqualified';
  amount: number;
  row: LayoutRow;
}

function rateLineOf(row: LayoutRow): RateLine | undefined {
  const text = row.segments.map((segment) => segment.text).join(' ');
  const match = RATE_LINE.exec(text);
  if (!match?.[1]) return undefined;
  const rest = match[2] ?? '';
  const amounts = findAmounts(rest).filter((amount) => !amount.isPercentage && amount.decimals === 2);
  const amount = amounts.at(-1);
  if (!amount || amount.value < 0) return undefined;
  const qualifier = rest.slice(0, amount.index);
  const kind = INCLUDES_TAX.test(qualifier) ? 'includes-tax' : EXCLUDES_TAX.test(qualifier) ? 'excludes-tax' : 'unqualified';
  return { rate: Number(match[1].replace(',', '.')), kind, amount: amount.value, row };
}

const cents = (value: number): number => Math.round(value * 100) / 100;

/**
 * The sum of the tax-inclusive totals of two or more rates on one page, or undefined. A rate's
 * amount with its tax is the line that says it includes it; at 0% any line; a rate printed only
 * before tax, or unqualified, is not added (whether "Summe 19%" includes the tax is not printed). A
 * rate whose lines disagree is not added either.
 */
export function rateLinesTotal(layout: DocumentLayout): RateLinesTotal | undefined {
  for (const page of layout.pages) {
    const lines = page.rows.map(rateLineOf).filter((line): line is RateLine => line !== undefined);
    const rates = [...new Set(lines.map((line) => line.rate))];
    if (rates.length < 2) continue;
    const inclusive: RateLine[] = [];
    for (const rate of rates) {
      const atRate = lines.filter((line) => line.rate === rate && (rate === 0 || line.kind === 'includes-tax'));
      const values = new Set(atRate.map((line) => line.amount));
      if (values.size !== 1) return undefined;
      inclusive.push(atRate[0]!);
    }
    const parts = inclusive.map((line) => line.amount);
    return { value: cents(parts.reduce((sum, part) => sum + part, 0)), parts, pageNumber: page.pageNumber, rows: inclusive.map((line) => line.row) };
  }
  return undefined;
}

/** The box of the rate lines added up, for the total's placement. */
export function boxOfRateLines(total: RateLinesTotal) {
  return unitePlacements(total.rows.flatMap((row) => row.segments.map((segment) => boxOfRange(segment, 0, segment.text.length))));
}
