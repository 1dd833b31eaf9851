import type { S3Event } from 'aws-lambda';
import { sqsClient } from '../infrastructure/sqs-client.ts';
import { logger, withLogContext } from '../infrastructure/logger.ts';
import type { QueueName } from '../platform/resource-access.ts';
import type { StateMachineResource } from '../platform/resource-table.ts';
import { effectiveAccess, tasksOf, triggersOfKind, type TriggerDefinition } from '../platform/trigger-table.ts';
import { triggerContext, type LocalInvoker } from './local-invoker.ts';
import { startLocalQueueConsumer } from './local-queue-consumers.ts';
import { startLocalStepFunctions, type RunningLocalStepFunctions } from './local-step-functions.ts';

// What the deployed stack gets from Step Functions, EventBridge, S3 notifications and SQS event source
// mappings, locally and from the same trigger rows (src/manifest/triggers.ts): a runner per kind, each
// invoking the row's handler module through the one local invoker.

export interface LocalTriggersOptions {
  projectRoot: string;
  invoker: LocalInvoker;
  /** The resource table's state machine rows: each served, its ARN set in the row's variable. */
  stateMachines: readonly StateMachineResource[];
  triggers: readonly TriggerDefinition[];
  /** The provisioned queues' URLs, by the names rows use. */
  queueUrls: Partial<Record<QueueName, string>>;
  /** Where the local Step Functions records started executions, so that a restart resumes them. */
  executionJournalDirectory?: string;
  /** The port the local Step Functions endpoint listened on at the last start. */
  stepFunctionsPort?: number;
  /** False leaves out the check of the state machines' definitions (LocalStepFunctionsOptions). */
  validateStateMachineDefinitions?: boolean;
}

export interface RunningLocalTriggers {
  stepFunctions: RunningLocalStepFunctions;
  /** Stops the schedules and queue consumers, waits for their invocations, then the executions. */
  close(): Promise<void>;
}

/**
 * Starts the state machines (behind a local SFN endpoint that handlers reach through
 * AWS_ENDPOINT_URL_SFN and the same ARN variables as deployed), the schedules and the queue consumers.
 * Bucket notifications come from the S3 emulator, which starts earlier: see `localBucketNotifications`.
 */
export async function startLocalTriggers(options: LocalTriggersOptions): Promise<RunningLocalTriggers> {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const stepFunctions = await startLocalStateMachines(options, region);
  const schedules = triggersOfKind(options.triggers, 'schedule').map((schedule) => startLocalSchedule(schedule, options.invoker, region));
  const consumers = triggersOfKind(options.triggers, 'queueConsumer').map((consumer) =>
    startLocalQueueConsumer(consumer, { invoker: options.invoker, client: sqsClient(), queueUrl: queueUrlOf(options.queueUrls, consumer.queue), region }),
  );
  return {
    stepFunctions,
    async close() {
      await Promise.all([...schedules, ...consumers].map((runner) => runner.close()));
      await stepFunctions.close();
    },
  };
}

async function startLocalStateMachines(options: LocalTriggersOptions, region: string): Promise<RunningLocalStepFunctions> {
  // Compresses every Retry interval in tests (DESIGN.md, Time in tests).
  const retryInterval = Number(process.env.PAPERFLOW_LOCAL_RETRY_INTERVAL_MS);
  const stepFunctions = await startLocalStepFunctions({
    projectRoot: options.projectRoot,
    stateMachines: options.stateMachines.map((machine) => ({ name: machine.name, definitionFile: machine.definitionFile, tasks: tasksOf(machine.name, options.triggers) })),
    invoker: options.invoker,
    ...(Number.isFinite(retryInterval) && retryInterval >= 0 && process.env.PAPERFLOW_LOCAL_RETRY_INTERVAL_MS !== '' ? { retryIntervalMs: retryInterval } : {}),
    waitTimeScale: Number(process.env.PAPERFLOW_LOCAL_WAIT_TIME_SCALE || 1),
    region,
    ...(options.executionJournalDirectory ? { executionJournalDirectory: options.executionJournalDirectory } : {}),
    ...(options.stepFunctionsPort ? { preferredPort: options.stepFunctionsPort } : {}),
    ...(options.validateStateMachineDefinitions === false ? { validateDefinitions: false } : {}),
  });
  process.env.AWS_ENDPOINT_URL_SFN = stepFunctions.endpoint;
  for (const machine of options.stateMachines) process.env[machine.environmentVariable] = stepFunctions.stateMachineArns[machine.name]!;
  return stepFunctions;
}

/**
 * A schedule row on an interval from configuration (its `localInterval` variable, in seconds). A run
 * still going when the next is due is not overlapped, as a slow sweep should not pile up.
 */
function startLocalSchedule(schedule: Extract<TriggerDefinition, { kind: 'schedule' }>, invoker: LocalInvoker, region: string) {
  const configured = Number(process.env[schedule.localInterval.environmentVariable] ?? schedule.localInterval.defaultSeconds);
  const intervalSeconds = Number.isFinite(configured) ? configured : schedule.localInterval.defaultSeconds;
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    const event = scheduledEvent(schedule.name, region);
    running = withLogContext({ schedule: schedule.name, scheduledEventId: event.id }, () => invoker.invoke({ handler: schedule.handler, access: effectiveAccess(schedule) }, event, triggerContext(schedule, region, event.id)))
      .catch((error: unknown) => logger.error('scheduled run failed', { schedule: schedule.name, error }))
      .finally(() => (running = undefined));
  }, Math.max(1, intervalSeconds) * 1000);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * The bucket notification rows, fed by the S3 emulator's ObjectCreated events: each row's handler
 * gets the records under its prefix, in the background as S3 invokes it. `settled()` waits for
 * invocations in flight so stopping never cuts one off.
 */
export function localBucketNotifications(triggers: readonly TriggerDefinition[], invoker: LocalInvoker) {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const notifications = triggersOfKind(triggers, 'bucketNotification').filter((row) => row.bucket === 'files' && row.event === 'objectCreated');
  const inFlight = new Set<Promise<void>>();
  return {
    deliver(event: S3Event) {
      for (const notification of notifications) {
        const records = event.Records.filter((record) => record.s3.object.key.startsWith(notification.keyPrefix));
        if (records.length === 0) continue;
        const invocation = withLogContext({ notification: notification.name }, () =>
          invoker.invoke({ handler: notification.handler, access: effectiveAccess(notification) }, { Records: records }, triggerContext(notification, region)),
        )
          .then(() => undefined)
          .catch((error: unknown) => logger.error('object-created handler failed', { notification: notification.name, error }))
          .finally(() => inFlight.delete(invocation));
        inFlight.add(invocation);
      }
    },
    async settled() {
      await Promise.allSettled([...inFlight]);
    },
  };
}

// What EventBridge sends a rule's Lambda target.
function scheduledEvent(ruleName: string, region: string) {
  return {
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region,
    resources: [`arn:aws:events:${region}:000000000000:rule/paperflow-local-${ruleName}`],
    detail: {},
  };
}

/** A consumer row's queue, which the resource table must have (a row naming another fails the start). */
function queueUrlOf(queueUrls: Partial<Record<QueueName, string>>, queue: QueueName): string {
  const url = queueUrls[queue];
  if (!url) throw new Error(`A queue consumer row names the queue ${queue}, which the resource table (src/manifest/resources.ts) lacks.`);
  return url;
}
