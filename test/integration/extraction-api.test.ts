import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyService } from '../../src/composition/auth.ts';
import { seedRecords } from '../../bench/support/extraction-seeding.ts';
import { newIdentifier } from '../../src/infrastructure/identifiers.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { jsonOf, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';

// The extraction operations' contract over HTTP: every 4xx the spec lists, listing with filters,
// sorting and pages, feedback, and workspace isolation.

let stack: StackUnderTest;
let client: ExtractionClient;
let otherWorkspace: ExtractionClient;
let invoiceFileId: string;

type Listed = { id: string; labels: Record<string, string>; status: string; createdAt: string; updatedAt: string; completedAt?: string };
/** e1..e7 in creation order (see beforeAll). */
const listed: Listed[] = [];

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  process.env.PAPERFLOW_LOCAL_RETRY_INTERVAL_MS = '10';
  delete process.env.PAPERFLOW_ALLOW_PRIVATE_URLS;
  stack = await startStackUnderTest();
  client = new ExtractionClient(stack, await workspaceKey('ws_api'));
  otherWorkspace = new ExtractionClient(stack, await workspaceKey('ws_api_other'));
  invoiceFileId = await client.uploadFile(await invoicePdf(), 'invoice.pdf');
  const labelSets: Record<string, string>[] = [
    { customer: 'acme', region: 'eu' },
    { customer: 'acme', region: 'us' },
    { customer: 'globex', region: 'eu' },
    { customer: 'acme' },
    { region: 'eu', docType: 'unknown_type' },
    {},
    { customer: 'initech', docType: 'unknown_type' },
  ];
  for (const labels of labelSets) {
    const created = await client.create({ document: { fileId: invoiceFileId }, labels });
    expect(created.status).toBe(202);
    listed.push(created.body);
  }
  for (const [index, extraction] of listed.entries()) listed[index] = await client.waitForTerminal(extraction.id);
});

afterAll(async () => {
  await stack?.stop();
});

const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);
const e = (number: number) => listed[number - 1]!.id;

