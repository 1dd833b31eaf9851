import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { webhookDeliveryQueue } from './resource-definitions.ts';

/** SendMessageBatch takes at most ten messages. */
const maximumMessagesPerBatch = 10;

/**
 * The webhook delivery queue (`webhookDeliveryQueue` of resource-definitions.ts): JSON messages with a
 * per-message delay. SQS refuses a delay above 900 s, so a longer wait is the caller's to split.
 */
export class SqsDeliveryQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: object, delaySeconds: number): Promise<void> {
    checkDelay(delaySeconds);
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }));
  }

  /**
   * Sends every message, ten per SendMessageBatch, the batches concurrently. A batch answers per entry:
   * entries SQS failed are sent once more one by one (which throws if SQS still refuses), so on return
   * every message is on the queue.
   */
  async sendAll(messages: { message: object; delaySeconds: number }[]): Promise<void> {
    for (const { delaySeconds } of messages) checkDelay(delaySeconds);
    const batches: { message: object; delaySeconds: number }[][] = [];
    for (let start = 0; start < messages.length; start += maximumMessagesPerBatch) batches.push(messages.slice(start, start + maximumMessagesPerBatch));
    await Promise.all(
      batches.map(async (batch) => {
        const { Failed = [] } = await this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: batch.map(({ message, delaySeconds }, index) => ({ Id: String(index), MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds })),
          }),
        );
        await Promise.all(Failed.map(({ Id }) => batch[Number(Id)]!).map(({ message, delaySeconds }) => this.send(message, delaySeconds)));
      }),
    );
  }
}

function checkDelay(delaySeconds: number): void {
  if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > webhookDeliveryQueue.maximumDelaySeconds) {
    throw new Error(`A delivery queue message takes a delay of 0 to ${webhookDeliveryQueue.maximumDelaySeconds} whole seconds, not ${delaySeconds}.`);
  }
}
