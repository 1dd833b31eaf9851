import type { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { wholeSecond, type SignedUrl } from './content-urls.ts';

// Pre-signed POSTs are a module of their own, like download links: only upload sessions need them,
// not the multipart uploads (the extraction upload's bundle) nor the readers.

export interface UploadForm extends SignedUrl {
  /** Form fields to send, in this order, before the `file` field. */
  fields: Record<string, string>;
}

export class FileUploadForms {
  constructor(
    private readonly client: S3Client,
    private readonly bucketName: string,
  ) {}

  /** A pre-signed POST for exactly this key, whose policy limits the size to 1..maximumBytes. */
  async uploadForm(objectKey: string, maximumBytes: number, lifetimeSeconds: number, now = new Date()): Promise<UploadForm> {
    const { url, fields } = await createPresignedPost(this.client, {
      Bucket: this.bucketName,
      Key: objectKey,
      Conditions: [['content-length-range', 1, maximumBytes]],
      Expires: lifetimeSeconds,
    });
    return { url, fields, expiresAt: new Date(wholeSecond(now).getTime() + lifetimeSeconds * 1000).toISOString() };
  }
}