describe('create validation (422 with details)', () => {
  it.each([
    ['more than 50 labels', { labels: Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, 'v'])) }, 'labels'],
    ['50 labels plus docType', { labels: { ...Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`k${index}`, 'v'])), docType: 'invoice' } }, 'labels'],
    ['a key over 64 characters', { labels: { ['k'.repeat(65)]: 'v' } }, `labels.${'k'.repeat(65)}`],
    ['a blank key', { labels: { '  ': 'v' } }, 'labels.  '],
    ['an empty value', { labels: { docType: '' } }, 'labels.docType'],
    ['a blank value', { labels: { customer: '   ' } }, 'labels.customer'],
    ['a value over 512 characters', { labels: { customer: 'x'.repeat(513) } }, 'labels.customer'],
    ['a value that is not a string', { labels: { count: 3 } }, 'labels.count'],
  ])('refuses %s', async (_case, body, field) => {
    const response = await client.create({ document: { fileId: invoiceFileId }, ...body });

    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
  });

  it('refuses a "__proto__" label key rather than dropping it', async () => {
    const response = await client.json('/document-insights/extractions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"document":{"fileId":"${invoiceFileId}"},"labels":{"__proto__":"x","customer":"acme"}}`,
    });

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([{ field: 'labels.__proto__', issue: 'is not allowed as a label key' }]);
  });

  it('accepts 49 labels plus docType, and 512-character values', async () => {
    const labels = { ...Object.fromEntries(Array.from({ length: 49 }, (_, index) => [`k${index}`, 'v'.repeat(512)])), docType: 'invoice' };

    const response = await client.create({ document: { fileId: invoiceFileId }, labels });

    expect(response.status).toBe(202);
    expect(Object.keys(response.body.labels)).toHaveLength(50);
    await client.waitForTerminal(response.body.id);
  });

  it.each([
    ['plain http', 'http://example.com/a.pdf', 'must use https'],
    ['user info', 'https://user:secret@example.com/a.pdf', 'must not contain user credentials'],
    ['a fragment', 'https://example.com/a.pdf#page=2', 'must not contain a fragment'],
    ['a private literal host', 'https://10.1.2.3/a.pdf', 'must not point to a private, loopback or reserved address'],
    ['a metadata address in hex', 'https://0xa9fea9fe/latest', 'must not point to a private, loopback or reserved address'],
    ['a loopback name', 'https://localhost/a.pdf', 'must not point to a private, loopback or reserved address'],
  ])('refuses a URL with %s on document.url', async (_case, url, issue) => {
    const response = await client.create({ document: { url } });

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([{ field: 'document.url', issue: `The URL ${issue}.` }]);
  });

  it('refuses both fileId and url, and neither, on document', async () => {
    const both = await client.create({ document: { fileId: invoiceFileId, url: 'https://example.com/a.pdf' } });
    const neither = await client.create({ document: {} });
    const missing = await client.create({ labels: {} });

    expect(both.status).toBe(422);
    expect(both.body.error.details).toEqual([{ field: 'document', issue: expect.stringContaining('not both') }]);
    expect(neither.status).toBe(422);
    expect(neither.body.error.details[0].field).toBe('document');
    expect(missing.status).toBe(422);
    expect(missing.body.error.details[0].field).toBe('document');
  });

  it('answers an unknown fileId, or another workspace\'s, with 422 on document.fileId', async () => {
    const unknown = await client.create({ document: { fileId: 'file_00000000000000000000000000' } });
    const foreign = await otherWorkspace.create({ document: { fileId: invoiceFileId } });

    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([{ field: 'document.fileId', issue: 'No such file in this workspace.' }]);
    expect(foreign.status).toBe(422);
  });

  it('refuses fileName next to fileId', async () => {
    const response = await client.create({ document: { fileId: invoiceFileId, fileName: 'x.pdf' } });

    expect(response.status).toBe(422);
    expect(response.body.error.details[0].field).toBe('document.fileName');
  });
});

