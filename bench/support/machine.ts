import { readdirSync, readFileSync } from 'node:fs';
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

/**
 * CPU seconds of this process's libuv thread pool (threads named `libuv-worker`: file system work,
 * LevelDB's reads and writes, DNS lookups), from /proc; undefined where there is no /proc (not Linux).
 * What is left of the process beside its JavaScript threads is then V8's helper threads (GC, compilation).
 */
export function libuvPoolCpuSeconds(): number | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  const ticksPerSecond = 100; // USER_HZ, 100 on every Linux that Node supports
  let ticks = 0;
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!name.startsWith('libuv-worker')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ticks / ticksPerSecond;
}
