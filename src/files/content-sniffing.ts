import { fileTypeFromBuffer } from 'file-type';
import { pdfHeaderOffset } from '../platform/pdf-header.ts';
import { detectExecutable, isCompoundFile } from './executable-signatures.ts';
import { decodeText, detectScript, textMediaType } from './text-content.ts';

// The media type of an upload comes from its bytes, never from the client's Content-Type: own checks
// for programs first, then file-type's magic numbers, then text heuristics. Only the spec's accepted
// kinds pass (Limits: PDF, JPEG, PNG, TIFF, WebP, DOCX, XLSX, PPTX, plain text, CSV, HTML, archives,
// audio, video); everything else is 415, with a reason that says what the content was taken for.

export type FileKind = 'pdf' | 'image' | 'office' | 'text' | 'csv' | 'html' | 'archive' | 'audio' | 'video';

export type ContentVerdict =
  | { accepted: true; mimeType: string; kind: FileKind; extension: string }
  | { accepted: false; reason: string };

const acceptedByExtension: Record<string, FileKind> = {
  pdf: 'pdf',
  jpg: 'image',
  png: 'image',
  tif: 'image',
  webp: 'image',
  docx: 'office',
  xlsx: 'office',
  pptx: 'office',
  zip: 'archive',
  tar: 'archive',
  gz: 'archive',
  bz2: 'archive',
  '7z': 'archive',
  rar: 'archive',
  xz: 'archive',
  zst: 'archive',
};

/** Detected formats that run code, install software or carry macros: named as such in the 415. */
const programsByExtension: Record<string, string> = {
  exe: 'a Windows executable',
  elf: 'an ELF executable',
  macho: 'a Mach-O executable',
  wasm: 'a WebAssembly module',
  class: 'a Java class file',
  jar: 'a Java archive (JAR)',
  apk: 'an Android package (APK)',
  xpi: 'a browser extension (XPI)',
  crx: 'a browser extension (CRX)',
  deb: 'a Debian package',
  rpm: 'an RPM package',
  dmg: 'a macOS disk image',
  swf: 'a Flash program',
  lnk: 'a Windows shortcut',
  docm: 'a macro-enabled Word document',
  dotm: 'a macro-enabled Word template',
  xlsm: 'a macro-enabled Excel workbook',
  xltm: 'a macro-enabled Excel template',
  pptm: 'a macro-enabled PowerPoint presentation',
  potm: 'a macro-enabled PowerPoint template',
  ppsm: 'a macro-enabled PowerPoint slideshow',
};

const textKinds: Record<string, FileKind> = {
  'text/html': 'html',
  'text/csv': 'csv',
  'text/tab-separated-values': 'csv',
};

const textExtensions: Record<string, string> = {
  'text/html': 'html',
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/json': 'json',
  'application/xml': 'xml',
  'text/plain': 'txt',
};

/**
 * Classifies a file from its first bytes (`head`, up to `sniffedHeadBytes`). `isWholeFile` says the
 * head is the complete content, which matters for text whose last line would otherwise be cut.
 */
export async function sniffContent(head: Uint8Array, isWholeFile: boolean): Promise<ContentVerdict> {
  const executable = detectExecutable(head);
  if (executable) return blocked(executable.description);

  if (isCompoundFile(head)) return notAccepted('a legacy Office (OLE2 compound) file');

  const detected = await detectWithFileType(head);
  if (detected) {
    const program = programsByExtension[detected.ext];
    if (program) return blocked(program);
    const kind = acceptedByExtension[detected.ext] ?? mediaKind(detected.mime);
    if (kind) return { accepted: true, mimeType: detected.mime, kind, extension: detected.ext };
    if (detected.ext !== 'xml') return notAccepted(`${detected.mime} content`);
  }
  // PDF readers accept the header anywhere in the first kilobyte (mail gateways and some scanners
  // prepend junk); file-type only looks at offset 0. The extraction reader opens these too.
  if (!detected && pdfHeaderOffset(head) >= 0) return { accepted: true, mimeType: 'application/pdf', kind: 'pdf', extension: 'pdf' };

  const text = decodeText(head, isWholeFile);
  if (text === undefined) return notAccepted('binary content of an unrecognised format');
  const mimeType = textMediaType(text, isWholeFile);
  const isMarkupOrData = mimeType === 'text/html' || mimeType === 'application/xml' || mimeType === 'application/json';
  const script = detectScript(text, isMarkupOrData);
  if (script) return blocked(script);
  return { accepted: true, mimeType, kind: textKinds[mimeType] ?? 'text', extension: textExtensions[mimeType]! };
}

async function detectWithFileType(head: Uint8Array): Promise<{ ext: string; mime: string } | undefined> {
  try {
    const detected = await fileTypeFromBuffer(head);
    // file-type calls anything starting with "MZ" a Windows executable; detectExecutable has already
    // judged those bytes more strictly, and text such as "MZ Logistics…" must stay text.
    return detected?.ext === 'exe' ? undefined : detected;
  } catch {
    // A head that ends inside a container's structure can make a detector give up; treat as unknown.
    return undefined;
  }
}

function mediaKind(mimeType: string): FileKind | undefined {
  if (mimeType.startsWith('audio/')) return 'audio';
  if (mimeType.startsWith('video/')) return 'video';
  return undefined;
}

function blocked(description: string): ContentVerdict {
  return { accepted: false, reason: `The content is ${description}; executables and scripts are not accepted.` };
}

function notAccepted(description: string): ContentVerdict {
  return {
    accepted: false,
    reason: `The content is ${description}, which is not an accepted kind (PDF, JPEG, PNG, TIFF, WebP, DOCX, XLSX, PPTX, plain text, CSV, HTML, archives, audio, video).`,
  };
}
