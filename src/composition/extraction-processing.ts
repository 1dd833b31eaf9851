import { extractDocument, type ReadDocumentOptions } from '../extraction-engine/index.ts';
import { extractionConfigurationStore } from './extraction-configurations.ts';
import { fileBlobStore, fileRecordStore } from './file-lookup.ts';
import { DownloadedDocuments } from '../extractions/downloaded-documents.ts';
import { ExtractionProcessor } from '../extractions/extraction-processing.ts';
import { processOcrPool } from '../extractions/process-ocr-pool.ts';
import { configuredUrlPolicy, paperflowConfiguration } from './configuration.ts';
import { extractionDocuments, extractionSettlement, extractionStore, outputStore } from './extractions.ts';

// The state machine's task functions are the only ones that carry the extraction engine (PDF, OCR);
// the API functions build from extractions.ts and stay small.

// The readers load native addons (sharp, canvas) when imported, and only the extract task ships them:
// the other tasks share this module, so the readers are imported on first use, never at start-up.
// Every document of the process shares one OCR pool, so its workers start once, not per document.
export async function readDocumentOnDemand(bytes: Uint8Array, options: ReadDocumentOptions) {
  const { readDocument } = await import('../extraction-engine/reading.ts');
  return readDocument(bytes, { ...options, ocr: options.ocr ?? (await processOcrPool(paperflowConfiguration().settings.ocrIdleTimeoutMs)) });
}

export function extractionProcessor(): ExtractionProcessor {
  return new ExtractionProcessor(
    extractionStore(),
    outputStore(),
    extractionDocuments(),
    new DownloadedDocuments(fileRecordStore(), fileBlobStore()),
    extractionSettlement(),
    { read: readDocumentOnDemand, extract: extractDocument },
    async (workspaceId) => (await extractionConfigurationStore().get(workspaceId)).configuration,
    {
      urlPolicy: configuredUrlPolicy,
      downloadTimeoutMs: paperflowConfiguration().settings.documentDownloadTimeoutMs,
      maximumRedirects: 3,
    },
  );
}

