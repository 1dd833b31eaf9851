import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { zipArchive } from './zip-archive.ts';

// Builders for the files the files tests upload: real documents from the libraries that write them,
// containers assembled byte by byte where that is the point (OOXML package parts, program headers).

export async function samplePdf(text = 'Invoice 2024-0042'): Promise<Buffer> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  page.drawText(text, { x: 50, y: 780, size: 18, font: await document.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await document.save());
}

export async function samplePng(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
}

export { zipArchive, type ZipEntry } from './zip-archive.ts';

const officeMainParts = {
  docx: { directory: 'word', part: 'document.xml', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml' },
  xlsx: { directory: 'xl', part: 'workbook.xml', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml' },
  pptx: { directory: 'ppt', part: 'presentation.xml', type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml' },
} as const;

/** A minimal Open XML package: [Content_Types].xml, the package relationship and the main part. */
export function officeDocument(kind: keyof typeof officeMainParts, body = 'Quarterly figures'): Buffer {
  const main = officeMainParts[kind];
  return zipArchive([
    {
      name: '[Content_Types].xml',
      content:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/${main.directory}/${main.part}" ContentType="${main.type}"/></Types>`,
    },
    {
      name: '_rels/.rels',
      content:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${main.directory}/${main.part}"/></Relationships>`,
    },
    { name: `${main.directory}/${main.part}`, content: `<?xml version="1.0" encoding="UTF-8"?><root><t>${body}</t></root>` },
  ]);
}

/** The header of a 64-bit little-endian ELF executable, followed by filler. */
export function elfExecutable(): Buffer {
  const header = Buffer.alloc(4096);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]).copy(header);
  header.writeUInt16LE(2, 16); // ET_EXEC
  header.writeUInt16LE(0x3e, 18); // x86-64
  return header;
}

/** A DOS stub whose e_lfanew points at a PE signature: what every Windows .exe starts with. */
export function portableExecutable(): Buffer {
  const image = Buffer.alloc(1024);
  image.write('MZ', 0, 'latin1');
  image.writeUInt32LE(0x80, 0x3c);
  image.write('PE\0\0', 0x80, 'latin1');
  image.writeUInt16LE(0x8664, 0x84);
  return image;
}

export function machOExecutable(kind: 'thin' | 'universal'): Buffer {
  const image = Buffer.alloc(1024);
  if (kind === 'thin') {
    image.writeUInt32LE(0xfeedfacf, 0); // MH_MAGIC_64, little-endian on disk
    image.writeUInt32LE(0x01000007, 4); // CPU_TYPE_X86_64
    image.writeUInt32LE(2, 12); // MH_EXECUTE
  } else {
    image.writeUInt32BE(0xcafebabe, 0); // FAT_MAGIC
    image.writeUInt32BE(2, 4); // two architectures
    image.writeUInt32BE(0x01000007, 8);
    image.writeUInt32BE(0x0100000c, 28);
  }
  return image;
}

export function javaArchive(): Buffer {
  return zipArchive([
    { name: 'META-INF/MANIFEST.MF', content: 'Manifest-Version: 1.0\r\nMain-Class: Payload\r\n' },
    { name: 'Payload.class', content: Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x41]) },
  ]);
}

export const sampleCsv = 'invoice,date,amount\nINV-1,2024-01-05,120.00\nINV-2,2024-01-09,89.50\n';
export const sampleText = 'Dear supplier,\nplease find our remittance advice below.\nKind regards, Accounts\n';
export const sampleHtml = '<!DOCTYPE html>\n<html><head><title>Invoice</title></head><body><p>Total: 120.00</p></body></html>\n';
