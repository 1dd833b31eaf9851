import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

// The service's business metrics, one table: what operators graph and alarm on beside Lambda's own
// (errors, duration, throttles). Deployed, each is written as CloudWatch Embedded Metric Format by
// Powertools (one EMF line per value, on stdout, which CloudWatch turns into metrics with no API call);
// the CDK functions set PAPERFLOW_METRICS=emf. Elsewhere (the local stack, tests, the CLIs) the sink
// discards them: a laptop has no CloudWatch, and EMF lines would drown the local logs.
// It sits in src/infrastructure beside the logger so that domain code records a metric as it logs a
// line: by name, knowing nothing of EMF.

export const metricDefinitions = {
  /** An extraction reached COMPLETED, FAILED or REJECTED: the time from its request, by outcome. */
  ExtractionDuration: { unit: MetricUnit.Milliseconds, dimension: 'outcome' },
  /** A webhook POST was made and recorded: its time, by outcome (succeeded, failed). */
  DeliveryAttempt: { unit: MetricUnit.Milliseconds, dimension: 'outcome' },
  /** A delivery ended (SUCCEEDED, or FAILED after its last attempt): how many attempts it took. */
  DeliveryAttemptsUsed: { unit: MetricUnit.Count, dimension: 'status' },
  /** A workflow run ended: the time from its start, by status. */
  RunDuration: { unit: MetricUnit.Milliseconds, dimension: 'status' },
} as const;

export type MetricName = keyof typeof metricDefinitions;

export interface RecordedMetric {
  name: MetricName;
  value: number;
  /** The value of the metric's one dimension (metricDefinitions). */
  dimension: string;
}

export interface MetricSink {
  record(metric: RecordedMetric): void;
}

const namespace = 'Paperflow';

/** EMF through Powertools: one single-metric line per value, so each carries its own dimension value. */
export function emfMetricSink(serviceName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'paperflow'): MetricSink {
  const powertools = new Metrics({ namespace, serviceName });
  return {
    record({ name, value, dimension }) {
      const definition = metricDefinitions[name];
      const single = powertools.singleMetric();
      single.addDimension(definition.dimension, dimension);
      single.addMetric(name, definition.unit, value);
      single.publishStoredMetrics();
    },
  };
}

export const discardedMetrics: MetricSink = { record: () => undefined };

let sink: MetricSink | undefined;

function currentSink(): MetricSink {
  sink ??= process.env.PAPERFLOW_METRICS === 'emf' ? emfMetricSink() : discardedMetrics;
  return sink;
}

export const metrics = {
  record(name: MetricName, value: number, dimension: string): void {
    try {
      currentSink().record({ name, value, dimension });
    } catch {
      // A metric is never worth a failed request or task: a sink that throws loses the value only.
    }
  },
};

/** Replaces the sink (tests: a recording one; `undefined`: back to the environment's choice). */
export function useMetricSink(replacement: MetricSink | undefined): void {
  sink = replacement;
}

/** Milliseconds from an ISO time to `until`, never negative (clocks of two machines). */
export function millisecondsSince(isoTime: string, until: Date): number {
  return Math.max(0, until.getTime() - Date.parse(isoTime));
}
