// The workspace extraction configuration: the single zod source from which the TypeScript types and
// the shipped JSON Schema (schemas/extraction-configuration.schema.json) are both derived.

import * as z from 'zod';
import { TABLE_COLUMN_TYPES } from '../fields/table-specification.ts';
import { FIELD_TYPES } from '../values/field-value.ts';

export const PREBUILT_DOCUMENT_TYPES = ['invoice', 'receipt'] as const;
export type PrebuiltDocumentType = (typeof PREBUILT_DOCUMENT_TYPES)[number];

const identifierName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be lowercase letters, digits and underscores, starting with a letter');

const languageCode = z.string().regex(/^[a-z]{2}$/, 'must be an ISO 639-1 language code such as "en" or "de"');

const wordsPerLanguage = z
  .record(languageCode, z.array(z.string().trim().min(1)).min(1))
  .describe('Words or phrases per ISO 639-1 language code.');

function compilesAsRegularExpression(source: string): boolean {
  try {
    new RegExp(source, 'u');
    return true;
  } catch {
    return false;
  }
}

export interface RuleProblem {
  path: PropertyKey[];
  message: string;
}

type LooseRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is LooseRecord => value !== null && typeof value === 'object' && !Array.isArray(value);

// Rules across properties are written over loosely typed input so that they can also report on a
// configuration that has other, unrelated problems: the operator sees every problem at once.

/** Cross-property rules of one field definition. */
export function fieldDefinitionProblems(field: unknown): RuleProblem[] {
  if (!isRecord(field)) return [];
  const problems: RuleProblem[] = [];
  if (field.type === 'enum' && field.values === undefined) problems.push({ path: ['values'], message: 'is required for an enum field' });
  if (field.type !== 'enum' && field.values !== undefined) problems.push({ path: ['values'], message: 'is only allowed for an enum field' });
  if (field.type === 'table') {
    // A table is found by its header and rows, not after a label.
    if (field.columns === undefined) problems.push({ path: ['columns'], message: 'is required for a table field' });
    if (Array.isArray(field.columns)) {
      const names = new Set<unknown>();
      field.columns.forEach((column: unknown, index) => {
        if (!isRecord(column)) return;
        if (names.has(column.name)) problems.push({ path: ['columns', index, 'name'], message: `duplicates column "${String(column.name)}"` });
        names.add(column.name);
      });
    }
    return problems;
  }
  if (field.columns !== undefined) problems.push({ path: ['columns'], message: 'is only allowed for a table field' });
  const hasLabels = isRecord(field.labels) && Object.keys(field.labels).length > 0;
  const hasPatterns = Array.isArray(field.patterns) && field.patterns.length > 0;
  if (!hasLabels && !hasPatterns) problems.push({ path: ['labels'], message: 'a field needs labels or patterns to be found' });
  return problems;
}

const numericTypes = new Set(['number', 'amount', 'integer']);
const dateTypes = new Set(['date', 'datetime']);

/** Field names must be unique and validations must name fields of a fitting type. */
export function documentTypeReferenceProblems(documentType: unknown): RuleProblem[] {
  if (!isRecord(documentType) || !Array.isArray(documentType.fields)) return [];
  const problems: RuleProblem[] = [];
  const fieldTypes = new Map<string, unknown>();
  documentType.fields.forEach((field: unknown, index) => {
    if (!isRecord(field) || typeof field.name !== 'string') return;
    if (fieldTypes.has(field.name)) problems.push({ path: ['fields', index, 'name'], message: `duplicates field "${field.name}"` });
    fieldTypes.set(field.name, field.type);
  });
  const validations = Array.isArray(documentType.validations) ? documentType.validations : [];
  validations.forEach((validation: unknown, index) => {
    if (!isRecord(validation)) return;
    const references: { name: unknown; path: PropertyKey[] }[] =
      validation.rule === 'sum'
        ? [
            ...(Array.isArray(validation.fields) ? validation.fields : []).map((name: unknown, position: number) => ({ name, path: ['fields', position] })),
            { name: validation.equals, path: ['equals'] },
          ]
        : validation.rule === 'before'
          ? [{ name: validation.field, path: ['field'] }, { name: validation.other, path: ['other'] }]
          : [];
    const expected = validation.rule === 'sum' ? numericTypes : dateTypes;
    for (const reference of references) {
      if (typeof reference.name !== 'string') continue;
      const path = ['validations', index, ...reference.path];
      const type = fieldTypes.get(reference.name);
      if (!fieldTypes.has(reference.name)) {
        problems.push({ path, message: `refers to unknown field "${reference.name}"` });
      } else if (typeof type === 'string' && (FIELD_TYPES as readonly string[]).includes(type) && !expected.has(type)) {
        problems.push({ path, message: `field "${reference.name}" has type ${type}; rule ${String(validation.rule)} needs ${[...expected].join(' or ')}` });
      }
    }
  });
  return problems;
}

const tableColumnSchema = z
  .object({
    name: identifierName.describe('Key of the column in each row of the value.'),
    type: z.enum(TABLE_COLUMN_TYPES).describe('string, number, amount, integer, percent (the number before %) or date (ISO).'),
    headerLabels: wordsPerLanguage.describe('Words of the column header per language; a header row is the row that names most columns.'),
    role: z
      .enum(['description', 'line-total', 'quantity', 'unit', 'unit-price'])
      .optional()
      .describe('line-total (else quantity) marks a row: each line that prints it starts one; description takes wrapped lines; quantity × unit-price is checked against line-total.'),
  })
  .strict();

