// The page's own arithmetic as evidence about a table: quantity × unit price (less a printed
// discount) against each row's line total, and the sum of the line totals against the net or total
// printed under the table. Agreement raises a row's and the table's confidence, disagreement lowers
// it: a table whose rows do not add up is reported at low confidence rather than high.

import { roundConfidence } from './candidate-selection.ts';

export interface RowArithmetic {
  quantity?: number;
  unitPrice?: number;
  /** Percent off the quantity × unit price. */
  discount?: number;
  /** Percent; a line total printed with the tax included is checked against it too. */
  taxRate?: number;
  lineTotal?: number;
}

export interface TableArithmetic {
  /** Confidence per row, before the reading's own (OCR) confidence. */
  rows: number[];
  table: number;
  evidence: ArithmeticEvidence;
}

/** What the page's arithmetic says for a table as a whole: how two readings of it compare. */
export interface ArithmeticEvidence {
  /** Rows whose quantity × unit price gives their line total. */
  rowsThatAddUp: number;
  /** The line totals add up to a printed net, total or closing sum. */
  addsUpToSum: boolean;
}

/** A row read from the layout, with nothing to check it against. */
export const UNCHECKED_ROW = 0.7;
/** quantity × unit price gives the line total. */
export const ROW_ADDS_UP = 0.9;
/** The row adds up and the rows add up to a printed sum. */
export const ROW_AND_TABLE_ADD_UP = 0.97;
/** The row does not add up: a column was misread or misplaced. */
export const ROW_DOES_NOT_ADD_UP = 0.45;
/** The rows add up to a printed net or total: none is missing, none too many. */
export const TABLE_ADDS_UP = 0.95;
/** No printed sum to compare with. */
export const TABLE_UNCHECKED = 0.65;
/** The rows do not add up to any printed sum. */
export const TABLE_DOES_NOT_ADD_UP = 0.4;

/** A cell the row's own arithmetic chose among OCR's misreadings, or derived from it: never certain. */
export const CELL_CHOSEN_BY_ARITHMETIC = 0.75;

/**
 * quantity × unit price is the amount exactly to the cent. For choosing a cell by the arithmetic: the
 * looser check of rowAddsUp (four-place unit prices) would let far-fetched readings in.
 */
export function multipliesToTheCent(quantity: number, unitPrice: number, amount: number): boolean {
  return Math.abs(quantity * unitPrice - amount) < 0.005;
}

function near(left: number, right: number): boolean {
  // Unit prices with four decimals (3,3333 × 3 = 10,00) and cent rounding per line.
  return Math.abs(left - right) <= Math.max(0.011, Math.abs(right) * 0.0005);
}

/** True, false, or undefined when the row prints too little to check. */
export function rowAddsUp(row: RowArithmetic): boolean | undefined {
  if (row.quantity === undefined || row.unitPrice === undefined || row.lineTotal === undefined) return undefined;
  const gross = row.quantity * row.unitPrice;
  const net = gross * (1 - (row.discount ?? 0) / 100);
  if (near(net, row.lineTotal) || near(gross, row.lineTotal)) return true;
  // A line total printed with its tax included.
  return row.taxRate !== undefined && near(net * (1 + row.taxRate / 100), row.lineTotal);
}

export function tableArithmetic(rows: RowArithmetic[], sums: number[]): TableArithmetic {
  const total = rows.reduce((sum, row) => sum + (row.lineTotal ?? 0), 0);
  const sumAgrees = sums.length === 0 ? undefined : sums.some((sum) => Math.abs(sum - total) < 0.011);
  const checks = rows.map(rowAddsUp);
  const rowConfidences = checks.map((check) => {
    if (check === false) return ROW_DOES_NOT_ADD_UP;
    if (check === true) return sumAgrees ? ROW_AND_TABLE_ADD_UP : ROW_ADDS_UP;
    return sumAgrees ? ROW_ADDS_UP : UNCHECKED_ROW;
  });
  const failing = checks.filter((check) => check === false).length;
  const table = sumAgrees === true ? TABLE_ADDS_UP : sumAgrees === false ? TABLE_DOES_NOT_ADD_UP : TABLE_UNCHECKED;
  const evidence = { rowsThatAddUp: checks.filter((check) => check === true).length, addsUpToSum: sumAgrees === true };
  return { rows: rowConfidences, evidence, table: roundConfidence(failing > 0 ? Math.min(table, TABLE_UNCHECKED) * (1 - failing / (rows.length * 2)) : table) };
}
