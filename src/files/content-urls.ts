// What download links and upload forms are made of, apart from the signing itself (aws/s3-file-content-urls.ts,
// aws/s3-upload-forms.ts), so that `GET /files/{fileId}` bundles the presigner and GetObject only, not
// the upload path (multipart parsing, sniffing, pre-signed POSTs).

export interface SignedUrl {
  url: string;
  expiresAt: string;
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
