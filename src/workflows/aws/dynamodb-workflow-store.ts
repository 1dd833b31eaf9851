import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { storedDefinitionSchema } from './stored-definition.ts';
import { queryAllItems } from '../../infrastructure/dynamodb-queries.ts';
import { ConflictError } from '../../platform/errors.ts';
import type { WorkflowDefinition } from '../workflow-definition.ts';
import { workflowStatuses, type Workflow, type WorkflowStatus, type WorkflowStore, type WorkflowVersion } from '../workflow-store.ts';

// Both live in the workspace's partition: the workflow record under WORKFLOW#, each version, immutable,
// under WORKFLOW_VERSION# (a prefix the workflow listing's begins_with does not match).
const workspacePartition = (workspaceId: string) => `WS#${workspaceId}`;
const workflowKey = (workspaceId: string, workflowId: string) => ({ pk: workspacePartition(workspaceId), sk: `WORKFLOW#${workflowId}` });
const versionPrefix = (workflowId: string) => `WORKFLOW_VERSION#${workflowId}#`;
/** Zero-padded so the sort key orders versions numerically. */
const versionKey = (workspaceId: string, workflowId: string, version: number) => ({
  pk: workspacePartition(workspaceId),
  sk: `${versionPrefix(workflowId)}${String(version).padStart(10, '0')}`,
});

/** Concurrent publishes of one workflow each retry on the next number; this many is plenty. */
const maximumVersionAttempts = 10;

/** Published workflow definitions of a workspace, one immutable item per version. */
export class DynamoDbWorkflowStore implements WorkflowStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Stores the definition as the next version of `workflowId`. The version item's conditional put
   * decides the number: of two publishes that read the same latest version, one writes N+1 and the
   * other, refused, tries again with N+2. The workflow record then follows, never moving backwards.
   */
  async publish(workspaceId: string, workflowId: string, definition: WorkflowDefinition, source: string): Promise<WorkflowVersion> {
    for (let attempt = 0; attempt < maximumVersionAttempts; attempt += 1) {
      const version = (await this.newestVersionNumber(workspaceId, workflowId)) + 1;
      const publishedAt = this.now().toISOString();
      const stored: WorkflowVersion = { workflowId, version, definition, source, publishedAt };
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...versionKey(workspaceId, workflowId, version), workspaceId, ...stored },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) continue;
        throw error;
      }
      await this.recordLatestVersion(workspaceId, definition, stored);
      return stored;
    }
    throw new ConflictError(`Workflow ${workflowId} is being published by others at the same time; try again.`);
  }

  async get(workspaceId: string, workflowId: string): Promise<Workflow | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: workflowKey(workspaceId, workflowId) }));
    return Item ? toWorkflow(Item) : undefined;
  }

  /** The newest version item: the source of truth, also if a publish stopped before its record update. */
  async latestVersion(workspaceId: string, workflowId: string): Promise<WorkflowVersion | undefined> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :partition AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':partition': workspacePartition(workspaceId), ':prefix': versionPrefix(workflowId) },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = Items?.[0];
    if (!item) return undefined;
    const { workflowId: id, version, definition, source, publishedAt } = versionItemSchema.parse(item);
    return { workflowId: id, version, definition, source, publishedAt };
  }

  /** The workspace's workflows by one Query of its partition, in id order. */
  async list(workspaceId: string): Promise<Workflow[]> {
    const items = await queryAllItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :partition AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':partition': workspacePartition(workspaceId), ':prefix': 'WORKFLOW#' },
    });
    return items.map(toWorkflow);
  }

  /** Returns the updated workflow, or undefined when the workspace has no such workflow. */
  async setStatus(workspaceId: string, workflowId: string, status: WorkflowStatus): Promise<Workflow | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: workflowKey(workspaceId, workflowId),
          UpdateExpression: 'SET #status = :status, updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status, ':now': this.now().toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toWorkflow(Attributes!);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  private async newestVersionNumber(workspaceId: string, workflowId: string): Promise<number> {
    return (await this.latestVersion(workspaceId, workflowId))?.version ?? 0;
  }

  /** Creates the record on the first version (enabled); a later version keeps the status an operator set. */
  private async recordLatestVersion(workspaceId: string, definition: WorkflowDefinition, stored: WorkflowVersion): Promise<void> {
    const description = definition.description;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: workflowKey(workspaceId, stored.workflowId),
          UpdateExpression: [
            'SET #id = :id, workspaceId = :workspaceId, #name = :name, latestVersion = :version, updatedAt = :now',
            'createdAt = if_not_exists(createdAt, :now), #status = if_not_exists(#status, :enabled)',
            ...(description === undefined ? [] : ['#description = :description']),
          ].join(', ') + (description === undefined ? ' REMOVE #description' : ''),
          ConditionExpression: 'attribute_not_exists(latestVersion) OR latestVersion < :version',
          ExpressionAttributeNames: { '#id': 'id', '#name': 'name', '#status': 'status', '#description': 'description' },
          ExpressionAttributeValues: {
            ':id': stored.workflowId,
            ':workspaceId': workspaceId,
            ':name': definition.name,
            ':version': stored.version,
            ':now': stored.publishedAt,
            ':enabled': 'enabled',
            ...(description === undefined ? {} : { ':description': description }),
          },
        }),
      );
    } catch (error) {
      // A newer version's publish already moved the record past this one.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

const workflowItemSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  description: z.optional(z.string()),
  latestVersion: z.number(),
  status: z.enum(workflowStatuses),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const versionItemSchema = z.object({
  workflowId: z.string(),
  version: z.number(),
  definition: storedDefinitionSchema,
  source: z.string(),
  publishedAt: z.string(),
});

function toWorkflow(item: Record<string, unknown>): Workflow {
  const { description, ...workflow } = workflowItemSchema.parse(item);
  return { ...workflow, ...(description === undefined ? {} : { description }) };
}
