import { readdir, readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { maximumFileBytes } from '../../../src/files/file-limits.ts';
import { FormUploads } from '../../../src/files/form-uploads.ts';
import type { FileRecord } from '../../../src/files/file-records.ts';
import { httpStatusOf } from '../../../src/http/error-responses.ts';
import { DomainError } from '../../../src/platform/errors.ts';
import { readRunInput, runInputFormLimits } from '../../../src/workflows/run-input.ts';
import { elfExecutable, sampleCsv, samplePdf } from '../../support/sample-files.ts';
import { redirectTmpdir } from '../../support/redirected-tmpdir.ts';
import { rejectionOf } from '../../support/rejections.ts';

// Real multipart bodies, built by the platform's FormData and Request as a client would send them, read
// by the real form reader; only the stores are kept in memory here (test/integration/run-input.test.ts
// stores into the embedded stack's table and S3 emulator).

class InMemoryFileStores {
  readonly records = new Map<string, FileRecord>();
  readonly objects = new Map<string, Buffer>();
  failPutAfter = Infinity;

  readonly recordStore = {
    create: async (record: FileRecord) => void this.records.set(record.fileId, structuredClone(record)),
    delete: async (_workspaceId: string, fileId: string) => void this.records.delete(fileId),
  };

  readonly blobStore = {
    putFile: async (objectKey: string, path: string) => {
      if (this.objects.size >= this.failPutAfter) throw new Error('S3 is down');
      this.objects.set(objectKey, await readFile(path));
    },
    delete: async (objectKey: string) => void this.objects.delete(objectKey),
  };

  uploads(): FormUploads {
    return new FormUploads(this.recordStore, this.blobStore);
  }
}

async function requestOf(body: FormData | string | Buffer, contentType?: string) {
  const request = new Request('http://paperflow.test/runs', { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} });
  return { contentType: request.headers.get('content-type') ?? undefined, stream: Readable.fromWeb(request.body! as never) };
}

async function read(stores: InMemoryFileStores, body: FormData | string | Buffer, contentType?: string): Promise<unknown> {
  return readRunInput('ws_unit', await requestOf(body, contentType), { formUploads: stores.uploads() });
}

async function refusalOf(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  const domainError = await rejectionOf(promise, DomainError);
  return { status: httpStatusOf(domainError), code: domainError.code, message: domainError.message };
}

const jsonPart = (value: unknown) => new Blob([JSON.stringify(value)], { type: 'application/json' });

describe('readRunInput: JSON and empty bodies', () => {
  it('passes a JSON body through and gives null for no body', async () => {
    const stores = new InMemoryFileStores();
    expect(await read(stores, '{"orderId":"A-1","lines":[1,2]}', 'application/json')).toEqual({ orderId: 'A-1', lines: [1, 2] });
    expect(await read(stores, '', undefined)).toBeNull();
  });

  it('answers 400 for a JSON body that does not parse and 415 for another media type', async () => {
    const stores = new InMemoryFileStores();
    expect(await refusalOf(read(stores, '{"a":', 'application/json'))).toMatchObject({ status: 400 });
    expect(await refusalOf(read(stores, 'a=1', 'application/x-www-form-urlencoded'))).toMatchObject({ status: 415 });
  });
});

describe('readRunInput: nesting', () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it('accepts 64 levels and answers 400 for deeper JSON, in a body and in a JSON part, storing no file', async () => {
    const stores = new InMemoryFileStores();
    const form = new FormData();
    form.append('invoice', new Blob([await samplePdf()]), 'march.pdf');
    form.append('options', new Blob([nested(65)], { type: 'application/json' }));

    expect(await read(stores, nested(64), 'application/json')).toBeTypeOf('object');
    expect(await refusalOf(read(stores, nested(65), 'application/json'))).toMatchObject({ status: 400, code: 'INVALID_REQUEST', message: expect.stringContaining('64 levels') });
    expect(await refusalOf(read(stores, nested(5_000), 'application/json'))).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(await refusalOf(read(stores, form))).toMatchObject({ status: 400, message: expect.stringContaining('"options"') });
    expect(stores.records.size + stores.objects.size).toBe(0);
  });
});

