// What the row builder needs to know about a table field: its columns, how each is printed in a
// header, and which column plays which part in the row's arithmetic. Prebuilt line items and a
// workspace's own table fields share this shape.

import type { Placement } from '../document.ts';
import type { ArithmeticEvidence } from './table-arithmetic.ts';

export const TABLE_COLUMN_TYPES = ['string', 'number', 'amount', 'integer', 'percent', 'date'] as const;
export type TableColumnType = (typeof TABLE_COLUMN_TYPES)[number];

/**
 * The part a column plays: `line-total` marks a row (a row is the line that prints it) and is what
 * quantity × unit price (less a discount) is checked against; `description` takes wrapped lines;
 * `position` and `discount` are read for the arithmetic and the row structure but not reported.
 */
export type TableColumnRole = 'description' | 'line-total' | 'quantity' | 'unit' | 'unit-price' | 'discount' | 'tax-rate' | 'position';

export interface TableColumnSpecification {
  name: string;
  type: TableColumnType;
  /** Header words per ISO 639-1 language (lowercase phrases as printed). */
  headerLabels: Record<string, string[]>;
  role?: TableColumnRole;
  /** Read for structure or arithmetic only; never part of a reported row. */
  hidden?: boolean;
}

export type TableCellValue = string | number;

export interface TableCell {
  confidence: number;
  placement?: Placement;
}

export interface TableRow {
  values: Record<string, TableCellValue>;
  confidence: number;
  pageNumber: number;
  placement?: Placement;
  cells: Record<string, TableCell>;
}

export interface ExtractedTable {
  rows: TableRow[];
  confidence: number;
  pageNumber: number;
  /** The table's region on its first page. */
  placement?: Placement;
  /** What the page's arithmetic says for the rows (table-arithmetic.ts); not reported. */
  arithmetic?: ArithmeticEvidence;
}
