import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  defaultExtractionConfiguration,
  parseExtractionConfiguration,
  type ConfigurationProblem,
  type ExtractionConfiguration,
} from '../extraction-engine/index.ts';

export interface StoredExtractionConfiguration {
  workspaceId: string;
  configuration: ExtractionConfiguration;
  /** The text the operator applied (YAML or JSON), kept so `config show` prints what was written. */
  source?: string;
  appliedAt?: string;
  /** True when the workspace has none of its own and the engine's default applies. */
  isDefault: boolean;
}

export type ApplyConfigurationResult =
  | { ok: true; stored: StoredExtractionConfiguration }
  | { ok: false; problems: ConfigurationProblem[] };

const configurationKey = (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'EXTRACTION_CONFIGURATION' });

/** One extraction configuration per workspace, applied by operators (`paperflow-admin config apply`). */
export class ExtractionConfigurationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(workspaceId: string): Promise<StoredExtractionConfiguration> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: configurationKey(workspaceId) }));
    if (!Item) return { workspaceId, configuration: defaultExtractionConfiguration, isDefault: true };
    return {
      workspaceId,
      configuration: Item.configuration as ExtractionConfiguration,
      source: Item.source as string,
      appliedAt: Item.appliedAt as string,
      isDefault: false,
    };
  }

  /** Validates the text and stores it; nothing is stored when it has problems. */
  async apply(workspaceId: string, source: string, format: 'yaml' | 'json' = 'yaml'): Promise<ApplyConfigurationResult> {
    const parsed = parseExtractionConfiguration(source, format);
    if (!parsed.ok) return { ok: false, problems: parsed.problems };
    const appliedAt = this.now().toISOString();
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...configurationKey(workspaceId), workspaceId, configuration: parsed.configuration, source, appliedAt },
      }),
    );
    return { ok: true, stored: { workspaceId, configuration: parsed.configuration, source, appliedAt, isDefault: false } };
  }
}
