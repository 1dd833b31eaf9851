import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { FileBlobStore } from './file-blobs.ts';
import { FileRecordStore } from './file-records.ts';
import { FileService } from './file-service.ts';

/**
 * The file service over the stack's table and bucket, from the environment the stack (deployed or
 * local) sets. Built per call, which is cheap: the SDK clients underneath are the cached ones, and a
 * process that starts a second local stack (benchmarks) gets that stack's endpoints and names.
 */
export function fileService(): FileService {
  return new FileService(
    new FileRecordStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName)),
    new FileBlobStore(s3Client(), requiredEnvironment(resourceEnvironment.filesBucketName)),
  );
}
