import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { readDocument } from '../src/extraction-engine/diagnostics.ts';
import { processOcrPool, terminateProcessOcrPool } from '../src/extractions/process-ocr-pool.ts';
import { readDocumentOnDemand } from '../src/composition/extraction-processing.ts';
import { describeMachine, percentile } from './support/machine.ts';

// Reading a scanned document when the process has read one before (issue 14 item 6): with the
// extraction wiring's process-wide OCR pool (workers already started) against a pool started and
// terminated for the document, as readDocument does when given none. Same run, turns alternate.
// `npm run bench -- second-document` (PAPERFLOW_CORPUS_DIR, BENCH_REPETITIONS).

const corpus = resolve(process.env.PAPERFLOW_CORPUS_DIR ?? '../shared/corpus');
const repetitions = Number(process.env.BENCH_REPETITIONS ?? 5);
const first = await readFile(join(corpus, 'receipts', 'sroie_003.jpg'));
const second = await readFile(join(corpus, 'receipts', 'sroie_016.jpg'));

const timed = async (read: () => Promise<unknown>) => {
  const started = performance.now();
  await read();
  return (performance.now() - started) / 1000;
};

const loadBefore = loadavg()[0]!;
await readDocumentOnDemand(first, {}); // the process's first document starts the workers
const fresh: number[] = [];
const warm: number[] = [];
for (let turn = 0; turn < repetitions; turn += 1) {
  const readFresh = () => timed(() => readDocument(second, {}));
  const readWarm = () => timed(() => readDocumentOnDemand(second, {}));
  if (turn % 2 === 0) {
    fresh.push(await readFresh());
    warm.push(await readWarm());
  } else {
    warm.push(await readWarm());
    fresh.push(await readFresh());
  }
}
const workersStarted = (await processOcrPool()).workersStarted;
await terminateProcessOcrPool();

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 0.5);
console.log(describeMachine());
console.log(`load average (1 min) before ${loadBefore.toFixed(2)}, after ${loadavg()[0]!.toFixed(2)}; ${repetitions} turns`);
console.log(`second document, fresh pool: median ${median(fresh).toFixed(2)} s (${fresh.map((s) => s.toFixed(2)).join(' ')})`);
console.log(`second document, warm pool:  median ${median(warm).toFixed(2)} s (${warm.map((s) => s.toFixed(2)).join(' ')})`);
console.log(`warm / fresh: ${(median(warm) / median(fresh)).toFixed(2)}; saved ${(median(fresh) - median(warm)).toFixed(2)} s; process pool started ${workersStarted} workers in all`);
