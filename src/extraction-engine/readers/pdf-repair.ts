// Recovery of damaged PDFs that pdf.js alone does not open. pdf.js already tolerates junk before the
// header, a missing %%EOF and wrong cross-reference offsets (it re-indexes the objects), but it gives
// up when no trailer names the document catalog (a lost or cut-off xref section and trailer). Other
// readers (qpdf, mupdf, pdfium) rebuild the structure by scanning the objects; so does this: the
// bytes from the header on, every `N G obj` found, and a fresh xref table and trailer appended as an
// incremental update, naming the catalog (or, without one, a page tree over the pages found).
// PDF 1.5 files keep most objects, the catalog and pages among them, compressed inside object streams
// that only their (lost) xref stream indexes: those objects are unpacked and written out as plain
// objects in the update, so the classic xref table can name them.

import { inflateSync } from 'node:zlib';
import { pdfHeaderOffset } from '../../platform/pdf-header.ts';

export { pdfHeaderOffset };

const latin1 = new TextDecoder('latin1');

interface IndexedObject {
  number: number;
  generation: number;
  offset: number;
  body: string;
}

/**
 * A rebuilt copy of a damaged PDF, or undefined when there is nothing to rebuild from: no header, or
 * neither a catalog nor a page among the objects (a download cut off before its pages).
 */
export function rebuildPdfStructure(bytes: Uint8Array): Uint8Array | undefined {
  const headerOffset = pdfHeaderOffset(bytes);
  if (headerOffset < 0) return undefined;
  const body = bytes.subarray(headerOffset);
  const text = latin1.decode(body);
  const objects = indexObjects(text);
  if (objects.size === 0) return undefined;
  const unpacked = [...objectsInObjectStreams(body, objects).values()].filter((object) => !objects.has(object.number));
  const allObjects = [...objects.values(), ...unpacked.map((object) => ({ ...object, generation: 0, offset: -1 }))];

  let nextNumber = Math.max(...allObjects.map((object) => object.number)) + 1;
  const appended: { number: number; content: string }[] = unpacked.map((object) => ({ number: object.number, content: object.body }));
  let root = allObjects.find((object) => /\/Type\s*\/Catalog\b/.test(object.body));
  if (!root) {
    const pages = allObjects.filter((object) => /\/Type\s*\/Page(?![a-zA-Z])/.test(object.body)).sort((a, b) => a.offset - b.offset || a.number - b.number);
    if (pages.length === 0) return undefined;
    const pageTreeNumber = nextNumber++;
    const catalogNumber = nextNumber++;
    const kids = pages.map((page) => `${page.number} ${page.generation} R`).join(' ');
    appended.push({ number: pageTreeNumber, content: `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>` });
    appended.push({ number: catalogNumber, content: `<< /Type /Catalog /Pages ${pageTreeNumber} 0 R >>` });
    root = { number: catalogNumber, generation: 0, offset: -1, body: '' };
  }

  const separator = /[\r\n]$/.test(text) ? '' : '\n';
  let update = separator;
  const offsets = new Map<number, { offset: number; generation: number }>();
  for (const object of objects.values()) offsets.set(object.number, { offset: object.offset, generation: object.generation });
  for (const object of appended) {
    offsets.set(object.number, { offset: body.length + update.length, generation: 0 });
    update += `${object.number} 0 obj\n${object.content}\nendobj\n`;
  }
  const xrefOffset = body.length + update.length;
  const size = nextNumber;
  const entries: string[] = [];
  for (let number = 0; number < size; number += 1) {
    const entry = offsets.get(number);
    entries.push(entry ? `${String(entry.offset).padStart(10, '0')} ${String(entry.generation).padStart(5, '0')} n \n` : `0000000000 ${number === 0 ? '65535' : '00000'} f \n`);
  }
  const info = allObjects.find((object) => /\/(Producer|Creator)\b/.test(object.body) && !/\/Type\b/.test(object.body));
  update += `xref\n0 ${size}\n${entries.join('')}trailer\n<< /Size ${size} /Root ${root.number} ${root.generation} R${info ? ` /Info ${info.number} ${info.generation} R` : ''} >>\nstartxref\n${xrefOffset}\n%%EOF\n`;

  const rebuilt = new Uint8Array(body.length + update.length);
  rebuilt.set(body, 0);
  rebuilt.set(Uint8Array.from(update, (character) => character.charCodeAt(0)), body.length);
  return rebuilt;
}

