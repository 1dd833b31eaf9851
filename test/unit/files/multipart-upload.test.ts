import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { maximumFileBytes } from '../../../src/files/file-limits.ts';
import { receiveMultipartUpload } from '../../../src/files/multipart-upload.ts';
import { elfExecutable, sampleCsv, samplePdf } from '../../support/sample-files.ts';

const boundary = 'unit-boundary';
const contentType = `multipart/form-data; boundary=${boundary}`;

interface Part {
  name: string;
  fileName?: string;
  content: Buffer | string;
}

function formBody(parts: Part[]): Buffer {
  const pieces = parts.flatMap((part) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${part.fileName !== undefined ? `; filename="${part.fileName}"` : ''}\r\n` +
        `${part.fileName !== undefined ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`,
    ),
    Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]);
}

/** A form whose file part is `firstBytes` plus filler up to `fileBytes`, counting what was read. */
function largeFormStream(firstBytes: Buffer, fileBytes: number) {
  const counter = { bytesRead: 0 };
  const filler = Buffer.alloc(256 * 1024, 0x20);
  async function* generate() {
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n\r\n`);
    counter.bytesRead += head.length + firstBytes.length;
    yield head;
    yield firstBytes;
    for (let remaining = fileBytes - firstBytes.length; remaining > 0; remaining -= filler.length) {
      const chunk = filler.subarray(0, Math.min(remaining, filler.length));
      counter.bytesRead += chunk.length;
      yield chunk;
    }
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return { stream: Readable.from(generate(), { objectMode: false }), counter };
}

describe('receiveMultipartUpload', () => {
  it('spools the file part with its size and SHA-256, and takes the fileName part', async () => {
    const pdf = await samplePdf();
    const received = await receiveMultipartUpload(
      Readable.from(formBody([{ name: 'file', fileName: 'scan.bin', content: pdf }, { name: 'fileName', content: 'Invoice March.pdf' }])),
      contentType,
    );
    try {
      expect(received).toMatchObject({ size: pdf.length, fileNameField: 'Invoice March.pdf', partFileName: 'scan.bin', verdict: { mimeType: 'application/pdf' } });
      expect(received.sha256).toBe(createHash('sha256').update(pdf).digest('hex'));
      expect((await readFile(received.path)).equals(pdf)).toBe(true);
    } finally {
      await received.discard();
    }
    await expect(stat(received.path)).rejects.toThrow();
  });

  it('keeps the file part\'s filename with its path, for the one cleaning rule', async () => {
    const received = await receiveMultipartUpload(Readable.from(formBody([{ name: 'file', fileName: 'exports/ledger.csv', content: sampleCsv }])), contentType);
    await received.discard();
    expect(received).toMatchObject({ partFileName: 'exports/ledger.csv', fileNameField: undefined });
  });

  it('stops reading at the first byte over 50 MB with 413', async () => {
    const { stream, counter } = largeFormStream(Buffer.from('%PDF-1.7\n'), maximumFileBytes + 8 * 1024 * 1024);
    await expect(receiveMultipartUpload(stream, contentType)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(counter.bytesRead).toBeLessThan(maximumFileBytes + 2 * 1024 * 1024);
  });

  it('accepts exactly 50 MB', async () => {
    const { stream } = largeFormStream(Buffer.from('%PDF-1.7\n'), maximumFileBytes);
    const received = await receiveMultipartUpload(stream, contentType);
    await received.discard();
    expect(received.size).toBe(maximumFileBytes);
  });

  it('refuses an executable as soon as its head is sniffed, without reading the rest', async () => {
    const { stream, counter } = largeFormStream(elfExecutable(), 40 * 1024 * 1024);
    await expect(receiveMultipartUpload(stream, contentType)).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(counter.bytesRead).toBeLessThan(4 * 1024 * 1024);
  });

  it('answers 422 with details for a missing file part, two file parts, a file sent as a plain field and an empty file', async () => {
    const cases: Part[][] = [
      [{ name: 'fileName', content: 'a.pdf' }],
      [
        { name: 'file', fileName: 'a.csv', content: sampleCsv },
        { name: 'file', fileName: 'b.csv', content: sampleCsv },
      ],
      [{ name: 'file', content: sampleCsv }],
      [{ name: 'file', fileName: 'empty.pdf', content: '' }],
    ];
    for (const parts of cases) {
      await expect(receiveMultipartUpload(Readable.from(formBody(parts)), contentType)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'file', issue: expect.any(String) }],
      });
    }
  });

  it('answers 400 for a truncated body, a missing boundary and too many parts', async () => {
    const truncated = formBody([{ name: 'file', fileName: 'a.csv', content: sampleCsv }]).subarray(0, 120);
    await expect(receiveMultipartUpload(Readable.from(truncated), contentType)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(receiveMultipartUpload(Readable.from(Buffer.from('x')), 'multipart/form-data')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const manyFields = Array.from({ length: 30 }, (_, index) => ({ name: `extra${index}`, content: 'x' }));
    await expect(receiveMultipartUpload(Readable.from(formBody(manyFields)), contentType)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('answers 400 when the client goes away mid-upload, with or without an error', async () => {
    for (const cause of [undefined, new Error('socket hang up')]) {
      const body = new Readable({ read() {} });
      body.push(formBody([{ name: 'file', fileName: 'a.csv', content: sampleCsv }]).subarray(0, 150));
      setTimeout(() => body.destroy(cause), 10);
      await expect(receiveMultipartUpload(body, contentType)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    }
  });

  it('ignores file parts under other names', async () => {
    const received = await receiveMultipartUpload(
      Readable.from(formBody([{ name: 'attachment', fileName: 'x.exe', content: elfExecutable() }, { name: 'file', fileName: 'a.csv', content: sampleCsv }])),
      contentType,
    );
    await received.discard();
    expect(received.verdict.mimeType).toBe('text/csv');
  });
});
