import { request } from 'node:http';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { jsonOf, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { corpusFile } from '../support/document-builders.ts';

// The review console's static files as the local gateway serves them at /console/: outside the
// versioned API and its OpenAPI document, with content types, a strict CSP and no way out of the
// console's own files. And the files bucket lets the console's page read a document's contentUrl.

let stack: StackUnderTest;
let origin: string;

beforeAll(async () => {
  stack = await startStackUnderTest();
  origin = new URL(stack.baseUrl).origin;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** A GET with the path sent exactly as written: fetch would resolve `..` before sending. */
function rawGet(path: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path, method }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString() }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the console\'s files', () => {
  it('serves the page, script, stylesheet and pdf.js worker with their content types and a strict Content-Security-Policy', async () => {
    const page = await rawGet('/console/');
    const script = await rawGet('/console/console.js');
    const style = await rawGet('/console/console.css');
    const worker = await rawGet('/console/pdf.worker.min.js');

    expect([page.status, script.status, style.status, worker.status]).toEqual([200, 200, 200, 200]);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(worker.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(page.body).toContain('<script type="module" src="console.js"></script>');
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe');
    // The only other origin the page may reach is the S3 endpoint that documents' contentUrls name.
    expect(policy).toMatch(/connect-src 'self' http:\/\/127\.0\.0\.1:\d+;/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // No CDN at run time: the page loads nothing from another origin.
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('redirects /console to /console/, answers HEAD like GET, and 405 in the error envelope for other methods', async () => {
    const bare = await rawGet('/console');
    const head = await rawGet('/console/console.js', 'HEAD');
    const post = await rawGet('/console/', 'POST');

    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe('/console/');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(10_000);
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(post.body).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it.each([
    '/console/../package.json',
    '/console/../../etc/passwd',
    '/console/..%2f..%2fpackage.json',
    '/console/%2e%2e/%2e%2e/package.json',
    '/console/%2e%2e%2fsrc%2flocal%2flocal-stack.ts',
    '/console/views/extraction-detail.tsx',
    '/console/console-app.tsx',
    '/console//etc/passwd',
    '/console/./../package.json',
  ])('never serves a file outside the built console: %s', async (path) => {
    const answer = await rawGet(path);

    expect([404, 308]).toContain(answer.status);
    if (answer.status === 404) expect(JSON.parse(answer.body).error.code).toBe('NOT_FOUND');
    expect(answer.body).not.toContain('"name": "paperflow"');
    expect(answer.body).not.toContain('root:');
    expect(answer.body).not.toContain('startLocalStack');
  });

  it('stays out of the OpenAPI document', async () => {
    const document = await jsonOf(await stack.api('/openapi.json', { apiKey: null }));

    expect(Object.keys(document.paths).filter((path) => path.includes('console'))).toEqual([]);
  });
});

describe('a document\'s contentUrl', () => {
  it('can be read by the console\'s page, on the gateway\'s origin (CORS of the files bucket)', async () => {
    const client = new ExtractionClient(stack, await workspaceKey('ws_console_site'));
    const pdf = await readFile(corpusFile('invoice2data/AmazonWebServices.pdf'));
    const { body: created } = await client.upload(pdf, 'cors.pdf');
    const { body: extraction } = await client.get(created.id);

    const download = await fetch(extraction.document.contentUrl, { headers: { origin } });

    expect(download.status).toBe(200);
    expect(download.headers.get('access-control-allow-origin')).toMatch(/^(\*|http:\/\/127\.0\.0\.1:\d+)$/);
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
  });
});
