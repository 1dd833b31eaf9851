import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

// Download URLs are a module of their own so that `GET /files/{fileId}` bundles the presigner and
// GetObject only, not the upload path (multipart parsing, sniffing, pre-signed POSTs).

export interface SignedUrl {
  url: string;
  expiresAt: string;
}

/** Pre-signed GETs of file content, minted per request. */
export class FileContentUrls {
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

/** SigV4 dates have whole seconds; signing at one keeps `expiresAt` exactly what S3 enforces. */
export function wholeSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** RFC 6266: an ASCII fallback name plus the exact UTF-8 name (RFC 5987 encoding). */
export function attachmentDisposition(fileName: string): string {
  const asciiFallback = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${asciiFallback}"; filename*=UTF-8''${encoded}`;
}
