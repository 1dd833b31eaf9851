import { afterEach, describe, expect, it, vi } from 'vitest';
import { discardedMetrics, emfMetricSink, metrics, useMetricSink } from '../../../src/infrastructure/metrics.ts';

/** The lines written to stdout while `run` runs. */
function stdoutLinesOf(run: () => void): string[] {
  const written: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    write.mockRestore();
  }
  return written.join('').split('\n').filter((line) => line.trim() !== '');
}

afterEach(() => {
  useMetricSink(undefined);
  vi.unstubAllEnvs();
});

describe('the EMF metric sink', () => {
  it('writes one Embedded Metric Format line per value, in the Paperflow namespace, with its dimension and unit', () => {
    const sink = emfMetricSink('paperflow-extract');

    const lines = stdoutLinesOf(() => {
      sink.record({ name: 'ExtractionDuration', value: 1234, dimension: 'COMPLETED' });
      sink.record({ name: 'ExtractionDuration', value: 80, dimension: 'REJECTED' });
    });

    expect(lines).toHaveLength(2);
    const [completed, rejected] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(completed).toMatchObject({ outcome: 'COMPLETED', ExtractionDuration: 1234, service: 'paperflow-extract' });
    expect(rejected).toMatchObject({ outcome: 'REJECTED', ExtractionDuration: 80 });
    const directive = (completed!._aws as { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] })
      .CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe('Paperflow');
    expect(directive.Dimensions[0]).toContain('outcome');
    expect(directive.Metrics).toEqual([{ Name: 'ExtractionDuration', Unit: 'Milliseconds' }]);
  });
});

describe('metrics.record', () => {
  it('writes nothing outside Lambda (no PAPERFLOW_METRICS=emf): the local stack discards metrics', () => {
    vi.stubEnv('PAPERFLOW_METRICS', '');
    useMetricSink(undefined);

    expect(stdoutLinesOf(() => metrics.record('RunDuration', 10, 'COMPLETED'))).toEqual([]);
  });

  it('writes EMF where the function sets PAPERFLOW_METRICS=emf', () => {
    vi.stubEnv('PAPERFLOW_METRICS', 'emf');
    useMetricSink(undefined);

    const lines = stdoutLinesOf(() => metrics.record('RunDuration', 10, 'FAILED'));

    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([expect.objectContaining({ RunDuration: 10, status: 'FAILED' })]);
  });

  it('never throws: a sink that fails loses the value, not the request', () => {
    useMetricSink({
      record: () => {
        throw new Error('sink down');
      },
    });

    expect(() => metrics.record('DeliveryAttempt', 5, 'failed')).not.toThrow();
  });

  it('the discarding sink records nothing', () => {
    expect(stdoutLinesOf(() => discardedMetrics.record({ name: 'RunDuration', value: 1, dimension: 'COMPLETED' }))).toEqual([]);
  });
});
