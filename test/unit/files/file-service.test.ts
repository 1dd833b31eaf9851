import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DirectUploads } from '../../../src/files/direct-uploads.ts';
import { FileService } from '../../../src/files/file-service.ts';
import { defaultContentUrlLifetimeSeconds, maximumFileBytes } from '../../../src/files/file-limits.ts';
import type { FileRecord } from '../../../src/files/file-records.ts';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '../../../src/platform/errors.ts';
import { InMemoryContentUrls, InMemoryFileBlobStore, InMemoryFileRecordStore, InMemoryUploadForms } from '../../support/memory/in-memory-files.ts';
import { elfExecutable, sampleCsv, samplePdf } from '../../support/sample-files.ts';

// The files domain's rules (upload sessions, their finalizer, reads, direct uploads) over in-memory
// adapters: no emulator, no SDK mock.

const workspaceId = 'ws_unit';
const now = new Date('2026-11-21T08:00:00.000Z');

function aFileService() {
  const records = new InMemoryFileRecordStore();
  const blobs = new InMemoryFileBlobStore();
  const service = new FileService(records, blobs, new InMemoryContentUrls(), new InMemoryUploadForms(), () => now);
  return { service, records, blobs, uploads: new DirectUploads(records, blobs, () => now) };
}

const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A session, then the client's POST of `bytes` to its form: what S3 holds when the finalizer runs. */
async function uploadedThroughSession(context: ReturnType<typeof aFileService>, bytes: Buffer, fileName = 'scan.pdf') {
  const session = await context.service.createUploadSession(workspaceId, { fileName, size: bytes.length, mimeType: 'application/pdf' });
  const uploadKey = session.upload.fields.key!;
  context.blobs.objects.set(uploadKey, bytes);
  return { session, uploadKey };
}

