import type { MiddlewareStack } from '@smithy/types';

/** What one SDK operation cost over a measured stretch: how often it was called, its total latency. */
export interface OperationCalls {
  calls: number;
  totalMs: number;
}

/**
 * Counts the calls an AWS SDK client makes, per operation, with their round-trip time (SDK
 * serialisation, the emulator's work and the loopback HTTP): the bench divides them by the deliveries
 * made, to show where the work per delivery goes. The document client shares its client's stack.
 */
export class SdkCallCounter {
  private readonly calls = new Map<string, OperationCalls>();

  attach(service: string, client: { middlewareStack: MiddlewareStack<any, any> }): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const startedAt = performance.now();
        try {
          return await next(args);
        } finally {
          const name = `${service} ${String(context.commandName ?? 'unknown').replace(/Command$/, '')}`;
          const entry = this.calls.get(name) ?? { calls: 0, totalMs: 0 };
          entry.calls += 1;
          entry.totalMs += performance.now() - startedAt;
          this.calls.set(name, entry);
        }
      },
      { step: 'initialize', name: 'benchSdkCallCounter', override: true },
    );
  }

  reset(): void {
    this.calls.clear();
  }

  snapshot(): Map<string, OperationCalls> {
    return new Map([...this.calls].map(([name, entry]) => [name, { ...entry }]));
  }

  /** One line per operation, `per` being the unit the counts are divided by (deliveries). */
  static describe(calls: Map<string, OperationCalls>, per: number): string[] {
    return [...calls]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, { calls: count, totalMs }]) => `${name}: ${(count / per).toFixed(2)} per delivery, ${(totalMs / count).toFixed(1)} ms each`);
  }

  static total(calls: Map<string, OperationCalls>, service: string): number {
    return [...calls].filter(([name]) => name.startsWith(`${service} `)).reduce((sum, [, entry]) => sum + entry.calls, 0);
  }
}
