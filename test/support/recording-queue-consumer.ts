import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

// A queue consumer handler for tests of the trigger machinery (test-only trigger rows point at this
// module). It records every batch it gets, in a process-wide registry so the test sees them whichever
// copy of the module the local invoker loaded. Bodies steer it: `fail-once` is reported as a batch
// item failure on its first receive, `throw-once` makes the whole invocation throw on its first receive.

const registryKey = Symbol.for('paperflow.test.recordingQueueConsumer');

export interface RecordedBatch {
  records: { messageId: string; body: string; receiveCount: number; eventSourceARN: string; receiptHandle: string }[];
}

function registry(): RecordedBatch[] {
  const global = globalThis as unknown as Record<symbol, RecordedBatch[] | undefined>;
  return (global[registryKey] ??= []);
}

export function recordedBatches(): readonly RecordedBatch[] {
  return registry();
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const records = event.Records.map((record) => ({
    messageId: record.messageId,
    body: record.body,
    receiveCount: Number(record.attributes.ApproximateReceiveCount),
    eventSourceARN: record.eventSourceARN,
    receiptHandle: record.receiptHandle,
  }));
  registry().push({ records });
  if (records.some((record) => record.body === 'throw-once' && record.receiveCount === 1)) throw new Error('throw-once: failing the whole batch');
  return {
    batchItemFailures: records
      .filter((record) => record.body === 'fail-once' && record.receiveCount === 1)
      .map((record) => ({ itemIdentifier: record.messageId })),
  };
}