function multipartOf(fileName: string, content: string | Buffer, textParts: Record<string, string> = {}) {
  const boundary = 'unit-boundary';
  const body = Buffer.concat([
    ...Object.entries(textParts).map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { stream: Readable.from([body]), contentType: `multipart/form-data; boundary=${boundary}`, declaredBodyBytes: body.length };
}

describe('upload sessions', () => {
  it('records a pending file pointing at its upload key and hands out a form for that key only', async () => {
    const context = aFileService();

    const session = await context.service.createUploadSession(workspaceId, { fileName: 'scan.pdf', size: 1_000, mimeType: 'application/pdf' });

    expect(session).toMatchObject({ fileName: 'scan.pdf', status: 'pending_upload', createdAt: now.toISOString() });
    const record = await context.records.get(workspaceId, session.fileId);
    expect(record).toMatchObject({ status: 'pending_upload', size: 1_000, objectKey: `workspaces/${workspaceId}/uploads/${session.fileId}` });
    expect(session.upload.fields).toEqual({ key: record!.objectKey, 'content-length-range': `1,${maximumFileBytes}` });
  });

  it('refuses a declared size over the limit and a name with nothing readable, recording nothing', async () => {
    const context = aFileService();

    await expect(context.service.createUploadSession(workspaceId, { fileName: 'big.pdf', size: maximumFileBytes + 1, mimeType: 'application/pdf' })).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(context.service.createUploadSession(workspaceId, { fileName: '\u0000\u0001', size: 10, mimeType: 'text/plain' })).rejects.toBeInstanceOf(ValidationError);
    expect(context.records.records.size).toBe(0);
  });
});

describe('finalizing an uploaded object', () => {
  it('serves a checked snapshot of the upload: ready, sniffed, hashed, and the upload key emptied', async () => {
    const context = aFileService();
    const pdf = await samplePdf();
    const { session, uploadKey } = await uploadedThroughSession(context, pdf);

    expect(await context.service.finalizeUploadedObject(uploadKey)).toBe('ready');

    const record = (await context.records.get(workspaceId, session.fileId))!;
    expect(record).toMatchObject({ status: 'ready', mimeType: 'application/pdf', size: pdf.length, sha256: sha256Of(pdf) });
    expect(record.objectKey).toMatch(new RegExp(`^workspaces/${workspaceId}/files/${session.fileId}/[0-9a-f-]{36}$`));
    expect(context.blobs.objects.get(record.objectKey)).toEqual(pdf);
    expect(context.blobs.objects.has(uploadKey)).toBe(false);
  });

  it('blocks an executable and an empty upload, keeping no bytes of either', async () => {
    const context = aFileService();
    const executable = await uploadedThroughSession(context, elfExecutable(), 'tool.pdf');
    const empty = await uploadedThroughSession(context, Buffer.alloc(0), 'empty.pdf');

    expect(await context.service.finalizeUploadedObject(executable.uploadKey)).toBe('blocked');
    expect(await context.service.finalizeUploadedObject(empty.uploadKey)).toBe('blocked');

    expect((await context.records.get(workspaceId, executable.session.fileId))!.blockedReason!.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await context.records.get(workspaceId, empty.session.fileId))!.blockedReason).toEqual({ code: 'VALIDATION_FAILED', message: 'The file is empty (0 bytes).' });
    expect(context.blobs.objects.size).toBe(0);
  });

  it('deletes a second POST to a finalized form and leaves the served file as it was', async () => {
    const context = aFileService();
    const pdf = await samplePdf();
    const { session, uploadKey } = await uploadedThroughSession(context, pdf);
    await context.service.finalizeUploadedObject(uploadKey);
    const served = (await context.records.get(workspaceId, session.fileId))!;

    context.blobs.objects.set(uploadKey, Buffer.from(sampleCsv));
    expect(await context.service.finalizeUploadedObject(uploadKey)).toBe('not_pending');

    expect(await context.records.get(workspaceId, session.fileId)).toEqual(served);
    expect([...context.blobs.objects.keys()]).toEqual([served.objectKey]);
  });

  it('leaves keys that are not upload keys alone', async () => {
    const context = aFileService();
    context.blobs.objects.set('workspaces/ws_unit/files/file_X', Buffer.from('x'));

    expect(await context.service.finalizeUploadedObject('workspaces/ws_unit/files/file_X')).toBe('not_ours');
    expect(context.blobs.objects.size).toBe(1);
  });
});

describe('reading a file', () => {
  const readyRecord: FileRecord = {
    fileId: 'file_01J9ZQ3V7M8N2P4R6T8V0X2Z4B',
    workspaceId,
    fileName: 'ledger.csv',
    mimeType: 'text/csv',
    size: sampleCsv.length,
    sha256: sha256Of(sampleCsv),
    status: 'ready',
    createdAt: now.toISOString(),
    objectKey: `workspaces/${workspaceId}/files/file_01J9ZQ3V7M8N2P4R6T8V0X2Z4B`,
  };

  it('gives a ready file a freshly signed link, and a pending one none', async () => {
    const context = aFileService();
    await context.records.create(readyRecord);
    const pending = await context.service.createUploadSession(workspaceId, { fileName: 'later.pdf', size: 10, mimeType: 'application/pdf' });

    const ready = await context.service.getFile(workspaceId, readyRecord.fileId);
    const notYet = await context.service.getFile(workspaceId, pending.fileId);

    expect(ready).toMatchObject({ status: 'ready', sha256: readyRecord.sha256, contentUrl: `memory://files/${readyRecord.objectKey}?name=ledger.csv&type=text%2Fcsv` });
    expect(ready.contentUrlExpiresAt).toBe(new Date(now.getTime() + defaultContentUrlLifetimeSeconds * 1000).toISOString());
    expect(notYet).not.toHaveProperty('contentUrl');
  });

  it('answers 404 for another workspace\'s file and for an id the service never mints', async () => {
    const context = aFileService();
    await context.records.create(readyRecord);

    await expect(context.service.getFile('ws_other', readyRecord.fileId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(context.service.getFile(workspaceId, 'file_' + 'x'.repeat(2_000))).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('direct uploads', () => {
  it('stores the checked bytes, then records a ready file pointing at them', async () => {
    const context = aFileService();

    const file = await context.uploads.uploadFile(workspaceId, multipartOf('ledger.csv', sampleCsv));

    expect(file).toMatchObject({ fileName: 'ledger.csv', mimeType: 'text/csv', size: sampleCsv.length, sha256: sha256Of(sampleCsv), status: 'ready' });
    const record = (await context.records.get(workspaceId, file.fileId))!;
    expect(context.blobs.objects.get(record.objectKey)!.toString()).toBe(sampleCsv);
  });

  it('leaves neither a record nor an object behind when the other parts are refused', async () => {
    const context = aFileService();
    const refusal = new ValidationError([{ field: 'labels', issue: 'must be a JSON object of string values.' }]);

    const upload = context.uploads.uploadFileWithTextParts(workspaceId, multipartOf('ledger.csv', sampleCsv, { labels: 'nope' }), () => {
      throw refusal;
    });

    await expect(upload).rejects.toBe(refusal);
    expect(context.records.records.size).toBe(0);
    expect(context.blobs.objects.size).toBe(0);
  });
});
