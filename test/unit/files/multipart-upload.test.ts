import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { maximumFileBytes } from '../../../src/files/file-limits.ts';
import type { EarlyStore } from '../../../src/files/early-copy.ts';
import { receiveMultipartUpload, type ReceivedFile } from '../../../src/files/multipart-upload.ts';
import { PayloadTooLargeError } from '../../../src/platform/errors.ts';
import { httpStatusOf } from '../../../src/http/error-responses.ts';
import { redirectTmpdir } from '../../support/redirected-tmpdir.ts';
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

function spooledPath(received: ReceivedFile): string {
  if (!('spooledAt' in received.content)) throw new Error('The file was not spooled.');
  return received.content.spooledAt;
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
      expect((await readFile(spooledPath(received))).equals(pdf)).toBe(true);
    } finally {
      await received.discard();
    }
    await expect(stat(spooledPath(received))).rejects.toThrow();
  });

  it('keeps the file part\'s filename with its path, for the one cleaning rule', async () => {
    const received = await receiveMultipartUpload(Readable.from(formBody([{ name: 'file', fileName: 'exports/ledger.csv', content: sampleCsv }])), contentType);
    await received.discard();
    expect(received).toMatchObject({ partFileName: 'exports/ledger.csv', fileNameField: undefined });
  });

  it('stops reading at the first byte over 50 MB with 413', async () => {
    const { stream, counter } = largeFormStream(Buffer.from('%PDF-1.7\n'), maximumFileBytes + 8 * 1024 * 1024);
    const error = await receiveMultipartUpload(stream, contentType).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(httpStatusOf(error as PayloadTooLargeError)).toBe(413);
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

  it('leaves no spooled file behind when a refusal comes before a file part of the same chunk', async () => {
    // busboy goes on parsing the chunk it holds after the refusal; the file part it then starts is skipped.
    const spoolRoot = redirectTmpdir('multipart-unit-');
    try {
      const body = formBody([
        { name: 'labels', content: 'y'.repeat(200 * 1024) },
        { name: 'file', fileName: 'a.csv', content: sampleCsv },
      ]);
      await expect(receiveMultipartUpload(Readable.from([body]), contentType)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      await new Promise((resolve) => setTimeout(resolve, 50)); // a spool started after the answer would be on disk by now
      expect(await readdir(spoolRoot.folder)).toEqual([]);
    } finally {
      spoolRoot.restore();
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

describe('receiveMultipartUpload with an early store', () => {
  interface FinishedFile {
    size: number;
    sha256: string;
    rest?: Buffer;
  }

  /** A store that keeps what it is given, and says what happened to it. */
  function recordingStore(options: { fails?: boolean } = {}) {
    const opened: { size: number; mimeType: string; chunks: Buffer[]; finishedAs?: FinishedFile; discarded: boolean }[] = [];
    const store: EarlyStore = {
      open(size, verdict) {
        const content: (typeof opened)[number] = { size, mimeType: verdict.mimeType, chunks: [], discarded: false };
        opened.push(content);
        return {
          write: async (chunk) => {
            content.chunks.push(Buffer.from(chunk));
          },
          finish: async (file) => {
            content.finishedAs = { size: file.size, sha256: file.sha256, ...(file.rest ? { rest: await buffer(file.rest()) } : {}) };
            if (options.fails) throw new Error('S3 failed');
            return `stored/${opened.length}`;
          },
          discard: async () => {
            content.discarded = true;
          },
        };
      },
    };
    return { store, opened, bytesOf: (index: number) => Buffer.concat(opened[index]!.chunks) };
  }

  const largePdf = () => Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1024 * 1024 + 12_345)]);
  const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  /** The body in chunks of 64 KB, as a socket delivers it. */
  const inChunks = (body: Buffer) => Readable.from(Array.from({ length: Math.ceil(body.length / 65_536) }, (_, index) => body.subarray(index * 65_536, (index + 1) * 65_536)));

  it('stores a file that is the last part while it arrives, with the size told by Content-Length, spooling nothing', async () => {
    const pdf = largePdf();
    const body = formBody([{ name: 'fileName', content: 'March.pdf' }, { name: 'file', fileName: 'scan.pdf', content: pdf }]);
    const { store, opened, bytesOf } = recordingStore();

    const received = await receiveMultipartUpload(inChunks(body), contentType, { declaredBodyBytes: body.length, earlyStore: store });
    await received.discard();

    expect(received).toMatchObject({ content: { storedAt: 'stored/1' }, size: pdf.length, sha256: sha256Of(pdf), fileNameField: 'March.pdf' });
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ size: pdf.length, mimeType: 'application/pdf', finishedAs: { size: pdf.length, sha256: sha256Of(pdf) }, discarded: false });
    expect(opened[0]!.finishedAs!.rest).toBeUndefined();
    expect(bytesOf(0).equals(pdf)).toBe(true);
  });

  it('hands over a file shorter than told, when a part follows it, with its real size', async () => {
    const pdf = largePdf();
    const body = formBody([{ name: 'file', fileName: 'scan.pdf', content: pdf }, { name: 'fileName', content: 'March.pdf' }]);
    const { store, opened, bytesOf } = recordingStore();

    const received = await receiveMultipartUpload(inChunks(body), contentType, { declaredBodyBytes: body.length, earlyStore: store });
    await received.discard();

    expect(received).toMatchObject({ content: { storedAt: 'stored/1' }, size: pdf.length, fileNameField: 'March.pdf' });
    expect(opened[0]!.size).toBeGreaterThan(pdf.length);
    expect(opened[0]).toMatchObject({ finishedAs: { size: pdf.length, sha256: sha256Of(pdf) }, discarded: false });
    expect(bytesOf(0).equals(pdf)).toBe(true);
  });

  it('passes on no more than told of a longer file, and hands over the rest from the spool', async () => {
    const pdf = largePdf();
    // Without the CRLF after the closing delimiter (allowed), the file is two bytes longer than told.
    const body = formBody([{ name: 'file', fileName: 'scan.pdf', content: pdf }]).subarray(0, -2);
    const { store, opened, bytesOf } = recordingStore();

    const received = await receiveMultipartUpload(inChunks(body), contentType, { declaredBodyBytes: body.length, earlyStore: store });
    await received.discard();

    expect(received).toMatchObject({ content: { storedAt: 'stored/1' }, size: pdf.length });
    expect(opened[0]!.size).toBe(pdf.length - 2);
    expect(bytesOf(0).equals(pdf.subarray(0, -2))).toBe(true);
    expect(opened[0]!.finishedAs).toMatchObject({ size: pdf.length, sha256: sha256Of(pdf) });
    expect(opened[0]!.finishedAs!.rest!.equals(pdf.subarray(-2))).toBe(true);
  });

  it('spools the file when its size cannot be told: no Content-Length, or a file within the sniffed head', async () => {
    const pdf = largePdf();
    const { store, opened } = recordingStore();
    const unknownLength = await receiveMultipartUpload(inChunks(formBody([{ name: 'file', fileName: 'a.pdf', content: pdf }])), contentType, { earlyStore: store });
    const smallBody = formBody([{ name: 'file', fileName: 'a.csv', content: sampleCsv }]);
    const small = await receiveMultipartUpload(Readable.from(smallBody), contentType, { declaredBodyBytes: smallBody.length, earlyStore: store });
    try {
      expect(opened).toHaveLength(0);
      expect((await readFile(spooledPath(unknownLength))).equals(pdf)).toBe(true);
      expect(await readFile(spooledPath(small), 'utf8')).toBe(sampleCsv);
    } finally {
      await unknownLength.discard();
      await small.discard();
    }
  });

  it('discards the early copy and answers the failure when the early store cannot store the file', async () => {
    const pdf = largePdf();
    const body = formBody([{ name: 'file', fileName: 'scan.pdf', content: pdf }]);
    const { store, opened } = recordingStore({ fails: true });

    await expect(receiveMultipartUpload(inChunks(body), contentType, { declaredBodyBytes: body.length, earlyStore: store })).rejects.toThrow('S3 failed');
    expect(opened[0]).toMatchObject({ discarded: true });
  });

  it('never opens the early store for a file the Content-Length says is over 50 MB, and answers 413', async () => {
    const { stream } = largeFormStream(Buffer.from('%PDF-1.7\n'), maximumFileBytes + 1);
    const declaredBodyBytes = formBody([{ name: 'file', fileName: 'big.pdf', content: Buffer.alloc(maximumFileBytes + 1) }]).length;
    const { store, opened } = recordingStore();
    await expect(receiveMultipartUpload(stream, contentType, { declaredBodyBytes, earlyStore: store })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(opened).toHaveLength(0);
  });

  it('never opens the early store for a refused type', async () => {
    const executable = Buffer.concat([elfExecutable(), randomBytes(1024 * 1024)]);
    const body = formBody([{ name: 'file', fileName: 'invoice.pdf', content: executable }]);
    const { store, opened } = recordingStore();
    await expect(receiveMultipartUpload(inChunks(body), contentType, { declaredBodyBytes: body.length, earlyStore: store })).rejects.toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    expect(opened).toHaveLength(0);
  });

  it('has discarded the early copy by the time it answers 400 for a client that went away', async () => {
    const pdf = largePdf();
    const whole = formBody([{ name: 'file', fileName: 'scan.pdf', content: pdf }]);
    const body = new Readable({ read() {} });
    body.push(whole.subarray(0, 600_000));
    setTimeout(() => body.destroy(), 20);
    const { store, opened } = recordingStore();

    const refusal = await receiveMultipartUpload(body, contentType, { declaredBodyBytes: whole.length, earlyStore: store }).catch((error: unknown) => error);

    expect(refusal).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ discarded: true });
    expect(opened[0]!.finishedAs).toBeUndefined();
  });

  it('discards a stored early copy when the body breaks after the file', async () => {
    const pdf = largePdf();
    // The file part ends with exactly the told size; only then does the body turn out broken (a part
    // header that never ends instead of the closing delimiter).
    const throughFile = formBody([{ name: 'file', fileName: 'scan.pdf', content: pdf }]).subarray(0, -`--\r\n`.length);
    const brokenEnding = Buffer.from('\r\nX-');
    const body = new Readable({ read() {} });
    body.push(throughFile);
    const { store, opened } = recordingStore();
    const finished = new Promise<void>((resolve) => {
      const wait = setInterval(() => {
        if (opened[0]?.finishedAs) resolve(void clearInterval(wait));
      }, 5);
    });
    void finished.then(() => {
      body.push(brokenEnding);
      body.push(null);
    });

    const refusal = await receiveMultipartUpload(body, contentType, { declaredBodyBytes: throughFile.length + brokenEnding.length, earlyStore: store }).catch(
      (error: unknown) => error,
    );

    expect(refusal).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(opened[0]).toMatchObject({ size: pdf.length, finishedAs: { size: pdf.length }, discarded: true });
  });
});
