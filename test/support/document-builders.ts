import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { AFRelationship, PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts, degrees } from 'pdf-lib';
import sharp from 'sharp';
import { zipArchive, type ZipEntry } from './zip-archive.ts';

// Builders for the documents the reader tests need, generated in the test so every expectation can be
// derived from how the document was made.

/**
 * The shared corpus of real documents: PAPERFLOW_CORPUS_DIR, as the eval and the benches take it; else
 * `../shared/corpus` beside the checkout (where CI's clone has it); else beside the repository this one
 * was cloned from, when that is a folder on this machine (a clone made elsewhere, `git clone . "$(mktemp -d)"`).
 */
export const corpusDirectory = findCorpusDirectory();

function findCorpusDirectory(): string {
  if (process.env.PAPERFLOW_CORPUS_DIR) return path.resolve(process.env.PAPERFLOW_CORPUS_DIR);
  const repositoryRoot = path.join(import.meta.dirname, '../..');
  const besideCheckout = path.resolve(repositoryRoot, '../shared/corpus');
  if (existsSync(besideCheckout)) return besideCheckout;
  const origin = clonedFrom(repositoryRoot);
  const besideOrigin = origin === undefined ? undefined : path.resolve(origin, '../shared/corpus');
  return besideOrigin !== undefined && existsSync(besideOrigin) ? besideOrigin : besideCheckout;
}

/** The local folder the checkout was cloned from, if its origin is one. */
function clonedFrom(repositoryRoot: string): string | undefined {
  try {
    const url = execFileSync('git', ['-C', repositoryRoot, 'config', '--get', 'remote.origin.url'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return path.isAbsolute(url) ? url : url.startsWith('file://') ? new URL(url).pathname : undefined;
  } catch {
    return undefined;
  }
}

export function corpusFile(relativePath: string): string {
  return path.join(corpusDirectory, relativePath);
}

export interface PlacedText {
  text: string;
  /** PDF user space: points from the bottom-left corner, baseline position. */
  x: number;
  y: number;
  size: number;
}

/** A text PDF (Helvetica) with the given texts on one page per entry of `pages`. */
export async function textPdf(
  pages: PlacedText[][],
  options: { width?: number; height?: number; rotation?: number; attachments?: { fileName: string; content: string | Uint8Array }[] } = {},
): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const texts of pages) {
    const page = document.addPage([options.width ?? 612, options.height ?? 792]);
    if (options.rotation) page.setRotation(degrees(options.rotation));
    for (const placed of texts) page.drawText(placed.text, { x: placed.x, y: placed.y, size: placed.size, font });
  }
  for (const attachment of options.attachments ?? []) {
    const content = typeof attachment.content === 'string' ? new TextEncoder().encode(attachment.content) : attachment.content;
    await document.attach(content, attachment.fileName, { mimeType: 'text/xml', description: 'e-invoice', afRelationship: AFRelationship.Alternative });
  }
  return document.save();
}

/** A text PDF whose XML file is attached through a file-attachment annotation on its page, not the name tree. */
export async function pdfWithAttachmentAnnotation(texts: PlacedText[], attachment: { fileName: string; content: Uint8Array }): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([612, 792]);
  for (const placed of texts) page.drawText(placed.text, { x: placed.x, y: placed.y, size: placed.size, font });
  const context = document.context;
  const embeddedFile = context.register(context.flateStream(attachment.content, { Type: 'EmbeddedFile', Subtype: 'text/xml' }));
  const fileSpecification = context.register(
    context.obj({ Type: 'Filespec', F: PDFString.of(attachment.fileName), UF: PDFHexString.fromText(attachment.fileName), EF: { F: embeddedFile } }),
  );
  const annotation = context.register(context.obj({ Type: 'Annot', Subtype: 'FileAttachment', Rect: [20, 20, 40, 40], FS: fileSpecification, Name: 'Paperclip' }));
  page.node.set(PDFName.of('Annots'), context.obj([annotation]));
  return document.save();
}

