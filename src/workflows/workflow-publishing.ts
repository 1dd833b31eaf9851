import { newIdentifier } from '../infrastructure/identifiers.ts';
import { nestedWorkflowReferences, parseWorkflowDefinition, type DefinitionProblem } from './workflow-definition.ts';
import type { WorkflowStore } from './workflow-store.ts';

export type PublishResult = { ok: true; workflowId: string; version: number } | { ok: false; problems: DefinitionProblem[] };

/** Well under DynamoDB's 400 KB item, which holds the text and the parsed definition. */
export const maximumDefinitionCharacters = 150_000;

/**
 * Validates a definition and publishes it as the next version of its `id` (or as a new workflow).
 * Nothing is written when there is any problem, including a `for_each` naming a workflow the
 * workspace does not have.
 */
export async function publishWorkflow(store: WorkflowStore, workspaceId: string, source: string, format: 'yaml' | 'json'): Promise<PublishResult> {
  if (source.length > maximumDefinitionCharacters) {
    return { ok: false, problems: [{ path: '', message: `is longer than ${maximumDefinitionCharacters} characters` }] };
  }
  const parsed = parseWorkflowDefinition(source, format);
  if (!parsed.ok) return parsed;
  const workflowId = parsed.definition.id ?? newIdentifier('wf');
  const problems: DefinitionProblem[] = [];
  for (const reference of nestedWorkflowReferences(parsed.definition)) {
    // A workflow may run itself per item: its own id exists once this version is stored.
    if (reference.workflowId === workflowId) continue;
    if (!(await store.get(workspaceId, reference.workflowId))) {
      problems.push({ path: reference.path, message: `workflow "${reference.workflowId}" is not published in workspace ${workspaceId}` });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const stored = await store.publish(workspaceId, workflowId, parsed.definition, source);
  return { ok: true, workflowId, version: stored.version };
}
