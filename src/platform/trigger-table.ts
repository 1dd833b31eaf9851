import type { QueueName, ResourceAccess, StateMachineName } from './resource-access.ts';

// One typed table of every entry point that is not an HTTP route: state-machine tasks, schedules,
// bucket notifications and queue consumers. Like the route table beside it (src/platform/route-table.ts),
// it drives the CDK stack (lib/triggers.ts: one function per row with exactly the grants its row
// names), the local stack (src/local/local-triggers.ts: a runner per kind) and the bundle checks.
// Adding a consumer, a schedule or a task is one row (assembled in src/manifest/triggers.ts) plus
// one handler file.

/** Function settings a row may change; the defaults live in lib/paperflow-function.ts. */
export interface FunctionSettings {
  memorySize?: number;
  /** Deployed, the function's timeout; locally, what the handler's context reports as remaining. */
  timeoutSeconds?: number;
  /** Packages shipped as node_modules beside the bundle (native addons, data files); see PaperflowFunction. */
  nodeModules?: string[];
  /** Defaults to arm64, or x86_64 with nodeModules (their addons are the ones installed here). */
  architecture?: 'arm64' | 'x86_64';
}

interface TriggerRow extends FunctionSettings {
  /** Unique among triggers; names the function (`sweepStuckExtractions` → SweepStuckExtractions). */
  name: string;
  /** Module exporting `handler`, relative to the repository root. */
  handler: string;
  description: string;
  /** AWS resources the handler uses; omitted means none. */
  access?: ResourceAccess;
}

/** A Task of a state machine: the function whose ARN fills `${placeholder}` in the ASL file. */
export interface StateMachineTaskTrigger extends TriggerRow {
  kind: 'stateMachineTask';
  stateMachine: StateMachineName;
  placeholder: string;
}

/** A function run on a fixed rate: an EventBridge rule deployed, an interval locally. */
export interface ScheduleTrigger extends TriggerRow {
  kind: 'schedule';
  everyMinutes: number;
  /** Locally the rate is configuration: tests and laptops want another pace than production. */
  localInterval: { environmentVariable: string; defaultSeconds: number };
}

/** A function S3 invokes for new objects under a key prefix (locally: the S3 emulator's events). */
export interface BucketNotificationTrigger extends TriggerRow {
  kind: 'bucketNotification';
  bucket: 'files';
  event: 'objectCreated';
  keyPrefix: string;
}

/**
 * A function fed by a queue through Lambda's SQS event source mapping: batches of up to `batchSize`
 * messages, gathered for up to `maximumBatchingWindowSeconds`. With `reportBatchItemFailures` the
 * handler answers `{ batchItemFailures }` and only those messages come back after their visibility
 * timeout; the rest are deleted. A thrown handler leaves the whole batch.
 */
export interface QueueConsumerTrigger extends TriggerRow {
  kind: 'queueConsumer';
  queue: QueueName;
  batchSize: number;
  maximumBatchingWindowSeconds: number;
  reportBatchItemFailures: boolean;
  /**
   * How many batches run at once: the event source mapping's maximum concurrency deployed (2-1000),
   * the number of pollers locally. Without it Lambda scales on its own and the local stack runs 5,
   * the pollers Lambda starts with.
   */
  maximumConcurrency?: number;
}

export type TriggerDefinition = StateMachineTaskTrigger | ScheduleTrigger | BucketNotificationTrigger | QueueConsumerTrigger;

/** A state machine whose ASL file is the source of truth; its task rows fill its placeholders. */
export interface StateMachineDefinition {
  name: StateMachineName;
  /** Relative to the repository root, e.g. `statemachines/extraction.asl.json`. */
  definitionFile: string;
}

export function triggersOfKind<Kind extends TriggerDefinition['kind']>(
  triggers: readonly TriggerDefinition[],
  kind: Kind,
): Extract<TriggerDefinition, { kind: Kind }>[] {
  return triggers.filter((trigger): trigger is Extract<TriggerDefinition, { kind: Kind }> => trigger.kind === kind);
}

/** The task rows of one state machine. */
export function tasksOf(stateMachine: StateMachineName, triggers: readonly TriggerDefinition[]): StateMachineTaskTrigger[] {
  return triggersOfKind(triggers, 'stateMachineTask').filter((task) => task.stateMachine === stateMachine);
}

/**
 * What the row's function may touch: its declared access and, for a queue consumer, consuming its
 * own queue, which the event source mapping needs (and still sending to it when the row says so).
 */
export function effectiveAccess(trigger: TriggerDefinition): ResourceAccess {
  if (trigger.kind !== 'queueConsumer') return trigger.access ?? {};
  const sendsToOwnQueue = trigger.access?.queues?.[trigger.queue] === 'send';
  return { ...trigger.access, queues: { ...trigger.access?.queues, [trigger.queue]: sendsToOwnQueue ? 'consumeAndSend' : 'consume' } };
}
