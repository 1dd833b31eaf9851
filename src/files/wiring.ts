import { FileService } from './file-service.ts';
import { fileBlobStore, fileContentUrls, fileRecordStore } from './lookup-wiring.ts';

/**
 * The file service over the stack's table and bucket, from the environment the stack (deployed or
 * local) sets. Built per call, which is cheap: the SDK clients underneath are the cached ones, and a
 * process that starts a second local stack (benchmarks) gets that stack's endpoints and names.
 */
export function fileService(): FileService {
  return new FileService(fileRecordStore(), fileBlobStore(), fileContentUrls());
}
