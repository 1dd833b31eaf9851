// A reviewer's correction of one extracted field, checked against the field's type as the workspace's
// document type defines it (enum values, table columns), and normalized the way the engine writes that
// type, so a corrected value reads exactly like an extracted one (an IBAN without spaces, a currency code
// in capitals, a date in ISO form).

import type { ExtractionConfiguration } from './configuration/extraction-configuration-schema.ts';
import { documentTypeSpecifications } from './document-types.ts';
import type { FieldSpecification } from './fields/field-specification.ts';
import type { TableColumnSpecification } from './fields/table-specification.ts';
import { FIELD_TYPES, parseValueOfType, type FieldType } from './values/field-value.ts';

export interface CorrectedValueIssue {
  /** Where in the corrected value: [] for the value itself, [row, column] in a table. */
  path: (string | number)[];
  issue: string;
}

export type CorrectedValueCheck = { ok: true; value: unknown } | { ok: false; issues: CorrectedValueIssue[] };

/** The field as the extraction's output names it. */
export interface CorrectedField {
  docType: string | undefined;
  name: string;
  type: string;
}

/** Longer text is not a value read from a document but a paste gone wrong. */
export const maximumCorrectedTextLength = 2_000;
export const maximumCorrectedRows = 1_000;

const isoDate = /^\d{4}-\d{2}-\d{2}$/;
const currencyCode = /^[A-Za-z]{3}$/;

/**
 * Checks `value` as the new value of `field`. `null` says the document does not show the field. The
 * definition comes from the configuration in force: a field whose type it no longer defines is checked
 * by its type alone, except enum and table fields, whose values and columns only the definition knows.
 */
export function checkCorrectedValue(configuration: ExtractionConfiguration, field: CorrectedField, value: unknown): CorrectedValueCheck {
  if (value === null) return { ok: true, value: null };
  if (!(FIELD_TYPES as readonly string[]).includes(field.type)) return refused([], `cannot be checked: ${field.type} is not a field type this service knows.`);
  const type = field.type as FieldType;
  const definition = definitionOf(configuration, field, type);
  if (type === 'table') {
    if (!definition?.columns) return refused([], `cannot be checked: document type ${field.docType ?? '(none)'} no longer defines table field ${field.name}.`);
    return checkRows(field.name, definition.columns, value);
  }
  if (type === 'enum' && !definition?.allowedValues) {
    return refused([], `cannot be checked: document type ${field.docType ?? '(none)'} no longer defines enum field ${field.name}.`);
  }
  const checked = checkScalar(type, value, definition?.allowedValues);
  return 'issue' in checked ? refused([], checked.issue) : { ok: true, value: checked.value };
}

function definitionOf(configuration: ExtractionConfiguration, field: CorrectedField, type: FieldType): FieldSpecification | undefined {
  const documentType = documentTypeSpecifications(configuration).find((candidate) => candidate.docType === field.docType);
  const definition = documentType?.fields.find((candidate) => candidate.name === field.name);
  return definition?.type === type ? definition : undefined;
}

function refused(path: CorrectedValueIssue['path'], issue: string): CorrectedValueCheck {
  return { ok: false, issues: [{ path, issue }] };
}

type ScalarCheck = { value: string | number | boolean } | { issue: string };

function checkScalar(type: Exclude<FieldType, 'table'>, value: unknown, allowedValues: readonly string[] | undefined): ScalarCheck {
  switch (type) {
    case 'amount':
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { value } : { issue: `must be a number (type ${type}), e.g. 279.84.` };
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? { value } : { issue: 'must be a whole number (type integer).' };
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { issue: 'must be true or false (type boolean).' };
    default:
      break;
  }
  if (typeof value !== 'string') return { issue: `must be a string (type ${type}).` };
  if (value.trim() === '') return { issue: 'must not be empty; send null for a field the document does not show.' };
  if (value.length > maximumCorrectedTextLength) return { issue: `must be at most ${maximumCorrectedTextLength} characters.` };
  // Dates and currencies only in the form the output writes them: "03/04/2024" and "$" are ambiguous.
  if (type === 'date' && !isoDate.test(value.trim())) return { issue: 'must be a date as YYYY-MM-DD (type date).' };
  if (type === 'currency' && !currencyCode.test(value.trim())) return { issue: 'must be an ISO 4217 currency code such as EUR (type currency).' };
  const parsed = parseValueOfType(type, value, allowedValues ? { allowedValues } : {});
  if (parsed !== undefined) return { value: parsed };
  return { issue: type === 'enum' ? `must be one of ${(allowedValues ?? []).join(', ')}.` : `is not a valid ${type}${typeHints[type] ?? ''}.` };
}

const typeHints: Partial<Record<FieldType, string>> = {
  date: ' (no such day)',
  datetime: ' (ISO 8601, e.g. 2024-03-15T10:30:00)',
  currency: ' (not an ISO 4217 code)',
  iban: ' (the check digits do not match)',
  email: ' address',
  phone: ' number',
};

/** A table's value: a list of rows, each an object of some of the field's columns. */
function checkRows(fieldName: string, allColumns: readonly TableColumnSpecification[], value: unknown): CorrectedValueCheck {
  if (!Array.isArray(value)) return refused([], `must be a list of rows (table ${fieldName}), each an object of its columns.`);
  if (value.length > maximumCorrectedRows) return refused([], `must have at most ${maximumCorrectedRows} rows.`);
  const columns = new Map(allColumns.filter((column) => !column.hidden).map((column) => [column.name, column]));
  const issues: CorrectedValueIssue[] = [];
  const rows = value.map((row: unknown, index) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      issues.push({ path: [index], issue: 'must be an object of the row\'s columns.' });
      return {};
    }
    const entries = Object.entries(row);
    if (entries.length === 0) issues.push({ path: [index], issue: 'must have at least one column.' });
    const normalized: Record<string, string | number> = {};
    for (const [name, cell] of entries) {
      const column = columns.get(name);
      if (!column) {
        issues.push({ path: [index, name], issue: `is not a column of ${fieldName} (columns: ${[...columns.keys()].join(', ')}).` });
        continue;
      }
      const checked = checkCell(column, cell);
      if ('issue' in checked) issues.push({ path: [index, name], issue: checked.issue });
      else normalized[name] = checked.value;
    }
    return normalized;
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: rows };
}

function checkCell(column: TableColumnSpecification, cell: unknown): { value: string | number } | { issue: string } {
  switch (column.type) {
    case 'number':
    case 'amount':
    case 'percent':
      return typeof cell === 'number' && Number.isFinite(cell) ? { value: cell } : { issue: `must be a number (column type ${column.type}).` };
    case 'integer':
      return typeof cell === 'number' && Number.isSafeInteger(cell) ? { value: cell } : { issue: 'must be a whole number (column type integer).' };
    case 'date': {
      const date = typeof cell === 'string' && isoDate.test(cell) ? parseValueOfType('date', cell) : undefined;
      return typeof date === 'string' ? { value: date } : { issue: 'must be a date as YYYY-MM-DD (column type date).' };
    }
    case 'string':
      if (typeof cell !== 'string' || cell.trim() === '') return { issue: 'must be a non-empty string (column type string).' };
      return cell.length > maximumCorrectedTextLength ? { issue: `must be at most ${maximumCorrectedTextLength} characters.` } : { value: cell.trim() };
  }
}
