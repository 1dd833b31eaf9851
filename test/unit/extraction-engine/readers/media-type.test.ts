import { describe, expect, it } from 'vitest';
import { DocumentRejectedError } from '../../../../src/extraction-engine/document.ts';
import { readDocument } from '../../../../src/extraction-engine/read-document.ts';
import { sniffMediaType } from '../../../../src/extraction-engine/readers/media-type.ts';
import { blankPng, textPdf, zipArchive } from '../../../support/document-builders.ts';

const encode = (text: string) => new TextEncoder().encode(text);

/** The first bytes of formats that must never be read as documents. */
const elfExecutable = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, ...new Array<number>(56).fill(0)]);
const windowsExecutable = (() => {
  const bytes = new Uint8Array(512);
  bytes.set([0x4d, 0x5a]);
  bytes.set([0x80, 0x00, 0x00, 0x00], 0x3c);
  bytes.set([0x50, 0x45, 0x00, 0x00], 0x80);
  return bytes;
})();
const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));
const wavAudio = new Uint8Array([...ascii('RIFF'), 0x24, 0, 0, 0, ...ascii('WAVEfmt '), 16, 0, 0, 0, 1, 0, 1, 0, ...new Array<number>(40).fill(0)]);
const mp4Video = new Uint8Array([0, 0, 0, 0x18, ...ascii('ftypisom'), 0, 0, 2, 0, ...ascii('isomiso2'), ...new Array<number>(40).fill(0)]);
const randomBinary = new Uint8Array(Array.from({ length: 4096 }, (_, index) => (index * 7919 + 13) % 256));

describe('sniffMediaType', () => {
  it('recognises PDF and images by their signature, whatever the file is called', async () => {
    expect(await sniffMediaType(await textPdf([[{ text: 'x', x: 10, y: 10, size: 10 }]]), { fileName: 'notes.txt' })).toEqual({ supported: true, mediaType: 'application/pdf' });
    expect(await sniffMediaType(await blankPng(10, 10), { mediaType: 'text/plain' })).toEqual({ supported: true, mediaType: 'image/png' });
  });

  it.each([
    ['a Linux executable', elfExecutable, /^a program/],
    ['a Windows executable', windowsExecutable, /^a program/],
    ['WAV audio', wavAudio, /^an audio file/],
    ['MP4 video', mp4Video, /^a video/],
    ['a plain ZIP archive', zipArchive([{ name: 'a.txt', content: 'hello' }]), /^an archive/],
    ['unrecognised binary data', randomBinary, /^an unrecognised binary format$/],
  ])('refuses %s, saying what it is', async (_, bytes, description) => {
    const sniffed = await sniffMediaType(bytes, { fileName: 'invoice.pdf' });

    expect(sniffed.supported).toBe(false);
    expect(!sniffed.supported && sniffed.description).toMatch(description);
  });

  it('recognises a PDF whose header follows some junk, as PDF readers do', async () => {
    const pdf = await textPdf([[{ text: 'Invoice behind a mail header', x: 72, y: 700, size: 12 }]]);
    const withJunk = new Uint8Array([...encode('Received: by mail gateway\r\n\r\n'), ...pdf]);

    expect(await sniffMediaType(withJunk)).toEqual({ supported: true, mediaType: 'application/pdf' });
    expect((await readDocument(withJunk)).pages[0]!.lines[0]!.text).toBe('Invoice behind a mail header');
  });

  it('tells text formats apart by content when no hint is given', async () => {
    expect(await sniffMediaType(encode('<html><body><p>Invoice</p></body></html>'))).toMatchObject({ mediaType: 'text/html' });
    expect(await sniffMediaType(encode('<?xml version="1.0"?><Invoice/>'))).toMatchObject({ mediaType: 'application/xml' });
    expect(await sniffMediaType(encode('a,b,c\n1,2,3\n4,5,6\n'))).toMatchObject({ mediaType: 'text/csv' });
    expect(await sniffMediaType(encode('Invoice 42\nTotal: 10,00 EUR\n'))).toMatchObject({ mediaType: 'text/plain' });
  });

  it('lets the declared type or extension decide between text formats', async () => {
    const rows = encode('a,b,c\n1,2,3\n4,5,6\n');

    expect(await sniffMediaType(rows, { fileName: 'notes.TXT' })).toMatchObject({ mediaType: 'text/plain' });
    expect(await sniffMediaType(encode('Invoice 42'), { mediaType: 'text/csv; charset=utf-8' })).toMatchObject({ mediaType: 'text/csv' });
  });
});

describe('readDocument rejections by format', () => {
  it('rejects an executable named like a PDF as unsupported-format, naming what it is', async () => {
    const rejection = await readDocument(elfExecutable, { fileName: 'invoice.pdf', mediaType: 'application/pdf' }).catch((error: unknown) => error);

    expect(rejection).toBeInstanceOf(DocumentRejectedError);
    expect(rejection).toMatchObject({ reason: 'unsupported-format', message: expect.stringMatching(/^The file is a program \(application\/x-elf, \.elf\)/) });
  });

  it('rejects bytes that start like a PDF but are garbage as broken', async () => {
    const rejection = await readDocument(encode(`%PDF-1.7\n${'garbage '.repeat(200)}`)).catch((error: unknown) => error);

    expect(rejection).toMatchObject({ reason: 'broken' });
  });
});
