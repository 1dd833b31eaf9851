import { fileBlobStore, fileRecordStore } from './file-lookup.ts';
import { DownloadedDocuments } from '../extractions/downloaded-documents.ts';
import { ExtractionProcessor } from '../extractions/extraction-processing.ts';
import { configuredUrlPolicy, paperflowConfiguration } from './configuration.ts';
import { extractionSettlement, extractionStore } from './extractions.ts';

// The extraction state machine's light tasks (mark processing, fetch a URL document, record the
// outcome). Apart from extraction-processing.ts, whose extract task bundles the engine's readers
// (pdf.js, OCR, sharp): these three functions must not carry them.

export function extractionProcessor(): ExtractionProcessor {
  return new ExtractionProcessor(extractionStore(), new DownloadedDocuments(fileRecordStore(), fileBlobStore()), extractionSettlement(), {
    urlPolicy: configuredUrlPolicy,
    downloadTimeoutMs: paperflowConfiguration().settings.documentDownloadTimeoutMs,
    maximumRedirects: 3,
  });
}
