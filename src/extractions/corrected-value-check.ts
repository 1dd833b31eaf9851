// Apart from field-corrections.ts, which the delivery queue's consumer bundles (document_insights
// steps read reviewed values), and from extraction-service.ts, which every extraction handler bundles:
// only the feedback handler needs the engine's field definitions (value parsers, label tables).
import { checkCorrectedValue, type CorrectedValueIssue, type ExtractionConfiguration } from '../extraction-engine/index.ts';
import { ValidationError } from '../platform/errors.ts';
import type { ExtractedField, ExtractionOutput } from './extraction.ts';

/**
 * The corrected value checked against the field's type in the workspace's configuration, normalized
 * as the engine writes that type; a value that does not fit is a 422 whose details point into it
 * (`correctedValue[2].amount`).
 */
export function checkedCorrectedValue(
  configuration: ExtractionConfiguration,
  output: Pick<ExtractionOutput, 'docType'>,
  field: Pick<ExtractedField, 'name' | 'type'>,
  value: unknown,
): unknown {
  const checked = checkCorrectedValue(configuration, { docType: output.docType, name: field.name, type: field.type }, value);
  if (checked.ok) return checked.value;
  throw new ValidationError(checked.issues.map((issue) => ({ field: correctedValuePath(issue.path), issue: issue.issue })));
}

/** Checks a corrected value in the configuration the workspace has in force; what the feedback route's service is given. */
export type CorrectedValueChecker = (
  workspaceId: string,
  output: Pick<ExtractionOutput, 'docType'>,
  field: Pick<ExtractedField, 'name' | 'type'>,
  value: unknown,
) => Promise<unknown>;

export function correctedValueChecker(configurationOf: (workspaceId: string) => Promise<ExtractionConfiguration>): CorrectedValueChecker {
  return async (workspaceId, output, field, value) => checkedCorrectedValue(await configurationOf(workspaceId), output, field, value);
}

function correctedValuePath(path: CorrectedValueIssue['path']): string {
  return path.reduce<string>((joined, key) => (typeof key === 'number' ? `${joined}[${key}]` : `${joined}.${key}`), 'correctedValue');
}
