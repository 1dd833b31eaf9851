import { directUploads } from '../files/wiring.ts';
import type { ExtractionService } from './extraction-service.ts';
import { extractionService } from './wiring.ts';

// Apart from wiring.ts: the files domain's multipart upload bundles busboy and file-type, which only
// upload-extraction runs.

/** `POST /extractions/upload`: the extraction service plus the files domain's multipart upload. */
export function extractionServiceWithUploads(): ExtractionService {
  return extractionService(directUploads());
}