export const fieldDefinitionSchema = z
  .object({
    name: identifierName.describe('Field name in the extraction result.'),
    type: z.enum(FIELD_TYPES).describe('Value type; decides parsing and the normalized output format.'),
    required: z.boolean().default(false).describe('A missing or invalid required field fails the extraction.'),
    labels: wordsPerLanguage.default({}).describe('Anchors printed next to the value (right of it or above it).'),
    patterns: z
      .array(z.string().min(1).refine(compilesAsRegularExpression, 'is not a valid regular expression'))
      .default([])
      .describe('Regular expressions (JavaScript, unicode mode) the value must match; capture group 1 is the value when present. Without labels they are searched in the whole document.'),
    values: z.array(z.string().min(1)).min(1).optional().describe('Allowed values of an enum field.'),
    columns: z.array(tableColumnSchema).min(1).optional().describe('The columns of a table field (required for type table): the value is a list of rows, one object per row.'),
    description: z.string().optional(),
  })
  .strict()
  .superRefine((field, context) => {
    for (const problem of fieldDefinitionProblems(field)) context.addIssue({ code: 'custom', ...problem });
  });

const sumValidationSchema = z
  .object({
    rule: z.literal('sum'),
    fields: z.array(identifierName).min(2),
    equals: identifierName,
    tolerance: z.number().nonnegative().default(0.01),
  })
  .strict()
  .describe('The listed numeric fields add up to `equals`, within `tolerance`.');

const beforeValidationSchema = z
  .object({
    rule: z.literal('before'),
    field: identifierName,
    other: identifierName,
    allowEqual: z.boolean().default(true),
  })
  .strict()
  .describe('Date `field` is before (or on, with allowEqual) date `other`.');

export const validationSchema = z.discriminatedUnion('rule', [sumValidationSchema, beforeValidationSchema]);

const duplicatePolicySchema = z
  .enum(['reject', 'allow'])
  .describe('reject: a document with the same SHA-256 as an earlier extraction in the workspace is REJECTED.');

export const prebuiltDocumentTypeSchema = z
  .object({
    prebuilt: z.enum(PREBUILT_DOCUMENT_TYPES),
    languages: z.array(languageCode).min(1).optional().describe('Accepted document languages; default: all the prebuilt type knows.'),
    duplicatePolicy: duplicatePolicySchema.default('allow'),
  })
  .strict();

export const customDocumentTypeSchema = z
  .object({
    docType: identifierName.describe('Name of the document type, used by labels.docType and in results.'),
    keywords: wordsPerLanguage.default({}).describe('Routing hints: words that identify this type of document.'),
    mediaTypes: z.array(z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'must be a media type like application/pdf')).optional(),
    fields: z.array(fieldDefinitionSchema).min(1),
    validations: z.array(validationSchema).default([]),
    languages: z.array(languageCode).min(1).optional().describe('Accepted document languages; default: any.'),
    duplicatePolicy: duplicatePolicySchema.default('allow'),
  })
  .strict()
  .superRefine((documentType, context) => {
    for (const problem of documentTypeReferenceProblems(documentType)) context.addIssue({ code: 'custom', ...problem });
  });

export const documentTypeSchema = z.union([prebuiltDocumentTypeSchema, customDocumentTypeSchema]);

export const extractionConfigurationSchema = z
  .object({
    version: z.literal(1).default(1),
    documentTypes: z.array(documentTypeSchema).min(1),
  })
  .strict()
  .superRefine((configuration, context) => {
    const seen = new Set<string>();
    configuration.documentTypes.forEach((documentType, index) => {
      const name = 'prebuilt' in documentType ? documentType.prebuilt : documentType.docType;
      if (seen.has(name)) context.addIssue({ code: 'custom', path: ['documentTypes', index], message: `document type "${name}" is defined twice` });
      seen.add(name);
    });
  })
  .meta({
    title: 'Paperflow workspace extraction configuration',
    description: 'Document types a workspace extracts: prebuilt invoice/receipt and custom types with their fields.',
  });

export type ExtractionConfiguration = z.output<typeof extractionConfigurationSchema>;
export type ExtractionConfigurationInput = z.input<typeof extractionConfigurationSchema>;
export type DocumentTypeConfiguration = z.output<typeof documentTypeSchema>;
export type CustomDocumentTypeConfiguration = z.output<typeof customDocumentTypeSchema>;
export type PrebuiltDocumentTypeConfiguration = z.output<typeof prebuiltDocumentTypeSchema>;
export type FieldDefinition = z.output<typeof fieldDefinitionSchema>;
export type TableColumnDefinition = z.output<typeof tableColumnSchema>;
export type FieldValidation = z.output<typeof validationSchema>;
export type DuplicatePolicy = z.output<typeof duplicatePolicySchema>;

/** The JSON Schema shipped in the repository, generated from the zod schema above. */
export function extractionConfigurationJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(extractionConfigurationSchema, { io: 'input' }) as Record<string, unknown>;
}
