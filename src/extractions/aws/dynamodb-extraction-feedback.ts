import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { callDownstream } from '../../platform/downstream-calls.ts';
import type { Feedback } from '../extraction.ts';
import type { ExtractionFeedback } from '../extraction-feedback.ts';
import { feedbackKey } from '../extraction-keys.ts';

/** Feedback items, under the extraction's partition (removed with it). */
export class DynamoDbExtractionFeedback implements ExtractionFeedback {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(feedback: Feedback): Promise<void> {
    await callDownstream('DynamoDB PutItem (feedback)', () =>
      this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...feedbackKey(feedback.extractionId, feedback.id), ...feedback } })),
    );
  }
}
