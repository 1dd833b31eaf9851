import { PutCommand, QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { callDownstream } from '../../platform/downstream-calls.ts';
import type { ContentCorrection, ContentCorrections } from '../field-corrections.ts';
import { fieldCorrectionSchema } from './dynamodb-extraction-outputs.ts';

// One partition per workspace, `WS#<ws>#EXTCORRECTIONS`, sort key `<sha256>#<docType>#<field name>`:
// a new output looks up its content with begins_with (one Query), the export reads the partition in
// order. Corrections are people's work, a few per document: the partition stays small and cool.
// A document type and a field name are identifiers ([a-z0-9_]), so `#` cannot occur in either.

const partitionOf = (workspaceId: string) => `WS#${workspaceId}#EXTCORRECTIONS`;

const contentCorrectionItemSchema = z.extend(fieldCorrectionSchema, {
  workspaceId: z.string(),
  sha256: z.string(),
  docType: z.string(),
  fieldName: z.string(),
  fieldType: z.string(),
  document: z.object({ fileId: z.optional(z.string()), fileName: z.optional(z.string()), mimeType: z.optional(z.string()) }),
});

export class DynamoDbContentCorrections implements ContentCorrections {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async remember(correction: ContentCorrection): Promise<void> {
    await callDownstream('DynamoDB PutItem (content correction)', () =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: partitionOf(correction.workspaceId), sk: `${correction.sha256}#${correction.docType}#${correction.fieldName}`, ...correction },
        }),
      ),
    );
  }

  ofContent(workspaceId: string, sha256: string): Promise<ContentCorrection[]> {
    return this.query({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :content)',
      ExpressionAttributeValues: { ':pk': partitionOf(workspaceId), ':content': `${sha256}#` },
    });
  }

  ofWorkspace(workspaceId: string): Promise<ContentCorrection[]> {
    return this.query({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partitionOf(workspaceId) } });
  }

  private async query(input: Pick<QueryCommandInput, 'KeyConditionExpression' | 'ExpressionAttributeValues'>): Promise<ContentCorrection[]> {
    const corrections: ContentCorrection[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await callDownstream('DynamoDB Query (content corrections)', () =>
        this.client.send(new QueryCommand({ TableName: this.tableName, ...input, ConsistentRead: true, ...(startKey ? { ExclusiveStartKey: startKey } : {}) })),
      );
      for (const item of page.Items ?? []) corrections.push(contentCorrectionItemSchema.parse(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return corrections;
  }
}
