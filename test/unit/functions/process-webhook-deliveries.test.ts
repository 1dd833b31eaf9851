import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../functions/webhooks/process-webhook-deliveries.ts';

// The delivery queue consumer's batch contract (Powertools' BatchProcessor): the records that failed
// are reported by message id and come back; the others are deleted. Malformed bodies fail before any
// store is reached, so no emulator is needed here (test/integration covers messages that deliver).

function recordOf(messageId: string, body: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:paperflow-webhook-deliveries',
    awsRegion: 'us-east-1',
  };
}

describe('the webhook delivery queue consumer', () => {
  // The composition root names its resources from the environment; nothing is called on them here.
  beforeEach(() => {
    vi.stubEnv('PAPERFLOW_TABLE_NAME', 'paperflow-unit');
    vi.stubEnv('PAPERFLOW_DELIVERY_QUEUE_URL', 'http://127.0.0.1:9/000000000000/paperflow-unit-deliveries');
  });
  afterEach(() => vi.unstubAllEnvs());

  it('answers every malformed record as a batch item failure, without throwing when the whole batch failed', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const event: SQSEvent = { Records: [recordOf('m-1', 'not json'), recordOf('m-2', JSON.stringify({ kind: 'unknown' }))] };

    const response = await handler(event);

    expect(response.batchItemFailures.map(({ itemIdentifier }) => itemIdentifier).sort()).toEqual(['m-1', 'm-2']);
    vi.restoreAllMocks();
  });

  it('answers an empty batch with no failures', async () => {
    expect(await handler({ Records: [] })).toEqual({ batchItemFailures: [] });
  });
});
