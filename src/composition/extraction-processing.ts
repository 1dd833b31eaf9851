import { extractDocument, type ReadDocumentOptions } from '../extraction-engine/index.ts';
import { extractionConfigurationLookup } from './extraction-configuration-lookup.ts';
import { DocumentExtraction } from '../extractions/extraction-processing.ts';
import { processOcrPool } from '../extractions/process-ocr-pool.ts';
import { paperflowConfiguration } from './configuration.ts';
import { extractionDocuments, extractionStore, outputStore } from './extractions.ts';

// The extract task is the only function that carries the extraction engine's readers (PDF, OCR): only
// its handler imports this module. The other tasks build from extraction-tasks.ts, the API functions
// from extractions.ts, and stay small. (esbuild bundles a dynamic import's target too, so the
// `await import` below keeps the readers out of start-up, not out of the bundle.)

// The readers load native addons (sharp, canvas) when imported: they are imported on first use, never
// at start-up. Every document of the process shares one OCR pool, so its workers start once, not per document.
export async function readDocumentOnDemand(bytes: Uint8Array, options: ReadDocumentOptions) {
  const { readDocument } = await import('../extraction-engine/reading.ts');
  return readDocument(bytes, { ...options, ocr: options.ocr ?? (await processOcrPool(paperflowConfiguration().settings.ocrIdleTimeoutMs)) });
}

export function documentExtraction(): DocumentExtraction {
  return new DocumentExtraction(
    extractionStore(),
    outputStore(),
    extractionDocuments(),
    { read: readDocumentOnDemand, extract: extractDocument },
    async (workspaceId) => (await extractionConfigurationLookup().get(workspaceId)).configuration,
  );
}
