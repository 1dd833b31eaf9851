import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyService, workspaceStore } from '../src/composition/auth.ts';
import { startLocalStack } from '../src/local/local-stack.ts';
import { recordedEvents } from '../test/support/extraction-client.ts';
import { invoicePdf } from '../test/support/extraction-documents.ts';
import { describeMachine, percentile } from './support/machine.ts';

// Create → COMPLETED latency for a one-page text PDF (sequential, p50/p95), then 200 concurrent
// creates: every one must reach a terminal state with exactly one event.
const sequentialRuns = Number(process.env.BENCH_SEQUENTIAL ?? 40);
const concurrentCreates = Number(process.env.BENCH_CONCURRENT ?? 200);
const terminal = new Set(['COMPLETED', 'FAILED', 'REJECTED']);

const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-bench-'));
const stack = await startLocalStack({ dataDir, port: 0, authorizerCacheSeconds: 60 });
try {
  await workspaceStore().ensure({ id: 'ws_bench', name: 'bench', createdAt: new Date().toISOString() });
  const { secret } = await apiKeyService().create({ workspaceId: 'ws_bench', name: 'bench', scopes: ['*'], rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 } });
  const headers = { authorization: `api-key ${secret}` };
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${stack.baseUrl}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
    return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const form = new FormData();
  form.append('file', new Blob([await invoicePdf()]), 'invoice.pdf');
  const fileId = (await api('/files', { method: 'POST', body: form })).body.fileId as string;
  const create = () => api('/document-insights/extractions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ document: { fileId } }) });
  const waitForTerminal = async (id: string, pollMs: number) => {
    for (;;) {
      const { body } = await api(`/document-insights/extractions/${id}`);
      if (terminal.has(body.status)) return body;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };

  // 1. Sequential: the latency one client sees.
  for (let warmUp = 0; warmUp < 3; warmUp += 1) await waitForTerminal((await create()).body.id, 5);
  const latencies: number[] = [];
  for (let run = 0; run < sequentialRuns; run += 1) {
    const startedAt = performance.now();
    const created = await create();
    const done = await waitForTerminal(created.body.id, 5);
    if (done.status !== 'COMPLETED') throw new Error(`${created.body.id} ended ${done.status}`);
    latencies.push(performance.now() - startedAt);
  }
  latencies.sort((a, b) => a - b);

  // 2. Concurrent: 200 creates at once.
  const burstStartedAt = performance.now();
  const created = await Promise.all(Array.from({ length: concurrentCreates }, () => create()));
  const accepted = created.filter((response) => response.status === 202).map((response) => response.body.id as string);
  const acceptedMs = performance.now() - burstStartedAt;
  const deadline = Date.now() + 10 * 60_000;
  const statuses = new Map<string, string>();
  while (statuses.size < accepted.length && Date.now() < deadline) {
    for (const id of accepted.filter((candidate) => !statuses.has(candidate))) {
      const { body } = await api(`/document-insights/extractions/${id}`);
      if (terminal.has(body.status)) statuses.set(id, body.status);
    }
    if (statuses.size < accepted.length) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const allTerminalMs = performance.now() - burstStartedAt;
  // Events are written right after the terminal state: give the last ones a moment.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const eventsPerExtraction = new Map<string, number>();
  for (const event of await recordedEvents('ws_bench')) {
    eventsPerExtraction.set(event.data.extractionId, (eventsPerExtraction.get(event.data.extractionId) ?? 0) + 1);
  }
  const exactlyOne = accepted.filter((id) => eventsPerExtraction.get(id) === 1).length;
  const byStatus = [...statuses.values()].reduce<Record<string, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

  console.log(`extraction processing (${describeMachine()}, embedded stack, in-process Step Functions)`);
  console.log(`  create → COMPLETED, one-page text PDF, ${sequentialRuns} sequential: p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p95 ${percentile(latencies, 0.95).toFixed(0)} ms`);
  console.log(`  ${concurrentCreates} concurrent creates: ${accepted.length} accepted (202) in ${acceptedMs.toFixed(0)} ms, ${statuses.size} terminal after ${(allTerminalMs / 1000).toFixed(1)} s ${JSON.stringify(byStatus)}`);
  console.log(`  events: ${exactlyOne} of ${accepted.length} extractions have exactly one (target: all)`);
  if (statuses.size !== concurrentCreates || exactlyOne !== concurrentCreates) process.exitCode = 1;
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
