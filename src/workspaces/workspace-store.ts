import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryAllItems } from '../infrastructure/dynamodb-queries.ts';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

export interface Workspace {
  id: string;
  name: string;
  createdAt: string;
}

/**
 * `ws_` and then letters, digits, `_` or `-`: generated ids are `ws_<ULID>` (upper case), operators
 * may choose readable ones (`ws_default`). The upload keys' parser (files/file-blobs.ts) reads the same
 * characters back from object keys; the length bound keeps every key built from an id well within
 * DynamoDB's and S3's limits.
 */
const workspaceIdFormat = /^ws_[A-Za-z0-9_-]{1,64}$/;

export function isWorkspaceId(candidate: string): boolean {
  return workspaceIdFormat.test(candidate);
}

const workspaceKey = (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'WORKSPACE' });

/** Workspaces: the isolation boundary of every resource. Managed by operators, not the public API. */
export class WorkspaceStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Creates the workspace unless it exists; returns whichever is stored (idempotent). */
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
    return Item ? toWorkspace(Item) : undefined;
  }

  async list(): Promise<Workspace[]> {
    const items = await queryAllItems(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :all',
      ExpressionAttributeValues: { ':all': 'WORKSPACES' },
    });
    return items.map(toWorkspace);
  }
}

function toWorkspace(item: Record<string, unknown>): Workspace {
  return { id: item.id as string, name: item.name as string, createdAt: item.createdAt as string };
}
