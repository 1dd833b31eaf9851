import { appliedConfigurations } from './extraction-configuration-lookup.ts';
import { ExtractionConfigurationStore } from '../extraction-configurations/extraction-configuration-store.ts';

/** `config apply` and `config show` (the admin CLI) and tests; functions use extraction-configuration-lookup.ts. */
export function extractionConfigurationStore(): ExtractionConfigurationStore {
  return new ExtractionConfigurationStore(appliedConfigurations());
}