/** A PDF whose only page content is the given PNG, drawn over the whole page (a scan). */
export async function scannedPdf(png: Uint8Array, page: { width: number; height: number } = { width: 595, height: 842 }): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const image = await document.embedPng(png);
  document.addPage([page.width, page.height]).drawImage(image, { x: 0, y: 0, width: page.width, height: page.height });
  return document.save();
}

/** A PDF with text and a PNG drawn at a known box (PDF user space, bottom-left origin). */
export async function pdfWithImage(
  png: Uint8Array,
  box: { x: number; y: number; width: number; height: number },
  texts: PlacedText[],
): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([612, 792]);
  page.drawImage(await document.embedPng(png), box);
  for (const placed of texts) page.drawText(placed.text, { x: placed.x, y: placed.y, size: placed.size, font });
  return document.save();
}

function escapeXml(text: string): string {
  return text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');
}

/** Black sans-serif text lines on white, rasterised by sharp (librsvg), as a PNG. */
export async function textPng(lines: string[], options: { width?: number; fontSize?: number } = {}): Promise<Buffer> {
  const fontSize = options.fontSize ?? 40;
  const width = options.width ?? 1400;
  const lineHeight = Math.round(fontSize * 2);
  const height = lineHeight * (lines.length + 1);
  const texts = lines
    .map((line, index) => `<text x="${fontSize}" y="${lineHeight * (index + 1)}" font-family="DejaVu Sans, sans-serif" font-size="${fontSize}" fill="black">${escapeXml(line)}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="white"/>${texts}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** A blank white PNG (nothing to recognise). */
export async function blankPng(width = 800, height = 600): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#ffffff' } }).png().toBuffer();
}

export { zipArchive, type ZipEntry } from './zip-archive.ts';

/** A minimal Word document: paragraphs, then one table. */
export function docxFile(paragraphs: string[], tableRows: string[][] = []): Uint8Array {
  return zipArchive(docxEntries(paragraphs, tableRows));
}

/** The ZIP entries of a minimal Word document, for tests that tamper with them. */
export function docxEntries(paragraphs: string[], tableRows: string[][] = []): ZipEntry[] {
  const run = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
  const table =
    tableRows.length === 0
      ? ''
      : `<w:tbl>${tableRows.map((cells) => `<w:tr>${cells.map((cell) => `<w:tc>${run(cell)}</w:tc>`).join('')}</w:tr>`).join('')}</w:tbl>`;
  const body = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs.map(run).join('')}${table}</w:body></w:document>`;
  return [
    {
      name: '[Content_Types].xml',
      content:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      content:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    },
    { name: 'word/document.xml', content: body },
  ];
}

/** A PNG header declaring a huge image; decoding it would need gigabytes. */
export function pngDeclaringSize(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc32(typeAndData));
    return Buffer.concat([length, typeAndData, checksum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8);
  header.writeUInt8(2, 9);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])), chunk('IEND', Buffer.alloc(0))]));
}

/** The lines of a till slip that is in no corpus, for the photo tests (`photographed`). */
export const tillSlip = [
  'KAFFEEHAUS MERIDIAN GMBH',
  'Lindenallee 17, 04109 Leipzig',
  'Bon 4471   12.03.2024 09:41',
  'Cappuccino gross       4,20',
  'Mandelcroissant        3,10',
  'Summe EUR             23,70',
  'Gegeben bar           30,00',
  'Rueckgeld              6,30',
];

/** The image as phones photograph a page: held at a slant, a shadow falling across it from the left when asked, saved as JPEG. */
export async function photographed(png: Buffer, options: { slantDegrees: number; shadow: boolean }): Promise<Buffer> {
  const turned = await sharp(png).rotate(options.slantDegrees, { background: '#ffffff' }).toBuffer({ resolveWithObject: true });
  const { width, height } = turned.info;
  const shadow = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="0.3"><stop offset="0" stop-color="#3a3a3a"/><stop offset="0.55" stop-color="#b0b0b0"/><stop offset="1" stop-color="#ffffff"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  const lit = options.shadow ? sharp(turned.data).composite([{ input: Buffer.from(shadow), blend: 'multiply' }]) : sharp(turned.data);
  return lit.jpeg({ quality: 70 }).toBuffer();
}
