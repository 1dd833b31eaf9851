import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { callDownstream } from '../../platform/downstream-calls.ts';

// Which workflow step waits for which extraction: one item per extraction, in the workspace's
// partition beside the workflows (pk `WS#<ws>`, sk `DOCWAIT#<ext_id>`), holding the task token its
// execution waits on. Written after the extraction was accepted and removed once the token was
// answered, so a refused extraction never leaves a token waiting.

export interface DocumentInsightsWait {
  workspaceId: string;
  extractionId: string;
  runId: string;
  stepId: string;
  taskToken: string;
  createdAt: string;
}

/**
 * An extraction ends within the sweeper's limit (20 minutes by default); an item still here two days
 * later belongs to an answer that was lost, and the table's TTL removes it.
 */
const waitLifetimeSeconds = 2 * 86_400;

const waitKey = (workspaceId: string, extractionId: string) => ({ pk: `WS#${workspaceId}`, sk: `DOCWAIT#${extractionId}` });

export class DocumentInsightsWaits {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async remember(wait: DocumentInsightsWait): Promise<void> {
    const expiresAt = Math.floor(Date.parse(wait.createdAt) / 1000) + waitLifetimeSeconds;
    await callDownstream('DynamoDB PutItem (document_insights wait)', () =>
      this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...waitKey(wait.workspaceId, wait.extractionId), ...wait, expiresAt } })),
    );
  }

  async get(workspaceId: string, extractionId: string): Promise<DocumentInsightsWait | undefined> {
    const { Item } = await callDownstream('DynamoDB GetItem (document_insights wait)', () =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: waitKey(workspaceId, extractionId), ConsistentRead: true })),
    );
    if (!Item) return undefined;
    const { workspaceId: owner, extractionId: id, runId, stepId, taskToken, createdAt } = Item as DocumentInsightsWait;
    return { workspaceId: owner, extractionId: id, runId, stepId, taskToken, createdAt };
  }

  async forget(workspaceId: string, extractionId: string): Promise<void> {
    await callDownstream('DynamoDB DeleteItem (document_insights wait)', () =>
      this.client.send(new DeleteCommand({ TableName: this.tableName, Key: waitKey(workspaceId, extractionId) })),
    );
  }
}
