import type { StateMachineDefinition, TriggerDefinition } from '../platform/trigger-table.ts';
import { extractionSweeper, extractionTasks } from '../extractions/triggers.ts';
import { uploadedFileFinalizer } from '../files/triggers.ts';
import { eventOutboxDrain, expiredEventPurge } from '../events/triggers.ts';
import { heldDeliverySweeper, webhookDeliveryConsumer } from '../webhooks/triggers.ts';
import { workflowRunSweeper, workflowRunTasks } from '../workflows/triggers.ts';

// The manifest of every non-HTTP entry point: the one place that assembles the feature modules' rows.
// lib/triggers.ts deploys them, src/local/local-triggers.ts serves them locally, and the bundle checks
// (bench/handler-bundles.ts, test/infra) bundle their handlers. docs/platform.md says where a new
// consumer, schedule or task goes.

/** The state machines, each from its ASL file; their `${Placeholders}` are filled by the task rows. */
export const stateMachines: StateMachineDefinition[] = [
  { name: 'extraction', definitionFile: 'statemachines/extraction.asl.json' },
  { name: 'workflowRun', definitionFile: 'statemachines/workflow-run.asl.json' },
];

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
