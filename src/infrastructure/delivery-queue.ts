import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { webhookDeliveryQueue } from './resource-definitions.ts';

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
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > webhookDeliveryQueue.maximumDelaySeconds) {
      throw new Error(`A delivery queue message takes a delay of 0 to ${webhookDeliveryQueue.maximumDelaySeconds} whole seconds, not ${delaySeconds}.`);
    }
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }));
  }
}
