import { vi } from 'vitest';

// The logger (src/infrastructure/logger.ts) writes JSON lines to stdout (debug, info) and stderr
// (warn, error). Tests read them here: the logger's lines are captured and kept out of the test
// output; anything else written to the two streams passes through.

interface LogEntry {
  level: string;
  message: string;
  time: string;
  [field: string]: unknown;
}

export type LogLine = LogEntry & { stream: 'stdout' | 'stderr' };

export interface CapturedLogLines {
  readonly lines: LogLine[];
  restore(): void;
}

export function captureLogLines(): CapturedLogLines {
  const lines: LogLine[] = [];
  const spies = (['stdout', 'stderr'] as const).map((stream) => {
    const target = process[stream];
    const original = target.write.bind(target);
    return vi.spyOn(target, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      const parsed = logLinesOf(String(chunk));
      if (parsed === undefined) return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
      lines.push(...parsed.map((line) => ({ ...line, stream })));
      const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof target.write);
  });
  return {
    lines,
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  };
}

function logLinesOf(text: string): LogEntry[] | undefined {
  if (!text.endsWith('\n')) return undefined;
  try {
    const entries = text.trimEnd().split('\n').map((line) => JSON.parse(line) as LogEntry);
    return entries.every((entry) => typeof entry === 'object' && entry !== null && typeof entry.level === 'string' && typeof entry.time === 'string')
      ? entries
      : undefined;
  } catch {
    return undefined;
  }
}
