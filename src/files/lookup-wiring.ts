import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { DynamoDbFileRecordStore } from './aws/dynamodb-file-record-store.ts';
import { S3FileBlobStore } from './aws/s3-file-blob-store.ts';
import { S3FileContentUrls } from './aws/s3-file-content-urls.ts';
import type { FileBlobStore } from './file-blobs.ts';
import { FileLookup, type ContentUrlSigner } from './file-lookup.ts';
import type { FileRecordStore } from './file-records.ts';

// Apart from wiring.ts, which builds the file service and the direct upload: a module that imports them
// bundles the upload path (busboy, file-type, pre-signed POSTs), which `GET /files/{fileId}` never runs.

/** File reads over the stack's table and bucket. Built per call, like `fileService()`. */
export function fileLookup(): FileLookup {
  return new FileLookup(fileRecordStore(), fileContentUrls());
}

export function fileRecordStore(): FileRecordStore {
  return new DynamoDbFileRecordStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function fileContentUrls(): ContentUrlSigner {
  return new S3FileContentUrls(s3Client(), filesBucketName());
}

export function filesBucketName(): string {
  return requiredEnvironment(resourceEnvironment.filesBucketName);
}

/** Object reads and writes without the upload path: the blob store needs neither busboy nor file-type. */
export function fileBlobStore(): FileBlobStore {
  return new S3FileBlobStore(s3Client(), filesBucketName());
}
