import type { StateMachineDefinition, TriggerDefinition } from '../platform/trigger-table.ts';
import { resourcesOfKind } from '../platform/resource-table.ts';
import { resources } from './resources.ts';
import { extractionSweeper, extractionTasks } from '../extractions/triggers.ts';
import { uploadedFileFinalizer } from '../files/triggers.ts';
import { eventOutboxDrain, expiredEventPurge } from '../events/triggers.ts';
import { heldDeliverySweeper, webhookDeliveryConsumer } from '../webhooks/triggers.ts';
import { workflowRunSweeper, workflowRunTasks } from '../workflows/triggers.ts';

// The manifest of every non-HTTP entry point: the one place that assembles the feature modules' rows.
// lib/triggers.ts deploys them, src/local/local-triggers.ts serves them locally, and the bundle checks
// (bench/handler-bundles.ts, test/infra) bundle their handlers. docs/platform.md says where a new
// consumer, schedule or task goes.

/**
 * The state machines, each from its ASL file; their `${Placeholders}` are filled by the task rows.
 * They are rows of the resource table (src/manifest/resources.ts), listed here beside their tasks.
 */
export const stateMachines: StateMachineDefinition[] = resourcesOfKind(resources, 'stateMachine');

export const triggers: TriggerDefinition[] = [
  ...extractionTasks,
  extractionSweeper,
  uploadedFileFinalizer,
  eventOutboxDrain,
  expiredEventPurge,
  webhookDeliveryConsumer,
  heldDeliverySweeper,
  ...workflowRunTasks,
  workflowRunSweeper,
];