/**
 * Every `N G obj` at the start of a line (or after whitespace) with its dictionary text, the last
 * definition of a number winning as in an incremental update. Stream data is skipped by its keyword.
 */
function indexObjects(text: string): Map<number, IndexedObject> {
  const objects = new Map<number, IndexedObject>();
  const objectStart = /(?:^|[\s>])(\d{1,7})\s+(\d{1,5})\s+obj\b/g;
  for (let match = objectStart.exec(text); match; match = objectStart.exec(text)) {
    const offset = match.index + match[0].length - match[0].trimStart().length;
    const contentStart = match.index + match[0].length;
    const extent = objectExtent(text, contentStart);
    // An object cut off before its end (a truncated file) is left out: its bytes are incomplete.
    if (!extent) continue;
    const number = Number(match[1]);
    objects.set(number, { number, generation: Number(match[2]), offset, body: text.slice(contentStart, extent.dictionaryEnd) });
    objectStart.lastIndex = extent.objectEnd;
  }
  return objects;
}

/** Where the object's dictionary ends (its `stream` keyword or `endobj`) and where the object ends. */
function objectExtent(text: string, from: number): { dictionaryEnd: number; objectEnd: number } | undefined {
  const endObject = text.indexOf('endobj', from);
  const stream = text.indexOf('stream', from);
  if (stream >= 0 && (endObject < 0 || stream < endObject)) {
    const endStream = text.indexOf('endstream', stream);
    const afterStream = endStream < 0 ? -1 : text.indexOf('endobj', endStream);
    return afterStream < 0 ? undefined : { dictionaryEnd: stream, objectEnd: afterStream };
  }
  return endObject < 0 ? undefined : { dictionaryEnd: endObject, objectEnd: endObject };
}

/** Object streams larger than this (decompressed) are not unpacked: no catalog needs megabytes. */
const maxObjectStreamBytes = 10 * 1024 * 1024;

/**
 * The objects packed in the file's object streams (`/Type /ObjStm`, Flate-compressed or not): the
 * stream starts with N pairs "number offset", and object i's text runs from /First + offset to the
 * next one's. Streams that do not decompress are skipped; what they held stays lost.
 */
function objectsInObjectStreams(body: Uint8Array, objects: Map<number, IndexedObject>): Map<number, { number: number; body: string }> {
  const unpacked = new Map<number, { number: number; body: string }>();
  for (const stream of objects.values()) {
    if (!/\/Type\s*\/ObjStm\b/.test(stream.body)) continue;
    const filter = /\/Filter\s*\[?\s*\/(\w+)/.exec(stream.body)?.[1];
    if (filter !== undefined && filter !== 'FlateDecode') continue;
    const count = Number(/\/N\s+(\d+)/.exec(stream.body)?.[1]);
    const first = Number(/\/First\s+(\d+)/.exec(stream.body)?.[1]);
    const data = streamData(body, stream);
    if (!data || !Number.isInteger(count) || !Number.isInteger(first)) continue;
    let decoded: string;
    try {
      decoded = latin1.decode(filter ? inflateSync(data, { maxOutputLength: maxObjectStreamBytes }) : data);
    } catch {
      continue;
    }
    const header = decoded.slice(0, first).trim().split(/\s+/).map(Number);
    for (let index = 0; index < count; index += 1) {
      const number = header[2 * index];
      const start = header[2 * index + 1];
      if (number === undefined || start === undefined || !Number.isInteger(number) || !Number.isInteger(start)) break;
      const end = header[2 * index + 3] ?? decoded.length - first;
      unpacked.set(number, { number, body: decoded.slice(first + start, first + end).trim() });
    }
  }
  return unpacked;
}

/** The raw bytes of a stream object: between `stream` and `endstream`, its end-of-line markers excluded. */
function streamData(body: Uint8Array, object: IndexedObject): Uint8Array | undefined {
  const text = latin1.decode(body.subarray(object.offset));
  const keyword = text.indexOf('stream', text.indexOf('obj'));
  const end = text.indexOf('endstream', keyword);
  if (keyword < 0 || end < 0) return undefined;
  let start = keyword + 'stream'.length;
  if (text[start] === '\r') start += 1;
  if (text[start] === '\n') start += 1;
  return body.subarray(object.offset + start, object.offset + end);
}
