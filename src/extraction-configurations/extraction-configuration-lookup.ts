import { defaultExtractionConfiguration } from '../extraction-engine/index.ts';
import type { AppliedConfigurations, StoredExtractionConfiguration } from './extraction-configuration-store.ts';

/**
 * The configuration in force for a workspace: the one applied, else the engine's default. What every
 * extraction function needs; applying an operator's file is `ExtractionConfigurationStore`, apart
 * because reading that file brings the YAML parser, which no function needs.
 */
export class ExtractionConfigurationLookup {
  constructor(protected readonly applied: AppliedConfigurations) {}

  async get(workspaceId: string): Promise<StoredExtractionConfiguration> {
    const applied = await this.applied.find(workspaceId);
    if (!applied) return { workspaceId, configuration: defaultExtractionConfiguration, isDefault: true };
    return { workspaceId, ...applied, isDefault: false };
  }
}
