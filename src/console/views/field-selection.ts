import type { ExtractedField, Placement } from '../api-types.ts';
import { fieldValueText, valueText } from '../field-value-text.ts';

/**
 * What the reviewer has selected: a field, or one row of a table field, or one cell of that row.
 * Feedback names the field in all three cases (the API takes a field's id, not a row's).
 */
export interface FieldSelection {
  fieldId: string;
  /** Index into the table field's rows (0-based, as in `value` and `metadata.rows`). */
  row?: number;
  /** A column of that row. */
  column?: string;
}

/** One string per selection, for matching a table row or cell with its box on the page. */
export function selectionKeyOf(selection: FieldSelection): string {
  if (selection.row === undefined) return selection.fieldId;
  return selection.column === undefined ? `${selection.fieldId}/${selection.row}` : `${selection.fieldId}/${selection.row}/${selection.column}`;
}

/** A box drawn over a page: a placed field, or the selected row or cell of a table field. */
export interface PageBox {
  key: string;
  selection: FieldSelection;
  label: string;
  confidence: number | undefined;
  /** 1-based. */
  page: number;
  placement: Placement;
}

/**
 * Every placed field's box, and, when a table's row or cell is selected, that row's or cell's box as
 * well: a table's rows are not drawn all the time, as a page full of boxes inside the table's own
 * would hide the values the reviewer is reading.
 */
export function pageBoxesOf(fields: readonly ExtractedField[], selection: FieldSelection | undefined): PageBox[] {
  const boxes: PageBox[] = [];
  for (const field of fields) {
    const placement = field.metadata?.placement;
    if (!placement) continue;
    boxes.push({
      key: field.id,
      selection: { fieldId: field.id },
      label: `${field.name}: ${fieldValueText(field)}`,
      confidence: field.metadata?.confidence,
      page: field.metadata?.page ?? 1,
      placement,
    });
  }
  const tablePart = selection && tablePartBoxOf(fields, selection);
  if (tablePart) boxes.push(tablePart);
  return boxes;
}

function tablePartBoxOf(fields: readonly ExtractedField[], selection: FieldSelection): PageBox | undefined {
  if (selection.row === undefined) return undefined;
  const field = fields.find((candidate) => candidate.id === selection.fieldId);
  const row = field?.metadata?.rows?.[selection.row];
  const values = Array.isArray(field?.value) ? (field.value[selection.row] as Record<string, unknown> | undefined) : undefined;
  if (!field || !row) return undefined;
  const rowLabel = `${field.name} row ${selection.row + 1}`;
  if (selection.column === undefined) {
    if (!row.placement) return undefined;
    return { key: selectionKeyOf(selection), selection, label: rowLabel, confidence: row.confidence, page: row.page ?? field.metadata?.page ?? 1, placement: row.placement };
  }
  const cell = row.cells?.[selection.column];
  if (!cell?.placement) return undefined;
  return {
    key: selectionKeyOf(selection),
    selection,
    label: `${rowLabel}, ${selection.column}: ${valueText(values?.[selection.column])}`,
    confidence: cell.confidence,
    page: row.page ?? field.metadata?.page ?? 1,
    placement: cell.placement,
  };
}
