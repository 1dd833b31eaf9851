import { newIdentifier } from '../infrastructure/identifiers.ts';
import type { OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import { readOperatorDocument } from '../platform/operator-document-text.ts';
import {
  inDocumentOrder,
  isWorkflowId,
  nestedWorkflowReferences,
  validateWorkflowDefinition,
  type DefinitionParseResult,
  type DefinitionProblem,
  type DefinitionRules,
} from './workflow-definition.ts';
import type { WorkflowStore } from './workflow-store.ts';

// Reading an operator's text (YAML) lives here, with publishing, rather than in workflow-definition.ts:
// the run engine's functions validate stored definitions and must not bundle the YAML parser.

/** YAML is a superset of JSON, so YAML is the default; pass 'json' for strict JSON. */
export function parseWorkflowDefinition(text: string, format: 'yaml' | 'json' = 'yaml', options: DefinitionRules = {}): DefinitionParseResult {
  const read = readOperatorDocument(text, format);
  if (!read.ok) return read;
  return validateWorkflowDefinition(read.value, options);
}

export type PublishResult = { ok: true; workflowId: string; version: number } | { ok: false; problems: DefinitionProblem[] };

/** Well under DynamoDB's 400 KB item, which holds the text and the parsed definition. */
export const maximumDefinitionCharacters = 150_000;

export interface PublishOptions {
  /** The outbound rules literal URLs must pass: the stack's own (configuredUrlPolicy), as its runs apply them. */
  urlPolicy: OutboundUrlPolicy;
}

/**
 * Validates a definition and publishes it as the next version of its `id` (or as a new workflow).
 * Nothing is written when there is any problem; every problem is told at once, a `for_each` naming a
 * workflow the workspace does not have among the others.
 */
export async function publishWorkflow(
  store: WorkflowStore,
  workspaceId: string,
  source: string,
  format: 'yaml' | 'json',
  options: PublishOptions,
): Promise<PublishResult> {
  if (source.length > maximumDefinitionCharacters) {
    return { ok: false, problems: [{ path: '', message: `is longer than ${maximumDefinitionCharacters} characters` }] };
  }
  const read = readOperatorDocument(source, format);
  if (!read.ok) return read;
  const validated = validateWorkflowDefinition(read.value, { urlPolicy: options.urlPolicy });
  const ownId = (read.value as { id?: unknown } | null)?.id;
  const problems: DefinitionProblem[] = validated.ok ? [] : [...validated.problems];
  for (const reference of nestedWorkflowReferences(read.value)) {
    // A workflow may run itself per item: its own id exists once this version is stored.
    if (typeof ownId === 'string' && isWorkflowId(ownId) && reference.workflowId === ownId) continue;
    if (!(await store.get(workspaceId, reference.workflowId))) {
      problems.push({ path: reference.path, message: `workflow "${reference.workflowId}" is not published in workspace ${workspaceId}` });
    }
  }
  if (!validated.ok || problems.length > 0) return { ok: false, problems: inDocumentOrder(problems) };
  const workflowId = validated.definition.id ?? newIdentifier('wf');
  const stored = await store.publish(workspaceId, workflowId, validated.definition, source);
  return { ok: true, workflowId, version: stored.version };
}
