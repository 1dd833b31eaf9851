import type { OcrPool } from '../extraction-engine/index.ts';

// One OCR pool for the whole process: a warm Lambda container (and the local stack, which runs the
// extract task in-process) reads document after document, and starting the workers with their
// language models costs about a second or two each time. The pool is made on the first document and
// starts workers only when a page needs OCR; workers idle for PAPERFLOW_OCR_IDLE_SECONDS are
// terminated (their memory back) and started again by the next scanned page. The idle timer never
// holds the process open, but live workers (threads) do: a process that should end on its own after
// reading calls terminateProcessOcrPool, as the local stack's stop() does; otherwise it ends at most
// the idle period after its last page (measured: 3 s setting, exit 3.0 s after the read).

let processPool: OcrPool | undefined;

/**
 * The process-wide pool; the OCR reader (with its native addons) is imported on first use only.
 * `idleTimeoutMs` (PAPERFLOW_OCR_IDLE_SECONDS, read by the composition root) applies when the pool is made.
 */
export async function processOcrPool(idleTimeoutMs = 60_000): Promise<OcrPool> {
  if (processPool) return processPool;
  const { OcrPool } = await import('../extraction-engine/reading.ts');
  processPool ??= new OcrPool({ idleTimeoutMs });
  return processPool;
}

/** Stops the pool's workers (local stack shutdown); a later document gets a new pool. */
export async function terminateProcessOcrPool(): Promise<void> {
  const pool = processPool;
  processPool = undefined;
  await pool?.terminate();
}
