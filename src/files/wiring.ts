import { s3Client } from '../infrastructure/s3-client.ts';
import { FileBlobStore } from './file-blobs.ts';
import { FileService } from './file-service.ts';
import { fileContentUrls, fileRecordStore, filesBucketName } from './lookup-wiring.ts';

/**
 * The file service over the stack's table and bucket, from the environment the stack (deployed or
 * local) sets. Built per call, which is cheap: the SDK clients underneath are the cached ones, and a
 * process that starts a second local stack (benchmarks) gets that stack's endpoints and names.
 */
export function fileService(): FileService {
  return new FileService(fileRecordStore(), new FileBlobStore(s3Client(), filesBucketName()), fileContentUrls());
}