describe('request errors', () => {
  it('answers 400 to unreadable JSON and 415 to another content type', async () => {
    const unreadable = await client.json('/document-insights/extractions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"document":' });
    const text = await client.json('/document-insights/extractions', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });

    expect(unreadable.status).toBe(400);
    expect(unreadable.body.error.code).toBe('INVALID_REQUEST');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 401 without a key and 403 without the extraction scopes', async () => {
    const filesOnly = await workspaceKey('ws_api', ['files:read']);
    const readOnly = await workspaceKey('ws_api', ['extractions:read']);

    const anonymous = await stack.api('/document-insights/extractions', { apiKey: null });
    const listWithoutScope = await stack.api('/document-insights/extractions', { apiKey: filesOnly });
    const createWithReadScope = await stack.api('/document-insights/extractions', { apiKey: readOnly, ...json({ document: { fileId: invoiceFileId } }) });
    const listWithReadScope = await stack.api('/document-insights/extractions', { apiKey: readOnly });

    expect(anonymous.status).toBe(401);
    expect((await jsonOf(anonymous)).error.code).toBe('UNAUTHORIZED');
    expect(listWithoutScope.status).toBe(403);
    expect((await jsonOf(listWithoutScope)).error.code).toBe('FORBIDDEN');
    expect(createWithReadScope.status).toBe(403);
    expect(listWithReadScope.status).toBe(200);
  });

  it('answers 409 CONFLICT to a delete while QUEUED, and keeps the extraction', async () => {
    // An extraction whose execution has not started yet, seeded as the create operation stores it, in
    // a workspace of its own so the listing tests' totals stay exact.
    const queuedWorkspace = new ExtractionClient(stack, await workspaceKey('ws_api_queued'));
    const queuedId = newIdentifier('ext');
    const now = new Date().toISOString();
    await seedRecords([
      { id: queuedId, workspaceId: 'ws_api_queued', status: 'QUEUED', generation: 1, createdAt: now, updatedAt: now, labels: {}, document: { fileId: 'file_seeded' }, outputAvailable: false },
    ]);

    const deleted = await queuedWorkspace.json(`/document-insights/extractions/${queuedId}`, { method: 'DELETE' });
    const kept = await queuedWorkspace.get(queuedId);

    expect(deleted.status).toBe(409);
    expect(deleted.body.error).toMatchObject({ code: 'CONFLICT', retryable: false });
    expect(kept.body).toMatchObject({ id: queuedId, status: 'QUEUED' });
  });

  it('answers 404 for an unknown extraction on get, feedback and delete', async () => {
    const unknown = 'ext_00000000000000000000000000';

    const get = await client.get(unknown);
    const feedback = await client.json(`/document-insights/extractions/${unknown}/feedback`, json({ message: 'x' }));
    const deleted = await client.json(`/document-insights/extractions/${unknown}`, { method: 'DELETE' });

    expect([get.status, feedback.status, deleted.status]).toEqual([404, 404, 404]);
    expect(get.body.error.code).toBe('NOT_FOUND');
  });

  it('answers 405 with Allow for a method the path does not support', async () => {
    const put = await client.request(`/document-insights/extractions/${e(1)}`, { method: 'PUT' });
    const deleteCollection = await client.request('/document-insights/extractions', { method: 'DELETE' });

    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toContain('DELETE');
    expect((await jsonOf(put)).error.code).toBe('METHOD_NOT_ALLOWED');
    expect(deleteCollection.status).toBe(405);
  });

  it('answers 406 when the client does not accept JSON', async () => {
    const response = await client.request(`/document-insights/extractions/${e(1)}`, { headers: { accept: 'text/html' } });

    expect(response.status).toBe(406);
  });

  it('answers 429 with Retry-After over the key\'s rate', async () => {
    const { secret } = await apiKeyService().create({ workspaceId: 'ws_api', name: 'slow', scopes: ['*'], rateLimit: { requestsPerSecond: 1, burst: 1 } });

    const first = await stack.api('/document-insights/extractions', { apiKey: secret });
    const second = await stack.api('/document-insights/extractions', { apiKey: secret });

    expect(first.status).toBe(200);
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers 413 to an upload over 50 MB and 415 to an executable', async () => {
    const tooLarge = await client.upload(Buffer.alloc(50 * 1024 * 1024 + 1, 0x41), 'big.txt');
    const program = await client.upload(Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(256)]), 'tool.pdf');
    const json415 = await client.json('/document-insights/extractions/upload', json({ file: 'x' }));

    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(program.status).toBe(415);
    expect(json415.status).toBe(415);
  });

  it('answers 422 to an upload whose labels part is not a JSON object of strings', async () => {
    const notJson = await client.upload(await invoicePdf(), 'a.pdf', undefined).then(() => undefined);
    const form = new FormData();
    form.append('file', new Blob([await invoicePdf()]), 'a.pdf');
    form.append('labels', '["not","an","object"]');
    const response = await client.json('/document-insights/extractions/upload', { method: 'POST', body: form });

    expect(notJson).toBeUndefined();
    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([{ field: 'labels', issue: 'must be a JSON object of string values.' }]);
  });
});

