import { fileTypeFromBuffer } from 'file-type';
import { pdfHeaderOffset } from './pdf-repair.ts';
import { decodeText, looksLikeText } from './text-decoding.ts';

// The media types the readers accept. Anything else is refused as unsupported-format.
export const mediaTypes = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  tiff: 'image/tiff',
  webp: 'image/webp',
  gif: 'image/gif',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xml: 'application/xml',
  html: 'text/html',
  csv: 'text/csv',
  plainText: 'text/plain',
} as const;

export type SupportedMediaType = (typeof mediaTypes)[keyof typeof mediaTypes];

const supportedMediaTypes = new Set<string>(Object.values(mediaTypes));

export type MediaTypeSniff =
  | { supported: true; mediaType: SupportedMediaType }
  | { supported: false; description: string };

const textFormatByExtension: Record<string, SupportedMediaType> = {
  csv: mediaTypes.csv,
  tsv: mediaTypes.csv,
  htm: mediaTypes.html,
  html: mediaTypes.html,
  xhtml: mediaTypes.html,
  xml: mediaTypes.xml,
  txt: mediaTypes.plainText,
  text: mediaTypes.plainText,
};

const textFormatByDeclaredType: Record<string, SupportedMediaType> = {
  'text/csv': mediaTypes.csv,
  'text/tab-separated-values': mediaTypes.csv,
  'text/html': mediaTypes.html,
  'application/xhtml+xml': mediaTypes.html,
  'application/xml': mediaTypes.xml,
  'text/xml': mediaTypes.xml,
  'text/plain': mediaTypes.plainText,
};

/**
 * Decides the format from the bytes. Binary formats are recognised by their signature only, so a
 * renamed executable is never read as a PDF. Text formats have no signature; the declared media type
 * or file extension decides between them when given, the content otherwise.
 */
export async function sniffMediaType(
  bytes: Uint8Array,
  hints: { mediaType?: string; fileName?: string } = {},
): Promise<MediaTypeSniff> {
  const detected = await fileTypeFromBuffer(bytes);
  // A damaged Word or Excel file no longer shows its inner parts, only the ZIP signature: when the upload
  // says it is one, let the office reader report the damage rather than calling it an archive.
  if (detected?.mime === 'application/zip') {
    const office = officeFormatFromHints(hints);
    if (office) return { supported: true, mediaType: office };
  }
  if (detected && detected.mime !== 'application/xml') {
    if (supportedMediaTypes.has(detected.mime)) return { supported: true, mediaType: detected.mime as SupportedMediaType };
    return { supported: false, description: describeUnsupportedFormat(detected.mime, detected.ext) };
  }
  // PDF readers accept a header anywhere in the first kilobyte (mail gateways and some scanners prepend
  // junk); file-type only looks at offset 0.
  if (!detected && pdfHeaderOffset(bytes) >= 0) return { supported: true, mediaType: mediaTypes.pdf };
  if (!looksLikeText(bytes)) return { supported: false, description: 'an unrecognised binary format' };

  const hinted = textFormatFromHints(hints);
  if (hinted) return { supported: true, mediaType: hinted };
  return { supported: true, mediaType: textFormatFromContent(decodeText(bytes.subarray(0, 64 * 1024))) };
}

function officeFormatFromHints(hints: { mediaType?: string; fileName?: string }): SupportedMediaType | undefined {
  const declared = hints.mediaType?.split(';')[0]?.trim().toLowerCase();
  const extension = hints.fileName?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (declared === mediaTypes.docx || extension === 'docx') return mediaTypes.docx;
  if (declared === mediaTypes.xlsx || extension === 'xlsx') return mediaTypes.xlsx;
  return undefined;
}

function textFormatFromHints(hints: { mediaType?: string; fileName?: string }): SupportedMediaType | undefined {
  const declared = hints.mediaType?.split(';')[0]?.trim().toLowerCase();
  if (declared && textFormatByDeclaredType[declared]) return textFormatByDeclaredType[declared];
  const extension = hints.fileName?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  return extension ? textFormatByExtension[extension] : undefined;
}

/** Content heuristics for text without a usable hint; `sample` is the decoded start of the file. */
export function textFormatFromContent(sample: string): SupportedMediaType {
  const head = sample.trimStart().slice(0, 2048).toLowerCase();
  if (/^<!doctype html|^<html[\s>]/.test(head) || /<(body|div|table|p|br)[\s/>]/.test(head)) return mediaTypes.html;
  if (head.startsWith('<?xml') || /^<[a-z_][\w.:-]*[\s>]/.test(head)) return mediaTypes.xml;
  if (looksLikeDelimitedRows(sample)) return mediaTypes.csv;
  return mediaTypes.plainText;
}

/** At least three rows, nearly all with the same (non-zero) number of one delimiter outside quotes. */
function looksLikeDelimitedRows(sample: string): boolean {
  const rows = sample.split(/\r?\n/).filter((row) => row.trim() !== '').slice(0, 50);
  if (rows.length < 3) return false;
  return [',', ';', '\t', '|'].some((delimiter) => {
    const counts = rows.map((row) => countOutsideQuotes(row, delimiter));
    const first = counts[0] ?? 0;
    if (first === 0) return false;
    const matching = counts.filter((count) => count === first).length;
    return matching >= rows.length * 0.9;
  });
}

function countOutsideQuotes(row: string, delimiter: string): number {
  let count = 0;
  let inQuotes = false;
  for (const character of row) {
    if (character === '"') inQuotes = !inQuotes;
    else if (character === delimiter && !inQuotes) count += 1;
  }
  return count;
}

const archiveMediaTypes = new Set([
  'application/zip',
  'application/gzip',
  'application/x-tar',
  'application/x-7z-compressed',
  'application/x-rar-compressed',
  'application/x-bzip2',
  'application/x-xz',
  'application/zstd',
]);

const executableMediaTypes = new Set([
  'application/x-elf',
  'application/x-msdownload',
  'application/x-mach-binary',
  'application/vnd.microsoft.portable-executable',
  'application/x-executable',
  'application/wasm',
  'application/java-archive',
  'application/vnd.android.package-archive',
]);

/** What the uploader is told the file is, in words, with the technical type for support. */
function describeUnsupportedFormat(mime: string, extension: string): string {
  const technical = `${mime}, .${extension}`;
  if (executableMediaTypes.has(mime)) return `a program (${technical})`;
  if (archiveMediaTypes.has(mime)) return `an archive (${technical})`;
  if (mime.startsWith('audio/')) return `an audio file (${technical})`;
  if (mime.startsWith('video/')) return `a video (${technical})`;
  if (mime.startsWith('image/')) return `an image format that cannot be read (${technical})`;
  return `a file of type ${mime} (.${extension})`;
}
