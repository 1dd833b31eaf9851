import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditTrailConsumer, auditTrailQueue, resourcesWithAddedQueue } from '../support/added-queue-fixture.ts';
import { auditTrailRecords } from '../support/audit-trail-consumer.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';

// A queue added as one resource row plus its consumer's trigger row (test/support/added-queue-fixture.ts)
// is provisioned by the local stack with its dead-letter queue, consumed by its row's handler, and that
// handler's configuration holds what its row names and nothing else. test/infra/added-queue.test.ts
// deploys the same tables.

let stack: StackUnderTest;
const sqs = () => new SQSClient({ useQueueUrlAsEndpoint: false });

beforeAll(async () => {
  stack = await startStackUnderTest({ resources: resourcesWithAddedQueue, additionalTriggers: [auditTrailConsumer] });
});

afterAll(async () => {
  await stack?.stop();
});

async function recordFor(body: string) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const record = auditTrailRecords().find((each) => each.body === body);
    if (record) return record;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`The consumer never received ${body}`);
}

describe('a queue added by one resource row and one consumer row, locally', () => {
  it('is provisioned with its dead-letter queue and redrive policy, from the row', async () => {
    const queueUrl = stack.resources.queueUrls[auditTrailQueue.name]!;

    const { Attributes } = await sqs().send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'] }));

    expect(queueUrl).toMatch(/paperflow-local-audit-trail$/);
    expect(Attributes?.VisibilityTimeout).toBe(String(auditTrailQueue.visibilityTimeoutSeconds));
    expect(JSON.parse(Attributes!.RedrivePolicy!)).toMatchObject({
      deadLetterTargetArn: expect.stringMatching(/paperflow-local-audit-trail-dead-letters$/),
      maxReceiveCount: auditTrailQueue.maxReceiveCount,
    });
    expect(process.env[auditTrailQueue.environmentVariable]).toBe(queueUrl);
  });

  it('feeds its consumer, whose configuration names its own queue and table and refuses what its row does not name', async () => {
    const body = `audit-${crypto.randomUUID()}`;

    await sqs().send(new SendMessageCommand({ QueueUrl: stack.resources.queueUrls[auditTrailQueue.name]!, MessageBody: body }));
    const record = await recordFor(body);

    expect(record.recordsTableName).toBe(stack.resources.recordsTableName);
    expect(record.ownQueueUrl).toBe(stack.resources.queueUrls[auditTrailQueue.name]);
    expect(record.deliveryQueueRefusal).toMatch(/^PAPERFLOW_DELIVERY_QUEUE_URL is not set: this function's row does not name the queue webhookDelivery/);
    expect(record.filesBucketRefusal).toMatch(/^PAPERFLOW_BUCKET_NAME is not set/);
  });
});
