import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { checkExtractionConfiguration } from '../../extraction-engine/index.ts';
import type { AppliedConfiguration, AppliedConfigurations } from '../extraction-configuration-store.ts';

// One item per workspace: pk `WS#<ws>`, sk `EXTRACTION_CONFIGURATION`.
const configurationKey = (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'EXTRACTION_CONFIGURATION' });

const configurationItem = z.object({ configuration: z.unknown(), source: z.string(), appliedAt: z.string() });

export class DynamoDbAppliedConfigurations implements AppliedConfigurations {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async find(workspaceId: string): Promise<AppliedConfiguration | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: configurationKey(workspaceId) }));
    if (!Item) return undefined;
    const { configuration, source, appliedAt } = configurationItem.parse(Item);
    // The stored object is what the engine's schema produced when it was applied; it is read back
    // through the same schema, so a configuration the engine no longer accepts fails here, by name.
    const checked = checkExtractionConfiguration(configuration);
    if (!checked.ok) {
      const problems = checked.problems.map((problem) => `${problem.path || '(root)'}: ${problem.message}`).join('; ');
      throw new Error(`The extraction configuration stored for ${workspaceId} is no longer valid: ${problems}. Apply it again.`);
    }
    return { configuration: checked.configuration, source, appliedAt };
  }

  async save(workspaceId: string, applied: AppliedConfiguration): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...configurationKey(workspaceId), workspaceId, ...applied } }));
  }
}
