import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { filesBucket } from '../../infrastructure/resource-definitions.ts';
import { callDownstream } from '../../platform/downstream-calls.ts';
import type { ExtractionOutput, ExtractionRecord } from '../extraction.ts';
import { outputKey } from '../extraction-keys.ts';
import { inlineOutputLimitBytes, type ExtractionOutputRecords, type StoredOutput } from '../extraction-output-store.ts';
import type { FieldCorrection } from '../field-corrections.ts';

// The OUTPUT item next to the record (or, for a large output, an S3 object under the workspace prefix
// that the item points to), and one CORRECTION#<fieldId> item per corrected field in the same partition:
// a correction is a small write of its own, never a rewrite of an output that may live in S3, and two
// reviewers correcting two fields at once cannot overwrite each other.

// The output itself is the engine's, written by put below: its shape is checked where it is made.
const outputItemSchema = z.union([
  z.object({ output: z.custom<ExtractionOutput>((value) => value !== null && typeof value === 'object' && Array.isArray((value as ExtractionOutput).fields)) }),
  z.object({ objectKey: z.string() }),
]);

export const fieldCorrectionSchema = z.object({
  correctedValue: z.unknown(),
  correctedAt: z.string(),
  correctedBy: z.string(),
  feedbackId: z.string(),
  extractionId: z.string(),
});

const correctionSortKeyPrefix = 'CORRECTION#';
const correctionKey = (extractionId: string, fieldId: string) => ({ pk: outputKey(extractionId).pk, sk: `${correctionSortKeyPrefix}${fieldId}` });

const correctionItemSchema = z.extend(fieldCorrectionSchema, { fieldId: z.string() });

export class DynamoDbExtractionOutputs implements ExtractionOutputRecords {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly s3: S3Client,
    private readonly bucketName: string,
    private readonly inlineLimitBytes = inlineOutputLimitBytes,
  ) {}

  async put(record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'generation'>, output: ExtractionOutput, corrections: ReadonlyMap<string, FieldCorrection>): Promise<void> {
    // Corrections carried over from earlier extractions of the same document come first: the OUTPUT
    // item is what makes the output available, so it is never seen without them.
    for (const [fieldId, correction] of corrections) await this.putCorrection(record.id, fieldId, correction);
    const body = JSON.stringify(output);
    if (Buffer.byteLength(body) <= this.inlineLimitBytes) {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...outputKey(record.id), generation: record.generation, output } }));
      return;
    }
    const objectKey = outputObjectKey(record);
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucketName, Key: objectKey, Body: body, ContentType: 'application/json' }));
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...outputKey(record.id), generation: record.generation, objectKey } }));
  }

  async get(extractionId: string): Promise<StoredOutput | undefined> {
    const [{ Item }, corrections] = await Promise.all([
      callDownstream('DynamoDB GetItem (extraction output)', () =>
        this.client.send(new GetCommand({ TableName: this.tableName, Key: outputKey(extractionId), ConsistentRead: true })),
      ),
      this.corrections(extractionId),
    ]);
    if (!Item) return undefined;
    const item = outputItemSchema.parse(Item);
    if ('output' in item) return { output: item.output, corrections };
    const object = await callDownstream('S3 GetObject (extraction output)', () => this.s3.send(new GetObjectCommand({ Bucket: this.bucketName, Key: item.objectKey })));
    return { output: JSON.parse(await object.Body!.transformToString('utf8')) as ExtractionOutput, corrections };
  }

  async putCorrection(extractionId: string, fieldId: string, correction: FieldCorrection): Promise<void> {
    await callDownstream('DynamoDB PutItem (field correction)', () =>
      this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...correctionKey(extractionId, fieldId), fieldId, ...correction } })),
    );
  }

  /** Removes the S3 object, if any; the OUTPUT and CORRECTION items go with the extraction's other items. */
  async deleteObject(extractionId: string): Promise<void> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: outputKey(extractionId), ConsistentRead: true }));
    const parsed = Item ? outputItemSchema.safeParse(Item) : undefined;
    if (parsed?.success && 'objectKey' in parsed.data) await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucketName, Key: parsed.data.objectKey }));
  }

  private async corrections(extractionId: string): Promise<Map<string, FieldCorrection>> {
    const corrections = new Map<string, FieldCorrection>();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await callDownstream('DynamoDB Query (field corrections)', () =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': outputKey(extractionId).pk, ':prefix': correctionSortKeyPrefix },
            ConsistentRead: true,
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        ),
      );
      for (const item of page.Items ?? []) {
        const { fieldId, ...correction } = correctionItemSchema.parse(item);
        corrections.set(fieldId, correction);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return corrections;
  }
}

function outputObjectKey(record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'generation'>): string {
  return `${filesBucket.extractionOutputPrefix}${record.workspaceId}/${record.id}/output-${record.generation}.json`;
}
