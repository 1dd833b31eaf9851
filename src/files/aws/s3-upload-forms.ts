import type { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { wholeSecond } from '../content-urls.ts';
import type { UploadForm, UploadFormSigner } from '../upload-forms.ts';

/** Pre-signed S3 POSTs: the upload session's form. */
export class S3UploadForms implements UploadFormSigner {
  constructor(
    private readonly client: S3Client,
    private readonly bucketName: string,
  ) {}

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
