import { directUploads } from './files.ts';
import { ExtractionService } from '../extractions/extraction-service.ts';
import { serviceDependencies } from './extractions.ts';

// Apart from extractions.ts: the files domain's multipart upload bundles busboy and file-type, which only
// upload-extraction runs; and upload-extraction takes its document in, so it needs no reads of files
// nor their download links.

/** `POST /extractions/upload`: the extraction service plus the files domain's multipart upload. */
export function extractionServiceWithUploads(): ExtractionService {
  return new ExtractionService({ ...serviceDependencies(), uploads: directUploads() });
}