describe('list', () => {
  it('lists summaries newest first with exact totals, never output or contentUrl', async () => {
    const { status, body } = await client.list('labels[customer]=&size=100');
    const all = await client.list();

    expect(status).toBe(200);
    expect(body.pageInfo.totalItems).toBe(5);
    expect(ids(all.body).slice(-7)).toEqual([e(7), e(6), e(5), e(4), e(3), e(2), e(1)]);
    for (const item of all.body.data) {
      expect(item.output).toBeUndefined();
      expect(item.document.contentUrl).toBeUndefined();
    }
  });

  it.each([
    ['labels[customer]=acme', [4, 2, 1]],
    ['labels[customer]=', [7, 4, 3, 2, 1]],
    ['labels[customer]=acme&labels[region]=eu', [1]],
    ['labels[customer]=acme&labels[region]=', [2, 1]],
    ['labels[region]=eu&status=FAILED', [5]],
    ['labels[region]=eu&sort=asc', [1, 3, 5]],
    ['labels[customer]=nobody', []],
    ['labels[customer]=acme&labels[missing]=', []],
  ])('filters by %s', async (query, expected) => {
    const { status, body } = await client.list(query);

    expect(status).toBe(200);
    expect(ids(body)).toEqual(expected.map(e));
    expect(body.pageInfo.totalItems).toBe(expected.length);
  });

  it('filters by status with an exact total', async () => {
    const { body } = await client.list('status=FAILED');

    expect(ids(body)).toEqual([e(7), e(5)]);
    expect(body.pageInfo).toEqual({ page: 0, size: 50, totalItems: 2, totalPages: 1 });
    expect(body.data.every((item: Listed) => item.status === 'FAILED')).toBe(true);
  });

  it('filters by a creation window, inclusive at both ends', async () => {
    const { body } = await client.list(`from=${listed[2]!.createdAt}&to=${listed[4]!.createdAt}`);
    const sortedByUpdate = await client.list(`from=${listed[2]!.createdAt}&to=${listed[4]!.createdAt}&sortBy=updatedAt&sort=asc`);

    expect(ids(body)).toEqual([e(5), e(4), e(3)]);
    expect(body.pageInfo.totalItems).toBe(3);
    expect(new Set(ids(sortedByUpdate.body))).toEqual(new Set([e(3), e(4), e(5)]));
    expect(sortedByUpdate.body.pageInfo.totalItems).toBe(3);
  });

  it('pages through with size, including the last partial page and past the end', async () => {
    const window = `from=${listed[0]!.createdAt}&to=${listed[6]!.createdAt}`;
    const pages = await Promise.all([0, 1, 2, 3].map((page) => client.list(`${window}&size=3&page=${page}`)));

    expect(pages.map(({ body }) => ids(body))).toEqual([[e(7), e(6), e(5)], [e(4), e(3), e(2)], [e(1)], []]);
    for (const { body } of pages) expect(body.pageInfo).toMatchObject({ size: 3, totalItems: 7, totalPages: 3 });
    expect(pages[3]!.body.pageInfo.page).toBe(3);
  });

  it('reads a page near the end in the requested order', async () => {
    const { body } = await otherWorkspaceView();
    expect(body.pageInfo.totalItems).toBe(0);

    const lastAscending = await client.list(`from=${listed[0]!.createdAt}&to=${listed[6]!.createdAt}&size=2&page=3&sort=asc`);
    const unfilteredLast = await client.list('size=1&page=0&sort=asc');

    expect(ids(lastAscending.body)).toEqual([e(7)]);
    expect(unfilteredLast.body.pageInfo.totalItems).toBeGreaterThanOrEqual(7);
  });

  it('sorts by updatedAt and completedAt in both directions', async () => {
    for (const sortBy of ['updatedAt', 'completedAt'] as const) {
      for (const sort of ['asc', 'desc'] as const) {
        for (const extra of ['', '&status=COMPLETED', '&labels[customer]=']) {
          const { body } = await client.list(`sortBy=${sortBy}&sort=${sort}&size=100${extra}`);
          const values = body.data.map((item: Listed) => `${item[sortBy] ?? '~'}#${item.id}`);
          const expected = [...values].sort();
          expect(values).toEqual(sort === 'asc' ? expected : expected.reverse());
        }
      }
    }
  });

  it.each([
    'page=-1',
    'page=abc',
    'size=0',
    'size=101',
    'status=DONE',
    'sortBy=name',
    'sort=up',
    'from=yesterday',
    'labels=acme',
    'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
  ])('answers 400 to %s', async (query) => {
    const { status, body } = await client.list(query);

    expect(status).toBe(400);
    expect(body.error.code).toBe('INVALID_REQUEST');
  });

  it('accepts the edges of page and size', async () => {
    const smallest = await client.list('size=1&page=0');
    const largest = await client.list('size=100&page=1000000');

    expect(smallest.status).toBe(200);
    expect(smallest.body.data).toHaveLength(1);
    expect(largest.status).toBe(200);
    expect(largest.body.data).toEqual([]);
    expect(largest.body.pageInfo.page).toBe(1000000);
  });
});

