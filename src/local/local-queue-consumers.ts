import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { effectiveAccess, type QueueConsumerTrigger } from '../platform/trigger-table.ts';
import { logger, withLogContext } from '../infrastructure/logger.ts';
import { triggerContext, type LocalInvoker } from './local-invoker.ts';

export interface RunningQueueConsumer {
  /** Stops polling (a long poll in flight is abandoned) and waits for the batch being handled. */
  close(): Promise<void>;
}

// SQS hands out at most 10 messages per ReceiveMessage and long-polls for at most 20 s.
const maximumMessagesPerReceive = 10;
/** Lambda's SQS event source mapping starts with five concurrent pollers and scales from there. */
export const defaultConcurrentBatches = 5;
const longPollSeconds = 20;
const pauseAfterFailedPollMilliseconds = 1_000;

/**
 * A queue consumer row served as Lambda's SQS event source mapping serves it: long polling the queue,
 * gathering up to `batchSize` messages for up to `maximumBatchingWindowSeconds`, invoking the handler
 * with an SQSEvent of the real messages (receipt handles, system and message attributes), then
 * deleting what succeeded. Reported batch item failures, and the whole batch when the handler throws
 * or answers something Lambda would not accept, stay on the queue and come back once their visibility
 * timeout ends, with the queue's redrive policy counting the receives.
 */
export function startLocalQueueConsumer(
  consumer: QueueConsumerTrigger,
  dependencies: { invoker: LocalInvoker; client: SQSClient; queueUrl: string; region: string },
): RunningQueueConsumer {
  const { invoker, client, queueUrl, region } = dependencies;
  const stopping = new AbortController();
  const abortSignal = stopping.signal;
  let queueArn: string | undefined;

  const receive = async (maximumMessages: number, waitTimeSeconds: number): Promise<Message[]> => {
    const { Messages } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(maximumMessagesPerReceive, maximumMessages),
        WaitTimeSeconds: waitTimeSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal },
    );
    return Messages ?? [];
  };

  // The first message opens the batching window; the batch is handed over when it is full or the window ends.
  const nextBatch = async (): Promise<Message[]> => {
    const batch = await receive(consumer.batchSize, longPollSeconds);
    if (batch.length === 0) return batch;
    const windowEnds = Date.now() + consumer.maximumBatchingWindowSeconds * 1000;
    while (batch.length < consumer.batchSize && Date.now() < windowEnds && !abortSignal.aborted) {
      const waitTimeSeconds = Math.min(longPollSeconds, Math.ceil((windowEnds - Date.now()) / 1000));
      batch.push(...(await receive(consumer.batchSize - batch.length, waitTimeSeconds)));
    }
    return batch;
  };

  const handle = async (messages: Message[]) => {
    const event: SQSEvent = { Records: messages.map((message) => sqsRecord(message, queueArn!, region)) };
    let failed: ReadonlySet<string> | 'wholeBatch';
    try {
      const response = await withLogContext({ consumer: consumer.name, messageIds: messages.map((message) => message.MessageId) }, () =>
        invoker.invoke<SQSBatchResponse | undefined>({ handler: consumer.handler, access: effectiveAccess(consumer) }, event, triggerContext(consumer, region)),
      );
      failed = consumer.reportBatchItemFailures ? reportedFailures(response, messages) : new Set();
    } catch (error) {
      logger.error('queue consumer failed; the batch stays on the queue', { consumer: consumer.name, error });
      failed = 'wholeBatch';
    }
    if (failed === 'wholeBatch') return;
    const succeeded = messages.filter((message) => !failed.has(message.MessageId!));
    for (let start = 0; start < succeeded.length; start += maximumMessagesPerReceive) {
      const chunk = succeeded.slice(start, start + maximumMessagesPerReceive);
      const { Failed } = await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
        }),
      );
      // As with Lambda, a message that could not be deleted (its receipt expired) simply comes back.
      if (Failed?.length) logger.warn('handled messages not deleted', { consumer: consumer.name, failed: Failed });
    }
  };

  const poller = async () => {
    while (!abortSignal.aborted) {
      try {
        queueArn ??= (await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }), { abortSignal }))
          .Attributes?.QueueArn;
        const batch = await nextBatch();
        // Once a batch is received it is handled, also while stopping, as Lambda finishes an invocation.
        if (batch.length > 0) await handle(batch);
      } catch (error) {
        if (abortSignal.aborted) break;
        logger.error('queue polling failed', { consumer: consumer.name, error });
        await new Promise((resolve) => setTimeout(resolve, pauseAfterFailedPollMilliseconds));
      }
    }
  };
  // Batches run side by side, as Lambda invokes one function instance per concurrent batch.
  const polling = Promise.all(Array.from({ length: consumer.maximumConcurrency ?? defaultConcurrentBatches }, poller));

  return {
    async close() {
      stopping.abort();
      await polling;
    },
  };
}

/**
 * The messages a handler reported as failed, or the whole batch where Lambda would count the answer
 * as a failure: an item without an id, or with an id that is not in the batch.
 */
export function reportedFailures(response: SQSBatchResponse | undefined, messages: Message[]): ReadonlySet<string> | 'wholeBatch' {
  const failures = response?.batchItemFailures ?? [];
  if (!Array.isArray(failures)) return 'wholeBatch';
  const batchIds = new Set(messages.map((message) => message.MessageId));
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || id === '' || !batchIds.has(id)) return 'wholeBatch';
    failed.add(id);
  }
  return failed;
}

function sqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: message.Attributes as unknown as SQSRecordAttributes,
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, lambdaMessageAttribute(value)]),
    ) as SQSMessageAttributes,
    md5OfBody: message.MD5OfBody!,
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

// The SDK's MessageAttributeValue, as Lambda spells it in an SQS event (camelCase, binary as base64).
function lambdaMessageAttribute(value: MessageAttributeValue): SQSMessageAttributes[string] {
  return {
    dataType: value.DataType!,
    ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
    ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
    stringListValues: value.StringListValues ?? [],
    binaryListValues: (value.BinaryListValues ?? []).map((binary) => Buffer.from(binary).toString('base64')),
  };
}
