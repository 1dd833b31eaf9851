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

/** The heading of a tax summary ("GST Summary", "Tax Summary", "VAT summary"), or its column header ("Amt (RM) Tax (RM)"). */
const TAX_SUMMARY_HEADING = /(?<!\p{L})(?:(?:gst|sst|vat|tax|mwst|ust)\s*summary|summary\s+of\s+(?:gst|tax|vat))(?!\p{L})/iu;
const AMOUNT_AND_TAX_COLUMNS = /(?<!\p{L})(?:amount|amt)(?!\p{L}).*(?<!\p{L})(?:tax|gst|vat)(?!\p{L})/iu;
/** A tax summary is a few rows: its rate lines and their total. */
const TAX_SUMMARY_ROWS = 6;
/** The largest share of the supplies a tax is (the highest VAT rates are 27%; a levy on top). */
const MAX_TAX_RATE = 0.3;

/**
 * Rows of a tax summary that add up its columns, with the gross amount they give: "Total 9.85 0.59
 * 10.44" prints it (net + tax = gross); "TOTAL : 26.00 1.56" gives it as net plus tax. A row under the
 * summary's heading ("GST Summary", or the "Amount ... Tax" column header) printing two amounts or
 * more; the gross is undefined when its figures do not read as net and tax. Its first figure is the
 * supplies before tax, not the document's total, although "Total" labels it.
 */
export function taxSummaryTotalRows(layout: DocumentLayout): Map<LayoutRow, number | undefined> {
  const found = new Map<LayoutRow, number | undefined>();
  for (const { rows } of taxSummaries(layout)) {
    for (const row of rows) {
      const amounts = row.segments.flatMap((segment) => findAmounts(segment.text).filter((amount) => !amount.isPercentage && amount.decimals === 2).map((amount) => amount.value));
      if (amounts.length >= 2) found.set(row, grossOf(amounts));
    }
  }
  return found;
}

/**
 * Each tax summary of the document: the rows under its heading ("GST Summary", or the "Amount ... Tax"
 * column header), at most TAX_SUMMARY_ROWS, up to a blank stretch of a few rows (photographed till rolls
 * space their rows widely).
 */
function taxSummaries(layout: DocumentLayout): { pageNumber: number; rows: LayoutRow[] }[] {
  const summaries: { pageNumber: number; rows: LayoutRow[] }[] = [];
  for (const page of layout.pages) {
    page.rows.forEach((row, index) => {
      const text = row.segments.map((segment) => segment.text).join(' ');
      if (!TAX_SUMMARY_HEADING.test(text) && !(AMOUNT_AND_TAX_COLUMNS.test(text) && !/\d[.,]\d{2}/.test(text))) return;
      const rows: LayoutRow[] = [];
      let previous = row;
      for (const next of page.rows.slice(index + 1, index + 1 + TAX_SUMMARY_ROWS)) {
        if (next.top - previous.bottom > page.typicalLineHeight * 4) break;
        rows.push(next);
        previous = next;
      }
      summaries.push({ pageNumber: page.pageNumber, rows });
    });
  }
  return summaries;
}

/** A tax rate printed in a summary row: "6%", "(06%)", "@ 6 %", "SR 6.00%". */
const RATE_IN_ROW = /(?<![\d.,])(\d{1,2}(?:[.,]\d{1,2})?)\s?%/u;
/** A summary row that totals the others ("Total 9.85 0.59"): added up it would count every supply twice. */
const TOTAL_WORD = /(?<!\p{L})(?:total|jumlah|summe|gesamt|totaal)(?!\p{L})/iu;
/** Tax and rate times amount may differ by this much: each is rounded to the cent. */
const ROUNDED_TAX_TOLERANCE = 0.011;

/**
 * The gross of one rate row of a tax summary table ("SR @6% | 20.19 | 1.21", "ZR (00%) | 38.20 | 0.00"):
 * its last two figures are the supplies at that rate and their tax. Whether the supplies include the
 * tax is read from the arithmetic, not the column header ("Amount (RM)" says neither): tax = rate ×
 * amount says before tax (gross = amount + tax), tax = rate × amount / (1 + rate) says with it (gross =
 * amount). A row whose figures fit neither, or both (too small to tell), gives nothing.
 */
function rateRowGross(text: string): number | undefined {
  if (TOTAL_WORD.test(text)) return undefined;
  const rateMatch = RATE_IN_ROW.exec(text);
  if (!rateMatch?.[1]) return undefined;
  const rate = Number(rateMatch[1].replace(',', '.')) / 100;
  const figures = findAmounts(text.slice(rateMatch.index + rateMatch[0].length)).filter((amount) => !amount.isPercentage && amount.decimals === 2);
  if (figures.length < 2 || rate > MAX_TAX_RATE) return undefined;
  const [amount, tax] = figures.slice(-2).map((figure) => figure.value) as [number, number];
  if (amount < 0 || tax < 0) return undefined;
  if (rate === 0) return tax === 0 ? amount : undefined;
  const before = Math.abs(amount * rate - tax) <= ROUNDED_TAX_TOLERANCE;
  const within = Math.abs((amount * rate) / (1 + rate) - tax) <= ROUNDED_TAX_TOLERANCE;
  if (before === within) return undefined;
  return before ? cents(amount + tax) : amount;
}

/**
 * The gross of a tax summary table added up from its rate rows (taxSummaries), with the rows: the supplies of each rate with their tax. A rate row OCR could
 * not read is missing from the sum, so callers take it only where the page prints the same amount
 * elsewhere. Undefined when no rate row reads.
 */
export function taxSummaryRateRowsTotal(layout: DocumentLayout): RateLinesTotal | undefined {
  for (const summary of taxSummaries(layout)) {
    const rateRows = summary.rows.flatMap((row) => {
      const gross = rateRowGross(row.segments.map((segment) => segment.text).join(' '));
      return gross === undefined ? [] : [{ row, gross }];
    });
    if (rateRows.length === 0) continue;
    const parts = rateRows.map((rateRow) => rateRow.gross);
    return { value: cents(parts.reduce((sum, part) => sum + part, 0)), parts, pageNumber: summary.pageNumber, rows: rateRows.map((rateRow) => rateRow.row) };
  }
  return undefined;
}

/** Net, tax and gross printed side by side, or net and tax: the gross. */
function grossOf(amounts: number[]): number | undefined {
  const [net, tax, gross] = amounts.slice(-3);
  if (gross !== undefined && net !== undefined && tax !== undefined && Math.abs(cents(net + tax) - gross) < 0.015 && tax <= net * MAX_TAX_RATE) return gross;
  const [lastNet, lastTax] = amounts.slice(-2) as [number, number];
  return lastNet > 0 && lastTax >= 0 && lastTax <= lastNet * MAX_TAX_RATE ? cents(lastNet + lastTax) : undefined;
}
