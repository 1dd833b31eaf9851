import type { ConfigurationProblem, ExtractionConfiguration } from '../extraction-engine/index.ts';
import { parseExtractionConfiguration } from '../extraction-engine/configuration-text.ts';
import { ExtractionConfigurationLookup } from './extraction-configuration-lookup.ts';

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

/** A configuration an operator applied to a workspace, as kept. */
export interface AppliedConfiguration {
  configuration: ExtractionConfiguration;
  source: string;
  appliedAt: string;
}

/**
 * Where each workspace's applied configuration is kept (one per workspace, the last applied wins).
 * The records table's adapter is aws/dynamodb-applied-configurations.ts.
 */
export interface AppliedConfigurations {
  find(workspaceId: string): Promise<AppliedConfiguration | undefined>;
  save(workspaceId: string, applied: AppliedConfiguration): Promise<void>;
}

/**
 * One extraction configuration per workspace, applied by operators (`paperflow-admin config apply`):
 * the lookup, plus applying an operator's YAML or JSON text.
 */
export class ExtractionConfigurationStore extends ExtractionConfigurationLookup {
  constructor(
    applied: AppliedConfigurations,
    private readonly now: () => Date = () => new Date(),
  ) {
    super(applied);
  }

  /** Validates the text and stores it; nothing is stored when it has problems. */
  async apply(workspaceId: string, source: string, format: 'yaml' | 'json' = 'yaml'): Promise<ApplyConfigurationResult> {
    const parsed = parseExtractionConfiguration(source, format);
    if (!parsed.ok) return { ok: false, problems: parsed.problems };
    const applied: AppliedConfiguration = { configuration: parsed.configuration, source, appliedAt: this.now().toISOString() };
    await this.applied.save(workspaceId, applied);
    return { ok: true, stored: { workspaceId, ...applied, isDefault: false } };
  }
}
