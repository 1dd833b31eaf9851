// Published workflows: the port the publisher, the run service and the engine use
// (aws/dynamodb-workflow-store.ts on the stack, test/support/memory/workflows.ts in unit tests).

import type { WorkflowDefinition } from './workflow-definition.ts';

export const workflowStatuses = ['enabled', 'disabled'] as const;
export type WorkflowStatus = (typeof workflowStatuses)[number];

export interface Workflow {
  id: string;
  workspaceId: string;
  name: string;
  description?: string;
  latestVersion: number;
  status: WorkflowStatus;
  createdAt: string;
  updatedAt: string;
}

export interface WorkflowVersion {
  workflowId: string;
  version: number;
  definition: WorkflowDefinition;
  /** The text as published (YAML or JSON). */
  source: string;
  publishedAt: string;
}

/** Published workflow definitions of a workspace, one immutable version per publish. */
export interface WorkflowStore {
  /**
   * Stores the definition as the next version of `workflowId` (1 for a new workflow, enabled); of two
   * concurrent publishes each gets its own number. A later version keeps the status an operator set.
   */
  publish(workspaceId: string, workflowId: string, definition: WorkflowDefinition, source: string): Promise<WorkflowVersion>;
  get(workspaceId: string, workflowId: string): Promise<Workflow | undefined>;
  /** The newest version: the source of truth, also if a publish stopped before its record update. */
  latestVersion(workspaceId: string, workflowId: string): Promise<WorkflowVersion | undefined>;
  /** The workspace's workflows in id order. */
  list(workspaceId: string): Promise<Workflow[]>;
  /** Returns the updated workflow, or undefined when the workspace has no such workflow. */
  setStatus(workspaceId: string, workflowId: string, status: WorkflowStatus): Promise<Workflow | undefined>;
}
