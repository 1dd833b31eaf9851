// The document types a workspace extracts, as the one specification shape the field finder uses:
// prebuilt types with their overrides, custom types from the configuration.

import type { CustomDocumentTypeConfiguration, ExtractionConfiguration } from './configuration/extraction-configuration-schema.ts';
import type { DocumentTypeSpecification, FieldSpecification } from './fields/field-specification.ts';
import { prebuiltSpecification } from './prebuilt/prebuilt-document-types.ts';

function customSpecification(configuration: CustomDocumentTypeConfiguration): DocumentTypeSpecification {
  return {
    docType: configuration.docType,
    keywords: configuration.keywords,
    ...(configuration.mediaTypes ? { mediaTypes: configuration.mediaTypes } : {}),
    ...(configuration.languages ? { languages: configuration.languages } : {}),
    duplicatePolicy: configuration.duplicatePolicy,
    validations: configuration.validations,
    distractorLabels: {},
    fields: configuration.fields.map(
      (field): FieldSpecification => ({
        name: field.name,
        type: field.type,
        required: field.required,
        labels: field.labels,
        // The schema only accepts patterns that compile in unicode mode.
        patterns: field.patterns.map((pattern) => new RegExp(pattern, 'u')),
        ...(field.values ? { allowedValues: field.values } : {}),
        ...(field.type === 'string' ? { shape: 'text' as const } : {}),
        ...(field.columns ? { columns: field.columns.map((column) => ({ name: column.name, type: column.type, headerLabels: column.headerLabels, ...(column.role ? { role: column.role } : {}) })) } : {}),
      }),
    ),
  };
}

export function documentTypeSpecifications(configuration: ExtractionConfiguration): DocumentTypeSpecification[] {
  return configuration.documentTypes.map((documentType) =>
    'prebuilt' in documentType ? prebuiltSpecification(documentType) : customSpecification(documentType),
  );
}
