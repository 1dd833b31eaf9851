import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { literalProbes } from '../support/ssrf-probes.ts';

// The SSRF probes whose URL text alone is enough to refuse them, sent to the two operations that take
// an outbound URL, on a stack without PAPERFLOW_ALLOW_PRIVATE_URLS: each is a 422 naming the field,
// and nothing is created. The unit suite (test/unit/outbound/ssrf-probes.test.ts) covers the fetch.

let stack: StackUnderTest;
let client: ExtractionClient;

const post = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  delete process.env.PAPERFLOW_ALLOW_PRIVATE_URLS;
  stack = await startStackUnderTest();
  client = new ExtractionClient(stack, await workspaceKey('ws_ssrf'));
});

afterAll(async () => {
  await stack?.stop();
});

describe('POST /document-insights/extractions', () => {
  it.each(literalProbes)('refuses $kind ($url) on document.url with 422', async ({ url, issue }) => {
    const response = await client.create({ document: { url } });

    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'document.url', issue: `The URL ${issue}.` }] });
  });

  it('created no extraction for any of them', async () => {
    const listed = await client.json('/document-insights/extractions');

    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
  });
});

describe('POST /event-subscriptions', () => {
  it.each(literalProbes)('refuses $kind ($url) on endpointUrl with 422', async ({ url, issue }) => {
    const response = await client.json('/event-subscriptions', post({ name: 'Probe', endpointUrl: url, eventTypes: ['document-insights.extraction.completed'] }));

    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'endpointUrl', issue }] });
  });

  it('created no subscription for any of them', async () => {
    const listed = await client.json('/event-subscriptions');

    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
  });
});
