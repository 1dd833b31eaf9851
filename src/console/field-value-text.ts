// How an extracted value reads in the console: the same for a field in the fields table, a cell of a
// table field and a box's label, so a number reads alike wherever it is shown.

export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A table field is shown as a table of its own (views/table-field.tsx); in a list of fields it is its row count. */
export function fieldValueText(field: { type: string; value: unknown }): string {
  if (field.type === 'table' && Array.isArray(field.value)) return field.value.length === 1 ? '1 row' : `${field.value.length} rows`;
  return valueText(field.value);
}
