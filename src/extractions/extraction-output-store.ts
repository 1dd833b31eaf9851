import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ExtractionOutput, ExtractionRecord } from './extraction.ts';
import { outputKey } from './extraction-keys.ts';
import { filesBucket } from '../infrastructure/resource-definitions.ts';

/** Outputs up to this size stay in the table (one GetItem); larger ones go to S3 (the 400 KB item limit). */
export const inlineOutputLimitBytes = 300 * 1024;

/** The extraction output: an OUTPUT item next to the record, or an S3 object under the workspace prefix. */
export class ExtractionOutputStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly s3: S3Client,
    private readonly bucketName: string,
    private readonly inlineLimitBytes = inlineOutputLimitBytes,
  ) {}

  async put(record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'generation'>, output: ExtractionOutput): Promise<void> {
    const body = JSON.stringify(output);
    if (Buffer.byteLength(body) <= this.inlineLimitBytes) {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...outputKey(record.id), generation: record.generation, output } }));
      return;
    }
    const objectKey = outputObjectKey(record);
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucketName, Key: objectKey, Body: body, ContentType: 'application/json' }));
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...outputKey(record.id), generation: record.generation, objectKey } }));
  }

  async get(extractionId: string): Promise<ExtractionOutput | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: outputKey(extractionId), ConsistentRead: true }));
    if (!Item) return undefined;
    if (Item.output) return Item.output as ExtractionOutput;
    const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucketName, Key: Item.objectKey as string }));
    return JSON.parse(await object.Body!.transformToString('utf8')) as ExtractionOutput;
  }

  /** Removes the S3 object, if any; the OUTPUT item goes with the extraction's other items. */
  async deleteObject(extractionId: string): Promise<void> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: outputKey(extractionId), ConsistentRead: true }));
    if (Item?.objectKey) await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucketName, Key: Item.objectKey as string }));
  }
}

function outputObjectKey(record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'generation'>): string {
  return `${filesBucket.extractionOutputPrefix}${record.workspaceId}/${record.id}/output-${record.generation}.json`;
}
