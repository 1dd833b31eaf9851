import { publishWorkflow, type PublishResult } from '../workflows/workflow-publishing.ts';
import { configuredUrlPolicy } from './configuration.ts';
import { workflowStore } from './workflow-reads.ts';

// Apart from workflows.ts: publishing reads an operator's YAML, and the run engine's functions, which
// build from workflows.ts, must not bundle the YAML parser.

/**
 * Publishes a definition into a workspace (the admin CLI, the demo data, the benches and tests): the
 * literal URLs of its steps pass the stack's own outbound policy, as its runs will apply it.
 */
export function publishWorkflowDefinition(workspaceId: string, source: string, format: 'yaml' | 'json'): Promise<PublishResult> {
  return publishWorkflow(workflowStore(), workspaceId, source, format, { urlPolicy: configuredUrlPolicy() });
}
