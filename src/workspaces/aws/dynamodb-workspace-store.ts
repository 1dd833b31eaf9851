import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { queryAllItems } from '../../infrastructure/dynamodb-queries.ts';
import type { Workspace, WorkspaceStore } from '../workspace-store.ts';

// One item per workspace: pk `WS#<id>`, sk `WORKSPACE`; gsi1 (`WORKSPACES`, `<createdAt>#<id>`) lists them.
const workspaceKey = (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'WORKSPACE' });

const workspaceItem = z.object({ id: z.string(), name: z.string(), createdAt: z.string() });

export class DynamoDbWorkspaceStore implements WorkspaceStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async ensure(workspace: Workspace): Promise<Workspace> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...workspaceKey(workspace.id), ...workspace, gsi1pk: 'WORKSPACES', gsi1sk: `${workspace.createdAt}#${workspace.id}` },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return workspace;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return (await this.get(workspace.id))!;
    }
  }

  async get(workspaceId: string): Promise<Workspace | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: workspaceKey(workspaceId) }));
    return Item ? workspaceItem.parse(Item) : undefined;
  }

  async list(): Promise<Workspace[]> {
    const items = await queryAllItems(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :all',
      ExpressionAttributeValues: { ':all': 'WORKSPACES' },
    });
    return items.map((item) => workspaceItem.parse(item));
  }
}
