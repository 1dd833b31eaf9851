import { connect } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { decodeTime } from 'ulidx';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExtractionRecord } from '../../src/extractions/extraction.ts';
import { attentionPartition, attentionShardOf } from '../../src/extractions/extraction-keys.ts';
import { extractionSettlement, extractionStore } from '../../src/composition/extractions.ts';
import { newIdentifier } from '../../src/infrastructure/identifiers.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { recordsTable } from '../support/records-table.ts';
import { captureLogLines } from '../support/log-lines.ts';

// Defects found from outside (issue 9): label keys that broke key encoding and left half-written
// records, ids beyond the store's key limit answered with retryable 5xx, repeated multipart parts,
// and uploads abandoned by their client.

let stack: StackUnderTest;
let client: ExtractionClient;
let invoiceFileId: string;
const workspaceId = 'ws_defects';

beforeAll(async () => {
  stack = await startStackUnderTest();
  client = new ExtractionClient(stack, await workspaceKey(workspaceId));
  invoiceFileId = await client.uploadFile(await invoicePdf(), 'invoice.pdf');
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const rawJson = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });
const loneSurrogate = '\\udfff'; // as written in JSON text: the parsed key is the lone surrogate U+DFFF

/** Every item of the records table that belongs to the workspace (its own key, index keys or attribute). */
async function tableItemsOf(workspace: string): Promise<Record<string, unknown>[]> {
  const table = recordsTable();
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(new ScanCommand({ TableName: table.tableName, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.filter((item) => item.workspaceId === workspace || Object.values(item).some((value) => typeof value === 'string' && value.includes(`WS#${workspace}#`)));
}

async function storedObjectsOf(workspace: string): Promise<string[]> {
  const s3 = new S3Client({ forcePathStyle: true });
  const listing = await s3.send(new ListObjectsV2Command({ Bucket: stack.resources.filesBucketName, Prefix: `workspaces/${workspace}/` }));
  return (listing.Contents ?? []).map((object) => object.Key!);
}

async function listTotals() {
  const all = await client.list('size=1');
  const queued = await client.list('size=1&status=QUEUED');
  const window = await client.list(`size=1&from=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`);
  return [all.body.pageInfo.totalItems, queued.body.pageInfo.totalItems, window.body.pageInfo.totalItems];
}

function queuedRecord(workspace: string, overrides: Partial<ExtractionRecord> = {}): ExtractionRecord {
  const id = newIdentifier('ext');
  const createdAt = new Date(decodeTime(id.slice(4))).toISOString();
  return { id, workspaceId: workspace, status: 'QUEUED', generation: 1, createdAt, updatedAt: createdAt, labels: {}, document: {}, outputAvailable: false, ...overrides };
}

describe('labels that cannot be encoded', () => {
  it('refuses a lone surrogate in a label key with 422 and stores nothing', async () => {
    const totalsBefore = await listTotals();
    const itemsBefore = await tableItemsOf(workspaceId);

    const response = await client.json(
      '/document-insights/extractions',
      rawJson(`{"document":{"fileId":"${invoiceFileId}"},"labels":{"${loneSurrogate}":"v"}}`),
    );

    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
    expect(response.body.error.details).toEqual([{ field: 'labels.\udfff', issue: expect.stringContaining('well-formed Unicode') }]);
    expect(await listTotals()).toEqual(totalsBefore);
    expect(await tableItemsOf(workspaceId)).toHaveLength(itemsBefore.length);
  });

  it('refuses a lone surrogate in a label value with 422', async () => {
    const response = await client.json(
      '/document-insights/extractions',
      rawJson(`{"document":{"fileId":"${invoiceFileId}"},"labels":{"customer":"acme${loneSurrogate}"}}`),
    );

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([{ field: 'labels.customer', issue: expect.stringContaining('well-formed Unicode') }]);
  });

  it('refuses a lone surrogate in the upload\'s labels part with 422 and keeps neither the file nor its record', async () => {
    const objectsBefore = await storedObjectsOf(workspaceId);
    const itemsBefore = await tableItemsOf(workspaceId);

    const response = await client.uploadWithJsonLabelsPart(await invoicePdf(), 'invoice.pdf', `{"${loneSurrogate}":"v"}`);

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([{ field: 'labels.\udfff', issue: expect.stringContaining('well-formed Unicode') }]);
    expect(await storedObjectsOf(workspaceId)).toEqual(objectsBefore);
    expect(await tableItemsOf(workspaceId)).toHaveLength(itemsBefore.length);
  });

  it('refuses "__proto__" as a label key in the upload\'s labels part', async () => {
    const response = await client.uploadWithJsonLabelsPart(await invoicePdf(), 'invoice.pdf', '{"__proto__":"x"}');

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([{ field: 'labels.__proto__', issue: 'is not allowed as a label key' }]);
  });

  it('stores, returns and filters by "constructor" and "prototype" as ordinary label keys', async () => {
    const created = await client.create({ document: { fileId: invoiceFileId }, labels: { constructor: 'x', prototype: 'y' } });

    expect(created.status).toBe(202);
    expect(created.body.labels).toEqual({ constructor: 'x', prototype: 'y' });
    expect((await client.get(created.body.id)).body.labels).toEqual({ constructor: 'x', prototype: 'y' });
    const filtered = await client.list('labels[constructor]=x');
    expect(filtered.status).toBe(200);
    expect(filtered.body.data.map((item: { id: string }) => item.id)).toEqual([created.body.id]);
    const terminal = await client.waitForTerminal(created.body.id);
    expect(terminal.labels).toEqual({ constructor: 'x', prototype: 'y' });
  });
});

describe('the sweeper', () => {
  it('skips and logs a malformed record and still recovers a stuck extraction behind it', async () => {
    const sweepWorkspace = 'ws_defects_sweep';
    const store = extractionStore();
    const longAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const stuck = await store.create(queuedRecord(sweepWorkspace, { createdAt: longAgo, updatedAt: longAgo }));
    // What the old create left: a record whose label cannot be encoded, first in the stuck one's shard.
    const malformed = queuedRecord(sweepWorkspace, { labels: { '\udfff': 'v' } });
    await recordsTable().client.send(
      new PutCommand({
        TableName: store.tableName,
        Item: {
          pk: `EXT#${malformed.id}`,
          sk: 'EXTRACTION',
          ...malformed,
          revision: 1,
          gsi6pk: attentionPartition(attentionShardOf(stuck.id)),
          gsi6sk: `2000-01-01T00:00:00.000Z#${malformed.id}`,
        },
      }),
    );
    const log = captureLogLines();

    const report = await extractionSettlement().sweep(60 * 60 * 1000);
    log.restore();

    expect(report.skipped).toBeGreaterThanOrEqual(1);
    expect((await store.get(stuck.id))?.status).toBe('FAILED');
    const logged = log.lines.find((entry) => entry.extractionId === malformed.id);
    expect(logged).toMatchObject({
      level: 'warn',
      message: 'extraction sweep skipped a record',
      error: expect.objectContaining({ message: expect.stringContaining('URI malformed') }),
    });
  });
});

describe('ids that cannot exist', () => {
  const longExtractionId = `ext_${'A'.repeat(2_100)}`;
  const longFileId = `file_${'A'.repeat(2_100)}`;

  it.each([
    ['GET of an extraction id of 2,100 characters', 'GET', `/document-insights/extractions/${longExtractionId}`, undefined],
    ['DELETE of an extraction id of 2,100 characters', 'DELETE', `/document-insights/extractions/${longExtractionId}`, undefined],
    ['feedback on an extraction id of 2,100 characters', 'POST', `/document-insights/extractions/${longExtractionId}/feedback`, { message: 'wrong total' }],
    ['GET of a malformed extraction id', 'GET', '/document-insights/extractions/ext_not-an-id', undefined],
    ['GET of a file id of 2,100 characters', 'GET', `/files/${longFileId}`, undefined],
    ['GET of a malformed file id', 'GET', '/files/file_not-an-id', undefined],
  ])('%s is 404, not a retryable 5xx', async (_case, method, path, body) => {
    const response = await client.json(path, {
      method,
      ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });

    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'NOT_FOUND', retryable: false });
  });

  it('refuses a document.fileId that is no file id with 422 on document.fileId', async () => {
    for (const fileId of [longFileId, 'file_not-an-id', 'ext_01JZ0000000000000000000000']) {
      const response = await client.create({ document: { fileId } });

      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
      expect(response.body.error.details).toEqual([{ field: 'document.fileId', issue: expect.stringContaining('not a file id') }]);
    }
  });

  it('refuses feedback on a fieldId that is no field id with 422 on fieldId', async () => {
    const record = await extractionStore().create(queuedRecord(workspaceId));

    const response = await client.json(`/document-insights/extractions/${record.id}/feedback`, rawJson(JSON.stringify({ message: 'x', fieldId: `fld_${'A'.repeat(2_100)}` })));

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([{ field: 'fieldId', issue: expect.any(String) }]);
  });
});

describe('uploads', () => {
  function multipart(parts: string[], boundary = 'defects-boundary'): RequestInit {
    const body = `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;
    return { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body };
  }

  it('answers 400 to a second labels part and stores nothing', async () => {
    const objectsBefore = await storedObjectsOf(workspaceId);
    const totalsBefore = await listTotals();
    const labelsPart = (json: string) => `Content-Disposition: form-data; name="labels"\r\nContent-Type: application/json\r\n\r\n${json}`;
    const filePart = `Content-Disposition: form-data; name="file"; filename="invoice.pdf"\r\nContent-Type: application/pdf\r\n\r\n${(await invoicePdf()).toString('latin1')}`;

    const response = await client.json('/document-insights/extractions/upload', multipart([labelsPart('{"a":"1"}'), labelsPart('{"a":"2"}'), filePart]));

    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('"labels"') });
    expect(await listTotals()).toEqual(totalsBefore);
    expect(await storedObjectsOf(workspaceId)).toEqual(objectsBefore);
  });

  it('ends the handler of an upload its client abandons, noted once at info level, with nothing stored', async () => {
    const abandonWorkspace = 'ws_defects_abandon';
    const apiKey = await workspaceKey(abandonWorkspace);
    const requestId = 'abandoned-upload-1';
    const log = captureLogLines();
    const boundary = 'abandoned';
    const url = new URL(stack.baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));

    socket.write(
      `POST ${url.pathname}/document-insights/extractions/upload HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: api-key ${apiKey}\r\n` +
        `X-Request-Id: ${requestId}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 5000000\r\n\r\n`,
    );
    socket.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="invoice.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
    socket.write(Buffer.concat([await invoicePdf(), Buffer.alloc(1_000_000)]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();

    const noted = () => log.lines.filter((entry) => JSON.stringify(entry).includes(requestId));
    const deadline = Date.now() + 5_000;
    while (noted().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    log.restore();

    expect(noted()).toEqual([expect.objectContaining({ level: 'info', stream: 'stdout', requestId })]);
    expect(log.lines.filter((entry) => entry.level === 'error')).toEqual([]);
    const listed = await new ExtractionClient(stack, apiKey).list();
    expect(listed.body.pageInfo.totalItems).toBe(0);
    expect(await storedObjectsOf(abandonWorkspace)).toEqual([]);
  });
});
