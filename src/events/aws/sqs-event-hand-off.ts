import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { EventDeliveryHandOff, EventRecordedMessage } from '../event-outbox.ts';

/**
 * The hand-off to the webhook delivery queue, whose consumer fans an event out to the matching
 * subscriptions. The queue URL is resolved on the first send: every function that builds the
 * extraction settlement has the recorder, but only the rows that record events are granted the queue.
 */
export class SqsEventHandOff implements EventDeliveryHandOff {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: () => string,
  ) {}

  async send(message: EventRecordedMessage): Promise<void> {
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl(), MessageBody: JSON.stringify(message) }));
  }
}
