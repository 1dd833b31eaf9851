import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { apiKeyService, workspaceStore } from '../src/composition/auth.ts';
import { readDocumentOnDemand } from '../src/composition/extraction-processing.ts';
import { defaultExtractionConfiguration, extractDocument, totalArithmeticCheck } from '../src/extraction-engine/index.ts';
import { startLocalStack } from '../src/local/local-stack.ts';
import { describeMachine, percentile } from './support/machine.ts';

// A receipt photo from upload to COMPLETED through the embedded stack (multipart upload, S3, the
// extraction state machine, the OCR pool the extract task shares), against the engine alone reading
// and extracting the same photos in the same process with the same pool: what the service adds to the
// reading. Sequential, one client, as a user uploading one receipt at a time sees it.
// BENCH_RECEIPTS limits the photos (default 10, the first of receipts/ by name).
const corpus = resolve(process.env.PAPERFLOW_CORPUS_DIR ?? '../shared/corpus');
const receiptCount = Number(process.env.BENCH_RECEIPTS ?? 10);
const terminal = new Set(['COMPLETED', 'FAILED', 'REJECTED']);

const receiptsDir = join(corpus, 'receipts');
const names = (await readdir(receiptsDir)).filter((name) => /\.jpe?g$/iu.test(name)).sort().slice(0, receiptCount);
const photos = await Promise.all(names.map(async (name) => ({ name, bytes: await readFile(join(receiptsDir, name)) })));
const loadAtStart = loadavg()[0]!;
// The stack's per-message info lines would bury the figures; warnings and errors still print.
process.env.PAPERFLOW_LOG_LEVEL ??= 'warn';

const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-bench-receipts-'));
const stack = await startLocalStack({ dataDir, port: 0, authorizerCacheSeconds: 60 });
try {
  await workspaceStore().ensure({ id: 'ws_bench', name: 'bench', createdAt: new Date().toISOString() });
  const { secret } = await apiKeyService().create({ workspaceId: 'ws_bench', name: 'bench', scopes: ['*'], rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 } });
  const headers = { authorization: `api-key ${secret}` };
  const upload = async (name: string, bytes: Buffer): Promise<string> => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/jpeg' }), name);
    const response = await fetch(`${stack.baseUrl}/document-insights/extractions/upload`, { method: 'POST', headers, body: form });
    const body = (await response.json()) as { id?: string };
    if (response.status !== 202 || !body.id) throw new Error(`upload of ${name}: ${response.status} ${JSON.stringify(body)}`);
    return body.id;
  };
  const waitForTerminal = async (id: string): Promise<string> => {
    for (;;) {
      const response = await fetch(`${stack.baseUrl}/document-insights/extractions/${id}`, { headers });
      const body = (await response.json()) as { status: string };
      if (terminal.has(body.status)) return body.status;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  // One photo first, so the OCR pool's workers and models are loaded as in a warm container.
  await waitForTerminal(await upload(photos[0]!.name, photos[0]!.bytes));

  const endToEnd: number[] = [];
  const engineAlone: number[] = [];
  const statuses: Record<string, number> = {};
  for (const { name, bytes } of photos) {
    // Alternate the two measures photo by photo so a change in the box's load falls on both.
    const startedAt = performance.now();
    const status = await waitForTerminal(await upload(name, bytes));
    endToEnd.push(performance.now() - startedAt);
    statuses[status] = (statuses[status] ?? 0) + 1;
    const readStartedAt = performance.now();
    // With the field finder's arithmetic check, as the extract task reads (a failing total's lines are read again).
    const document = await readDocumentOnDemand(new Uint8Array(bytes), { arithmeticCheck: totalArithmeticCheck({ configuration: defaultExtractionConfiguration }) });
    extractDocument(document, { configuration: defaultExtractionConfiguration });
    engineAlone.push(performance.now() - readStartedAt);
  }
  endToEnd.sort((a, b) => a - b);
  engineAlone.sort((a, b) => a - b);
  const median = (values: number[]) => percentile(values, 0.5) / 1000;
  console.log(`receipt photos end to end (${describeMachine()}; load average ${loadAtStart.toFixed(1)} → ${loadavg()[0]!.toFixed(1)})`);
  console.log(`  ${photos.length} photos of receipts/, sequential, one warm-up first: ${JSON.stringify(statuses)}`);
  console.log(`  upload → COMPLETED: median ${median(endToEnd).toFixed(2)} s, p90 ${(percentile(endToEnd, 0.9) / 1000).toFixed(2)} s (target: median ≤ 3 s)`);
  console.log(`  engine alone (read + extract, same pool): median ${median(engineAlone).toFixed(2)} s, p90 ${(percentile(engineAlone, 0.9) / 1000).toFixed(2)} s`);
  console.log(`  the service adds: ${(median(endToEnd) - median(engineAlone)).toFixed(2)} s at the median (end to end / engine ${(median(endToEnd) / median(engineAlone)).toFixed(2)})`);
  if (statuses.COMPLETED !== photos.length) process.exitCode = 1;
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
