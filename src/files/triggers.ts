import type { BucketNotificationTrigger } from '../platform/trigger-table.ts';

/**
 * Upload sessions (pre-signed POST straight to S3) end here: S3 invokes the finalizer for each object
 * created under `workspaces/`, and it acts on upload keys (`workspaces/<ws>/uploads/<fileId>`) only:
 * sniffs the object, enforces the size again and readies or blocks it. Besides reading and writing
 * records and objects it deletes objects (refused uploads, emptied upload keys).
 */
export const uploadedFileFinalizer: BucketNotificationTrigger = {
  kind: 'bucketNotification',
  name: 'finalizeUploadedFile',
  bucket: 'files',
  event: 'objectCreated',
  keyPrefix: 'workspaces/',
  handler: 'functions/files/finalize-uploaded-file.ts',
  description: 'Sniffs and finalizes files uploaded through upload sessions',
  access: { recordsTable: 'readWrite', filesBucket: 'readWriteDelete' },
  timeoutSeconds: 120,
};
