import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import { builtOnFirstUse } from './built-on-first-use.ts';
import { DynamoDbFileRecordStore } from '../files/aws/dynamodb-file-record-store.ts';
import { S3FileBlobStore } from '../files/aws/s3-file-blob-store.ts';
import { S3FileContentUrls } from '../files/aws/s3-file-content-urls.ts';
import type { FileBlobStore } from '../files/file-blobs.ts';
import { FileLookup, type ContentUrlSigner } from '../files/file-lookup.ts';
import type { FileRecordStore } from '../files/file-records.ts';

// Apart from files.ts, which builds the file service and the direct upload: a module that imports them
// bundles the upload path (busboy, file-type, pre-signed POSTs), which `GET /files/{fileId}` never runs.

/** File reads over the stack's table and bucket. Built per call, like `fileService()`. */
export function fileLookup(): FileLookup {
  return new FileLookup(fileRecordStore(), fileContentUrls(), undefined, paperflowConfiguration().settings.contentUrlLifetimeSeconds);
}

export function fileRecordStore(): FileRecordStore {
  return new DynamoDbFileRecordStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}

export function fileContentUrls(): ContentUrlSigner {
  const { resources } = paperflowConfiguration();
  return builtOnFirstUse(() => new S3FileContentUrls(s3Client(), resources.filesBucketName()));
}

/** Object reads and writes without the upload path: the blob store needs neither busboy nor file-type. */
export function fileBlobStore(): FileBlobStore {
  const { resources } = paperflowConfiguration();
  return builtOnFirstUse(() => new S3FileBlobStore(s3Client(), resources.filesBucketName()));
}
