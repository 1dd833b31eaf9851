import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { callDownstream } from '../../platform/downstream-calls.ts';
import type { DocumentInsightsWait, DocumentInsightsWaits, StepExtraction } from '../steps/document-insights-waits.ts';

// Which workflow step waits for which extraction: one item per extraction, in the workspace's
// partition beside the workflows (pk `WS#<ws>`, sk `DOCWAIT#<ext_id>`), holding the task token its
// execution waits on. Written after the extraction was accepted and removed once the token was
// answered, so a refused extraction never leaves a token waiting. Beside it, which extraction each step
// started (sk `DOCSTEP#<run_id>#<step_id>`): a start that runs again for the same step (a retried Task,
// an execution run again after a restart of the local stack) waits on that extraction instead of
// starting a second one.

/**
 * An extraction ends within the sweeper's limit (20 minutes by default); an item still here two days
 * later belongs to an answer that was lost, and the table's TTL removes it.
 */
const waitLifetimeSeconds = 2 * 86_400;

const waitKey = (workspaceId: string, extractionId: string) => ({ pk: `WS#${workspaceId}`, sk: `DOCWAIT#${extractionId}` });
const stepKey = (workspaceId: string, runId: string, stepId: string) => ({ pk: `WS#${workspaceId}`, sk: `DOCSTEP#${runId}#${stepId}` });

export class DynamoDbDocumentInsightsWaits implements DocumentInsightsWaits {
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
    return Item ? waitItemSchema.parse(Item) : undefined;
  }

  /** Kept as long as a wait could be (the same TTL): a run's step starts within its run's lifetime. */
  async rememberStepExtraction(started: StepExtraction): Promise<void> {
    const expiresAt = Math.floor(Date.parse(started.createdAt) / 1000) + waitLifetimeSeconds;
    const { workspaceId, runId, stepId, extractionId, createdAt } = started;
    await callDownstream('DynamoDB PutItem (document_insights step)', () =>
      this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...stepKey(workspaceId, runId, stepId), runId, stepId, extractionId, createdAt, expiresAt } })),
    );
  }

  /** The extraction this step started before, if it did. */
  async extractionOfStep(workspaceId: string, runId: string, stepId: string): Promise<string | undefined> {
    const { Item } = await callDownstream('DynamoDB GetItem (document_insights step)', () =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: stepKey(workspaceId, runId, stepId), ConsistentRead: true })),
    );
    return Item ? stepExtractionItemSchema.parse(Item).extractionId : undefined;
  }

  async forget(workspaceId: string, extractionId: string): Promise<void> {
    await callDownstream('DynamoDB DeleteItem (document_insights wait)', () =>
      this.client.send(new DeleteCommand({ TableName: this.tableName, Key: waitKey(workspaceId, extractionId) })),
    );
  }
}

const waitItemSchema = z.object({
  workspaceId: z.string(),
  extractionId: z.string(),
  runId: z.string(),
  stepId: z.string(),
  taskToken: z.string(),
  createdAt: z.string(),
});

const stepExtractionItemSchema = z.object({ extractionId: z.string() });
