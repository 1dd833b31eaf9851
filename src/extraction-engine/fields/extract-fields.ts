// Extracts the fields of one document type from a document's layout: label anchors first, then
// document-wide evidence for the prebuilt roles, then value selection with consistency checks
// (net + tax = total, issue date before due date) and a calibrated confidence per field.
// This file only runs those steps in order; each lives in the module named for what it does:
// extraction-context.ts, candidate-generation.ts, value-selection.ts (with total-checks.ts),
// party-names.ts, line-items.ts and field-validations.ts.

import type { ReadDocument } from '../document.ts';
import { parseValueOfType, type FieldValue } from '../values/field-value.ts';
import { addLabelCandidates, addPatternCandidates, addRoleEvidence } from './candidate-generation.ts';
import { buildDocumentLayout, type DocumentLayout } from './document-layout.ts';
import { CandidatePool, fieldOfRole, prepareContext, roleOfLabel, TOTALS_ROLES, type ExtractionContext } from './extraction-context.ts';
import type { FieldResult } from './field-result.ts';
import type { DocumentTypeSpecification, FieldSpecification } from './field-specification.ts';
import { applyValidations, type ValidationProblem } from './field-validations.ts';
import { tableFieldResults } from './line-items.ts';
import { chooseBuyerFromAddressBlock } from './party-names.ts';
import type { TotalCheck } from './total-checks.ts';
import { selectValues } from './value-selection.ts';

export type { FieldResult } from './field-result.ts';
export type { TotalCheck } from './total-checks.ts';
export { applyValidations, type ValidationProblem } from './field-validations.ts';

export interface FieldExtraction {
  fields: FieldResult[];
  validationProblems: ValidationProblem[];
  /** How the chosen total compares with the page's own arithmetic, when the page prints a check of it. */
  totalCheck?: TotalCheck;
}

export interface ExtractFieldsOptions {
  /** Reuse a layout built for routing. */
  layout?: DocumentLayout;
}

export function extractFields(document: ReadDocument, specification: DocumentTypeSpecification, options: ExtractFieldsOptions = {}): FieldExtraction {
  const context = prepareContext(document, specification, options.layout ?? buildDocumentLayout(document));
  const pool = new CandidatePool(specification);
  addLabelCandidates(context, pool);
  addPatternCandidates(context, pool);
  addRoleEvidence(context, pool);
  const arithmetic: { totalCheck?: TotalCheck } = {};
  const chosen = selectValues(context, pool, arithmetic);
  chooseBuyerFromAddressBlock(context, chosen);
  addTables(context, chosen);
  const validationProblems = applyValidations(specification, chosen);
  return {
    fields: specification.fields.map((field) => chosen.get(field.name) ?? { name: field.name, value: undefined }),
    validationProblems,
    ...(arithmetic.totalCheck ? { totalCheck: arithmetic.totalCheck } : {}),
  };
}

/**
 * The document's tables, read once the totals are chosen (the rows' sum is checked against them), and
 * the line item count as the number of rows of the item table.
 */
function addTables(context: ExtractionContext, chosen: Map<string, FieldResult>): void {
  const tableFields = context.specification.fields.filter((field) => field.type === 'table' && field.columns);
  if (tableFields.length === 0) return;
  const totalsRows = new Set(
    context.labelMatches
      .filter((label) => {
        const role = roleOfLabel(context, label);
        return role !== undefined && TOTALS_ROLES.has(role) && label.atSegmentStart;
      })
      .map((label) => `${label.segment.pageNumber}:${label.segment.rowIndex}`),
  );
  const sums = [fieldOfRole(context, 'net-amount'), fieldOfRole(context, 'total-amount')].flatMap((field) => {
    const value = field ? chosen.get(field.name)?.value : undefined;
    return typeof value === 'number' ? [value] : [];
  });
  const currencyField = fieldOfRole(context, 'currency');
  const currency = currencyField ? chosen.get(currencyField.name)?.value : undefined;
  const wholeUnitMoney = typeof currency === 'string' && WHOLE_UNIT_CURRENCIES.has(currency);
  for (const result of tableFieldResults(context.layout, tableFields, { totalsRows, sums, wholeUnitMoney }, fieldOfRole(context, 'line-item-count')?.name)) chosen.set(result.name, result);
}

/**
 * Currencies whose prices are printed without cents: ISO 4217 gives yen, won, dong, the Chilean and
 * Colombian pesos and the Icelandic krona no minor unit in use, and rupiah and forint prices are whole
 * numbers in practice (Indonesian tills print "22.000").
 */
const WHOLE_UNIT_CURRENCIES = new Set(['IDR', 'JPY', 'KRW', 'VND', 'CLP', 'COP', 'ISK', 'HUF']);

/** Normalizes an embedded e-invoice value for a field's type; undefined when it does not fit. */
export function embeddedValueFor(field: FieldSpecification, raw: string | number): FieldValue | undefined {
  return parseValueOfType(field.type, raw, { ...(field.allowedValues ? { allowedValues: field.allowedValues } : {}) });
}
