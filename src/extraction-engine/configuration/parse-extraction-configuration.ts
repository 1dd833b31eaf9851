// Validates a workspace extraction configuration, reporting every problem with its location so an
// operator can fix the file in one pass. Reading the operator's YAML or JSON text is configuration-text.ts.

import type { z } from 'zod';
import { formatDocumentPath, problemsFromZodIssues, type DocumentProblem } from '../../platform/operator-documents.ts';
import {
  customDocumentTypeSchema,
  documentTypeReferenceProblems,
  extractionConfigurationSchema,
  fieldDefinitionProblems,
  prebuiltDocumentTypeSchema,
  type DuplicatePolicy,
  type ExtractionConfiguration,
} from './extraction-configuration-schema.ts';

export type ConfigurationProblem = DocumentProblem;

export type ConfigurationParseResult =
  | { ok: true; configuration: ExtractionConfiguration }
  | { ok: false; problems: ConfigurationProblem[] };

function problemsFromIssues(issues: readonly z.core.$ZodIssue[], input: unknown, basePath: readonly PropertyKey[] = []): ConfigurationProblem[] {
  return problemsFromZodIssues(
    issues,
    input,
    (_issue, element, path) => {
      // A document type is prebuilt or custom; report the problems of the kind the author meant,
      // told by the presence of the "prebuilt" key, rather than zod's generic "Invalid input".
      const intended = element && typeof element === 'object' && 'prebuilt' in element ? prebuiltDocumentTypeSchema : customDocumentTypeSchema;
      const result = intended.safeParse(element);
      return result.success ? undefined : problemsFromIssues(result.error.issues, element, path);
    },
    basePath,
  );
}

/**
 * Checks a configuration already read into a value (a stored one, or an operator's file read by
 * configuration-text.ts), reporting every problem with its location.
 */
export function checkExtractionConfiguration(value: unknown): ConfigurationParseResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problems: [{ path: '', message: 'must be an object with a documentTypes list' }] };
  }
  const result = extractionConfigurationSchema.safeParse(value);
  if (result.success) return { ok: true, configuration: result.data };
  const problems = problemsFromIssues(result.error.issues, value);
  problems.push(...looseRuleProblems(value));
  const unique = new Map(problems.map((problem) => [`${problem.path}\u0000${problem.message}`, problem]));
  return { ok: false, problems: [...unique.values()] };
}

// zod skips refinements of objects that failed their shape; run the cross-property rules anyway.
function looseRuleProblems(input: object): ConfigurationProblem[] {
  const documentTypes = (input as { documentTypes?: unknown }).documentTypes;
  if (!Array.isArray(documentTypes)) return [];
  const problems: ConfigurationProblem[] = [];
  documentTypes.forEach((documentType: unknown, typeIndex) => {
    if (documentType === null || typeof documentType !== 'object' || 'prebuilt' in documentType) return;
    const base = ['documentTypes', typeIndex];
    for (const problem of documentTypeReferenceProblems(documentType)) {
      problems.push({ path: formatDocumentPath([...base, ...problem.path]), message: problem.message });
    }
    const fields = (documentType as { fields?: unknown }).fields;
    if (!Array.isArray(fields)) return;
    fields.forEach((field: unknown, fieldIndex) => {
      for (const problem of fieldDefinitionProblems(field)) {
        problems.push({ path: formatDocumentPath([...base, 'fields', fieldIndex, ...problem.path]), message: problem.message });
      }
    });
  });
  return problems;
}

/** Enables the prebuilt invoice and receipt types for any language, without duplicate rejection. */
export const defaultExtractionConfiguration: ExtractionConfiguration = extractionConfigurationSchema.parse({
  documentTypes: [{ prebuilt: 'invoice' }, { prebuilt: 'receipt' }],
});

/** Whether a document type rejects repeated content; the service layer does the SHA-256 lookup. */
export function duplicatePolicyOf(configuration: ExtractionConfiguration, docType: string): DuplicatePolicy {
  const documentType = configuration.documentTypes.find((candidate) =>
    'prebuilt' in candidate ? candidate.prebuilt === docType : candidate.docType === docType,
  );
  return documentType?.duplicatePolicy ?? 'allow';
}