function otherWorkspaceView() {
  return otherWorkspace.list('labels[customer]=acme');
}

describe('get', () => {
  it('returns output and contentUrl only on get, and output only once available', async () => {
    const { body } = await client.get(e(1));
    const failed = await client.get(e(5));

    expect(body.output.fields.length).toBeGreaterThan(0);
    expect(body.document.contentUrl).toMatch(/^http/);
    expect(failed.body.outputAvailable).toBe(false);
    expect(failed.body.output).toBeUndefined();
    expect(failed.body.error).toMatchObject({ code: 'DOCUMENT_NOT_ROUTED' });
  });
});

describe('feedback', () => {
  it('records ERROR feedback by default and marks the extraction for review', async () => {
    const created = await client.json(`/document-insights/extractions/${e(2)}/feedback`, json({ message: 'Total is wrong' }));

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ extractionId: e(2), message: 'Total is wrong', type: 'ERROR', fieldId: null });
    expect(created.body.id).toMatch(/^fb_/);
    expect((await client.get(e(2))).body.reviewRequired).toBe(true);
  });

  it('records INFO feedback on a field without marking for review', async () => {
    const fieldId = (await client.get(e(3))).body.output.fields[0].id;

    const created = await client.json(`/document-insights/extractions/${e(3)}/feedback`, json({ message: 'Looks right', type: 'INFO', fieldId }));

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'INFO', fieldId });
    expect((await client.get(e(3))).body.reviewRequired).toBeUndefined();
  });

  it.each([
    ['a missing message', {}, 'message'],
    ['an empty message', { message: '' }, 'message'],
    ['a message over 1024 characters', { message: 'x'.repeat(1025) }, 'message'],
    ['an unknown type', { message: 'x', type: 'WARNING' }, 'type'],
    ['a fieldId not in the output', { message: 'x', fieldId: 'fld_00000000000000000000000000' }, 'fieldId'],
  ])('answers 422 to %s', async (_case, body, field) => {
    const response = await client.json(`/document-insights/extractions/${e(1)}/feedback`, json(body));

    expect(response.status).toBe(422);
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
  });

  it('answers 400 to unreadable JSON and 415 to another content type', async () => {
    const unreadable = await client.json(`/document-insights/extractions/${e(1)}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message": ' });
    const text = await client.json(`/document-insights/extractions/${e(1)}/feedback`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'wrong' });

    expect(unreadable.status).toBe(400);
    expect(text.status).toBe(415);
  });

  it('accepts a message of exactly 1024 characters', async () => {
    const response = await client.json(`/document-insights/extractions/${e(1)}/feedback`, json({ message: 'x'.repeat(1024), type: 'INFO' }));

    expect(response.status).toBe(201);
  });
});

describe('workspace isolation', () => {
  it('hides every extraction of another workspace', async () => {
    const list = await otherWorkspace.list();
    const byLabel = await otherWorkspace.list('labels[customer]=acme');
    const get = await otherWorkspace.get(e(1));
    const feedback = await otherWorkspace.json(`/document-insights/extractions/${e(1)}/feedback`, json({ message: 'x' }));
    const deleted = await otherWorkspace.json(`/document-insights/extractions/${e(1)}`, { method: 'DELETE' });

    expect(list.body.pageInfo.totalItems).toBe(0);
    expect(list.body.data).toEqual([]);
    expect(byLabel.body.pageInfo.totalItems).toBe(0);
    expect([get.status, feedback.status, deleted.status]).toEqual([404, 404, 404]);
    expect((await client.get(e(1))).status).toBe(200);
  });
});
