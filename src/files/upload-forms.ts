import type { SignedUrl } from './content-urls.ts';

// Pre-signed POSTs are a port of their own, like download links: only upload sessions need them,
// not the multipart uploads (the extraction upload's bundle) nor the readers.

export interface UploadForm extends SignedUrl {
  /** Form fields to send, in this order, before the `file` field. */
  fields: Record<string, string>;
}

/** Mints the form a client uploads a file's bytes with (the S3 adapter: aws/s3-upload-forms.ts). */
export interface UploadFormSigner {
  /** A form that writes exactly this key, whose policy limits the size to 1..maximumBytes. */
  uploadForm(objectKey: string, maximumBytes: number, lifetimeSeconds: number, now: Date): Promise<UploadForm>;
}
