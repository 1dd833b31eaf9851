import { correctedValueChecker } from '../extractions/corrected-value-check.ts';
import { ExtractionService } from '../extractions/extraction-service.ts';
import { extractionConfigurationLookup } from './extraction-configuration-lookup.ts';
import { extractionDocuments, serviceDependencies } from './extractions.ts';

// Apart from extractions.ts: a corrected value is checked against the field types of the workspace's
// configuration, which needs the engine's field definitions and, to read a stored configuration, its
// configuration schema (classic zod): only the feedback route bundles them.

/** `POST /extractions/{extractionId}/feedback`: the extraction service plus the workspace's configuration. */
export function extractionServiceWithFeedback(): ExtractionService {
  return new ExtractionService({
    ...serviceDependencies(),
    documents: extractionDocuments(),
    checkCorrectedValue: correctedValueChecker(async (workspaceId) => (await extractionConfigurationLookup().get(workspaceId)).configuration),
  });
}
