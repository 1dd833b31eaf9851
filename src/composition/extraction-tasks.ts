import { fileBlobStore, fileRecordStore } from './file-lookup.ts';
import { DownloadedDocuments } from '../extractions/downloaded-documents.ts';
import { DocumentDownload, ExtractionProcessor } from '../extractions/extraction-processing.ts';
import { configuredUrlPolicy, paperflowConfiguration } from './configuration.ts';
import { extractionSettlement, extractionStore } from './extractions.ts';

// The extraction state machine's light tasks (mark processing, fetch a URL document, record the
// outcome). Apart from extraction-processing.ts, whose extract task bundles the engine's readers
// (pdf.js, OCR, sharp): these three functions must not carry them.

/** Mark processing and record the outcome: the store and the settlement (the terminal event). */
export function extractionProcessor(): ExtractionProcessor {
  return new ExtractionProcessor(extractionStore(), extractionSettlement());
}

/** The fetch task: the outbound download and content sniffing (file-type), which only it bundles. */
export function documentDownload(): DocumentDownload {
  return new DocumentDownload(extractionStore(), new DownloadedDocuments(fileRecordStore(), fileBlobStore()), {
    urlPolicy: configuredUrlPolicy,
    downloadTimeoutMs: paperflowConfiguration().settings.documentDownloadTimeoutMs,
    maximumRedirects: 3,
  });
}
