import { extractDocument, type ReadDocumentOptions } from '../extraction-engine/index.ts';
import { extractionConfigurationStore } from '../extraction-configurations/wiring.ts';
import { fileBlobStore, fileRecordStore } from '../files/lookup-wiring.ts';
import { outboundUrlPolicyFromEnvironment } from '../outbound/outbound-settings.ts';
import { DownloadedDocuments } from './downloaded-documents.ts';
import { ExtractionProcessor } from './extraction-processing.ts';
import { processOcrPool } from './process-ocr-pool.ts';
import { secondsFromEnvironment } from '../infrastructure/resource-definitions.ts';
import { extractionDocuments, extractionSettlement, extractionStore, outputStore } from './wiring.ts';

// The state machine's task functions are the only ones that carry the extraction engine (PDF, OCR);
// the API functions build from wiring.ts and stay small.

// The readers load native addons (sharp, canvas) when imported, and only the extract task ships them:
// the other tasks share this wiring, so the readers are imported on first use, never at start-up.
// Every document of the process shares one OCR pool, so its workers start once, not per document.
export async function readDocumentOnDemand(bytes: Uint8Array, options: ReadDocumentOptions) {
  const { readDocument } = await import('../extraction-engine/reading.ts');
  return readDocument(bytes, { ...options, ocr: options.ocr ?? (await processOcrPool()) });
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
      urlPolicy: outboundUrlPolicyFromEnvironment,
      downloadTimeoutMs: secondsFromEnvironment('PAPERFLOW_DOCUMENT_DOWNLOAD_TIMEOUT_SECONDS', 60) * 1000,
      maximumRedirects: 3,
    },
  );
}

