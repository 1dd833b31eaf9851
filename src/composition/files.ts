import { s3Client } from '../infrastructure/s3-client.ts';
import { DirectUploads } from '../files/direct-uploads.ts';
import { FileService } from '../files/file-service.ts';
import { FormUploads } from '../files/form-uploads.ts';
import { fileBlobStore, fileContentUrls, fileRecordStore } from './file-lookup.ts';
import { paperflowConfiguration } from './configuration.ts';
import { builtOnFirstUse } from './built-on-first-use.ts';
import { S3UploadForms } from '../files/aws/s3-upload-forms.ts';
import type { UploadFormSigner } from '../files/upload-forms.ts';

// Built per call, which is cheap: the SDK clients underneath are the cached ones, and a process that
// starts a second local stack (benchmarks) gets that stack's endpoints and names (configuration.ts
// reads the environment again when it changed).

/** Upload sessions, their finalizer, and reads, over the stack's table and bucket. */
export function fileService(): FileService {
  const { settings } = paperflowConfiguration();
  return new FileService(fileRecordStore(), fileBlobStore(), fileContentUrls(), uploadForms(), undefined, {
    contentUrlSeconds: settings.contentUrlLifetimeSeconds,
    uploadUrlSeconds: settings.uploadUrlLifetimeSeconds,
  });
}

function uploadForms(): UploadFormSigner {
  const { resources } = paperflowConfiguration();
  return builtOnFirstUse(() => new S3UploadForms(s3Client(), resources.filesBucketName()));
}

/** Multipart uploads: `POST /files` and the extraction upload. */
export function directUploads(): DirectUploads {
  return new DirectUploads(fileRecordStore(), fileBlobStore());
}

/** Multipart forms whose file parts become files: the input of a workflow run. */
export function formUploads(): FormUploads {
  return new FormUploads(fileRecordStore(), fileBlobStore());
}
