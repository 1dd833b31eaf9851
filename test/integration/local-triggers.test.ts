import { GetQueueAttributesCommand, SendMessageBatchCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueConsumerTrigger, ScheduleTrigger } from '../../src/platform/trigger-table.ts';
import { webhookDeliveryConsumer } from '../../src/webhooks/triggers.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { recordedBatches } from '../support/recording-queue-consumer.ts';
import { recordedScheduledEvents } from '../support/recording-schedule.ts';

// The local stack serves trigger rows the way the deployed stack does. The table has no queue consumer
// yet, so this file adds one (and a schedule) of its own: the same machinery webhooks will use. The
// manifest's finalizer notification and extraction tasks are covered by files and extraction tests.

const deliveryConsumer: QueueConsumerTrigger = {
  kind: 'queueConsumer',
  name: 'integrationTestConsumeDeliveries',
  queue: 'webhookDelivery',
  batchSize: 10,
  maximumBatchingWindowSeconds: 1,
  reportBatchItemFailures: true,
  // One poller, so the batch this test sends arrives whole (several pollers would share it out).
  maximumConcurrency: 1,
  handler: 'test/support/recording-queue-consumer.ts',
  description: 'Integration test queue consumer',
};

const recordingSchedule: ScheduleTrigger = {
  kind: 'schedule',
  name: 'integrationTestSchedule',
  handler: 'test/support/recording-schedule.ts',
  description: 'Integration test schedule',
  everyMinutes: 1,
  localInterval: { environmentVariable: 'PAPERFLOW_INTEGRATION_TEST_SCHEDULE_SECONDS', defaultSeconds: 60 },
};

// Failed messages come back after the queue's visibility timeout, shortened to keep the test short;
// still longer than the batching window, as AWS asks of a queue behind an event source mapping.
const visibilityTimeoutSeconds = 3;

let stack: StackUnderTest;
let sqs: SQSClient;
let queueUrl: string;

beforeAll(async () => {
  process.env.PAPERFLOW_INTEGRATION_TEST_SCHEDULE_SECONDS = '1';
  stack = await startStackUnderTest({ additionalTriggers: [deliveryConsumer, recordingSchedule], omittedTriggers: [webhookDeliveryConsumer.name] });
  sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  queueUrl = stack.resources.webhookDeliveryQueueUrl;
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: String(visibilityTimeoutSeconds) } }));
});

afterAll(async () => {
  await stack?.stop();
  delete process.env.PAPERFLOW_INTEGRATION_TEST_SCHEDULE_SECONDS;
});

async function send(...bodies: string[]): Promise<void> {
  const { Failed } = await sqs.send(
    new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })) }),
  );
  expect(Failed ?? []).toEqual([]);
}

function deliveriesOf(body: string) {
  return recordedBatches().flatMap((batch) => batch.records.filter((record) => record.body === body));
}

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the trigger');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function messagesLeft(): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}

describe('a queue consumer row, served as an SQS event source mapping', () => {
  it('delivers a batch, redelivers only the reported failure after its visibility timeout, and deletes the rest', async () => {
    await send('first', 'second', 'fail-once');

    await until(() => deliveriesOf('fail-once').length === 2);
    // Longer than a visibility timeout: a message wrongly left on the queue would have come back.
    await new Promise((resolve) => setTimeout(resolve, (visibilityTimeoutSeconds + 1) * 1000));

    const firstBatch = recordedBatches().find((batch) => batch.records.some((record) => record.body === 'first'))!;
    expect(firstBatch.records.map((record) => record.body).sort()).toEqual(['fail-once', 'first', 'second']);
    for (const record of firstBatch.records) {
      expect(record).toMatchObject({ receiveCount: 1, eventSourceARN: expect.stringMatching(/^arn:aws:sqs:.*webhook-deliveries$/) });
      expect(record.receiptHandle).not.toBe('');
    }
    expect(deliveriesOf('first')).toHaveLength(1);
    expect(deliveriesOf('second')).toHaveLength(1);
    expect(deliveriesOf('fail-once').map((record) => record.receiveCount)).toEqual([1, 2]);
    expect(await messagesLeft()).toBe(0);
  });

  it('leaves the whole batch on the queue when the handler throws', async () => {
    await send('alongside', 'throw-once');

    await until(() => deliveriesOf('alongside').length === 2 && deliveriesOf('throw-once').length === 2);
    await new Promise((resolve) => setTimeout(resolve, (visibilityTimeoutSeconds + 1) * 1000));

    expect(deliveriesOf('alongside').map((record) => record.receiveCount)).toEqual([1, 2]);
    expect(deliveriesOf('throw-once').map((record) => record.receiveCount)).toEqual([1, 2]);
    expect(await messagesLeft()).toBe(0);
  });
});

describe('a schedule row', () => {
  it('runs on the interval its configuration names, with an EventBridge scheduled event', async () => {
    await until(() => recordedScheduledEvents().length > 0, 5_000);

    expect(recordedScheduledEvents()[0]).toMatchObject({ 'detail-type': 'Scheduled Event', source: 'aws.events' });
  });
});
