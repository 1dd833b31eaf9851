import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { attachmentDisposition, wholeSecond, type SignedUrl } from '../content-urls.ts';
import type { ContentUrlSigner } from '../file-lookup.ts';

// A module of its own so that `GET /files/{fileId}` bundles the presigner and GetObject only.

/** Pre-signed GETs of file content, minted per request. */
export class S3FileContentUrls implements ContentUrlSigner {
  constructor(
    private readonly client: S3Client,
    private readonly bucketName: string,
  ) {}

  /**
   * Names the file for the browser (as an attachment, so uploaded HTML never renders on the bucket's
   * origin) and carries the sniffed media type.
   */
  async contentUrl(objectKey: string, download: { fileName: string; mimeType: string }, lifetimeSeconds: number, now = new Date()): Promise<SignedUrl> {
    const signingDate = wholeSecond(now);
    const url = await getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucketName,
        Key: objectKey,
        ResponseContentDisposition: attachmentDisposition(download.fileName),
        ResponseContentType: download.mimeType,
      }),
      { expiresIn: lifetimeSeconds, signingDate },
    );
    return { url, expiresAt: new Date(signingDate.getTime() + lifetimeSeconds * 1000).toISOString() };
  }
}