describe('readRunInput: multipart/form-data', () => {
  it('gives text parts as strings, JSON parts as values and file parts as arrays of stored file nodes', async () => {
    const stores = new InMemoryFileStores();
    const pdf = await samplePdf();
    const form = new FormData();
    form.append('customer', 'ACME Ltd');
    form.append('options', jsonPart({ priority: 'high', retries: 2 }));
    form.append('invoice', new Blob([pdf], { type: 'application/octet-stream' }), 'march.pdf');
    form.append('attachments', new Blob([sampleCsv], { type: 'text/csv' }), 'ledger.csv');
    form.append('attachments', new Blob(['hello there\n'], { type: 'text/plain' }), 'notes.txt');

    const body = (await read(stores, form)) as Record<string, unknown>;

    expect(body).toEqual({
      customer: 'ACME Ltd',
      options: { priority: 'high', retries: 2 },
      invoice: [{ fileId: expect.stringMatching(/^file_/), fileName: 'march.pdf', mimeType: 'application/pdf', size: pdf.length }],
      attachments: [
        { fileId: expect.stringMatching(/^file_/), fileName: 'ledger.csv', mimeType: 'text/csv', size: sampleCsv.length },
        { fileId: expect.stringMatching(/^file_/), fileName: 'notes.txt', mimeType: 'text/plain', size: 12 },
      ],
    });
    const invoiceNode = (body.invoice as { fileId: string }[])[0]!;
    const record = stores.records.get(invoiceNode.fileId)!;
    expect(record).toMatchObject({ workspaceId: 'ws_unit', status: 'ready', objectKey: `workspaces/ws_unit/files/${invoiceNode.fileId}` });
    expect(stores.objects.get(record.objectKey)!.equals(pdf)).toBe(true);
    expect(stores.records.size).toBe(3);
  });

  it('reads a JSON part sent as a file (curl -F "x=@a.json;type=application/json") as its value', async () => {
    const stores = new InMemoryFileStores();
    const form = new FormData();
    form.append('order', jsonPart([{ sku: 'X', quantity: 3 }]), 'order.json');

    expect(await read(stores, form)).toEqual({ order: [{ sku: 'X', quantity: 3 }] });
    expect(stores.records.size).toBe(0);
  });

  it('keeps a part named __proto__ as a plain entry', async () => {
    const stores = new InMemoryFileStores();
    const form = new FormData();
    form.append('__proto__', 'plain');

    const body = (await read(stores, form)) as Record<string, unknown>;

    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(body, '__proto__')?.value).toBe('plain');
  });

  it('answers 400 naming the part for a JSON part that does not parse, and stores none of the files', async () => {
    const stores = new InMemoryFileStores();
    const form = new FormData();
    form.append('invoice', new Blob([await samplePdf()]), 'march.pdf');
    form.append('options', new Blob(['{"priority":'], { type: 'application/json' }));

    const refusal = await refusalOf(read(stores, form));

    expect(refusal).toMatchObject({ status: 400, code: 'INVALID_REQUEST', message: expect.stringContaining('"options"') });
    expect(stores.records.size + stores.objects.size).toBe(0);
  });

  it('answers 400 for a text name sent twice and for a name used by text and file parts', async () => {
    const stores = new InMemoryFileStores();
    const twice = new FormData();
    twice.append('note', 'a');
    twice.append('note', 'b');
    const mixed = new FormData();
    mixed.append('doc', new Blob([sampleCsv]), 'a.csv');
    mixed.append('doc', 'text too');

    expect(await refusalOf(read(stores, twice))).toMatchObject({ status: 400, message: expect.stringContaining('more than one text or JSON part named "note"') });
    expect(await refusalOf(read(stores, mixed))).toMatchObject({ status: 400, message: expect.stringContaining('"doc"') });
    expect(stores.records.size + stores.objects.size).toBe(0);
  });

  it('answers 415 for an executable file part, and stores none of the other files', async () => {
    const stores = new InMemoryFileStores();
    const form = new FormData();
    form.append('good', new Blob([sampleCsv]), 'ledger.csv');
    form.append('bad', new Blob([elfExecutable()]), 'invoice.pdf');

    expect(await refusalOf(read(stores, form))).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(stores.records.size + stores.objects.size).toBe(0);
  });

  it('answers 413 for a file part over 50 MB, reading no further than the limit', async () => {
    const stores = new InMemoryFileStores();
    const boundary = 'large-run-input';
    let fileBytesSent = 0;
    async function* generate() {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nbig one\r\n`);
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="big.pdf"\r\n\r\n%PDF-1.7\n`);
      const filler = Buffer.alloc(1024 * 1024, 0x20);
      for (fileBytesSent = 9; fileBytesSent <= maximumFileBytes + 4 * filler.length; fileBytesSent += filler.length) yield filler;
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const stream = Readable.from(generate(), { objectMode: false });

    const refusal = await refusalOf(readRunInput('ws_unit', { contentType: `multipart/form-data; boundary=${boundary}`, stream }, { formUploads: stores.uploads() }));

    expect(refusal).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('"doc"') });
    expect(fileBytesSent).toBeLessThan(maximumFileBytes + 3 * 1024 * 1024);
    expect(stores.records.size + stores.objects.size).toBe(0);
  });

  it('answers 422 for an empty file part, as POST /files does', async () => {
    const stores = new InMemoryFileStores();
    const form = new FormData();
    form.append('doc', new Blob([]), 'empty.pdf');

    expect(await refusalOf(read(stores, form))).toMatchObject({ status: 422 });
  });

  it('removes the files already stored when storing a later one fails', async () => {
    const stores = new InMemoryFileStores();
    stores.failPutAfter = 1;
    const form = new FormData();
    form.append('first', new Blob([sampleCsv]), 'a.csv');
    form.append('second', new Blob([await samplePdf()]), 'b.pdf');

    await expect(read(stores, form)).rejects.toThrow('S3 is down');
    expect(stores.records.size + stores.objects.size).toBe(0);
  });

  it('bounds the number of file parts, of text parts and the text bytes', async () => {
    const stores = new InMemoryFileStores();
    const manyFiles = new FormData();
    for (let index = 0; index <= runInputFormLimits.maximumFileParts; index += 1) manyFiles.append('doc', new Blob([sampleCsv]), `${index}.csv`);
    const manyTexts = new FormData();
    for (let index = 0; index <= runInputFormLimits.maximumTextParts; index += 1) manyTexts.append(`t${index}`, 'x');
    const longTexts = new FormData();
    longTexts.append('a', 'x'.repeat(runInputFormLimits.maximumTextBytes / 2));
    longTexts.append('b', jsonPart('y'.repeat(runInputFormLimits.maximumTextBytes / 2)), 'b.json');

    expect(await refusalOf(read(stores, manyFiles))).toMatchObject({ status: 400, message: expect.stringContaining('file parts') });
    expect(await refusalOf(read(stores, manyTexts))).toMatchObject({ status: 400, message: expect.stringContaining('too many parts') });
    expect(await refusalOf(read(stores, longTexts))).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(stores.records.size + stores.objects.size).toBe(0);
  });

  it('leaves no spooled file behind when a refusal comes before a file part of the same chunk', async () => {
    // busboy goes on parsing the chunk it holds after the refusal; the file part it then starts is skipped.
    const stores = new InMemoryFileStores();
    const spoolRoot = redirectTmpdir('run-input-unit-');
    try {
      const boundary = 'one-chunk';
      const body = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\n${'y'.repeat(runInputFormLimits.maximumTextBytes + 10)}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n${sampleCsv}\r\n--${boundary}--\r\n`,
      );
      const upload = { contentType: `multipart/form-data; boundary=${boundary}`, stream: Readable.from([body]) };

      expect(await refusalOf(readRunInput('ws_unit', upload, { formUploads: stores.uploads() }))).toMatchObject({ status: 413 });
      await new Promise((resolve) => setTimeout(resolve, 50)); // a spool started after the answer would be on disk by now
      expect(await readdir(spoolRoot.folder)).toEqual([]);
      expect(stores.records.size + stores.objects.size).toBe(0);
    } finally {
      spoolRoot.restore();
    }
  });

  it('answers 400 for a broken multipart body', async () => {
    const stores = new InMemoryFileStores();
    const boundary = 'broken';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="a.csv"\r\n\r\n${sampleCsv}`;

    expect(await refusalOf(read(stores, body, `multipart/form-data; boundary=${boundary}`))).toMatchObject({ status: 400 });
    expect(await refusalOf(read(stores, body, 'multipart/form-data'))).toMatchObject({ status: 400 });
    expect(stores.records.size + stores.objects.size).toBe(0);
  });
});
