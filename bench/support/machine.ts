import { cpus, totalmem } from 'node:os';

/** Figures mean little without the machine they were measured on. */
export function describeMachine(): string {
  const processors = cpus();
  return `${processors.length} × ${processors[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

export function percentile(sortedValues: number[], fraction: number): number {
  if (sortedValues.length === 0) return Number.NaN;
  return sortedValues[Math.min(sortedValues.length - 1, Math.floor(fraction * sortedValues.length))]!;
}

/** Runs `operation` from `concurrency` loops for `durationMs`; returns completed operations per second. */
export async function measureThroughput(operation: () => Promise<unknown>, concurrency: number, durationMs: number): Promise<number> {
  const deadline = performance.now() + durationMs;
  let completed = 0;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await operation();
        completed += 1;
      }
    }),
  );
  return completed / ((performance.now() - startedAt) / 1000);
}
