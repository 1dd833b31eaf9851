import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { parseDeliveryQueueMessage } from '../../src/webhooks/delivery-queue-messages.ts';
import { deliveryQueueMessages } from '../../src/composition/webhooks.ts';
import { documentInsightsResumer } from '../../src/workflows/steps/document-insights-resume.ts';
import { StepFunctionsTaskCallbacks } from '../../src/workflows/aws/step-functions-task-callbacks.ts';
import type { TaskCallbacks } from '../../src/workflows/task-callbacks.ts';
import { documentInsightsWaits } from '../../src/composition/workflow-callbacks.ts';

// The delivery queue's consumer as production runs it (fan-out plus the document_insights listener,
// functions/webhooks/process-webhook-deliveries.ts), except that task tokens are answered on the test's
// own Step Functions endpoint, where the test state machine that issued them runs. The endpoint comes
// through a process-wide registry, as the local invoker may load its own copy of this module.

const endpointKey = Symbol.for('paperflow.test.stepResumingConsumer.endpoint');
const outagesKey = Symbol.for('paperflow.test.stepResumingConsumer.outages');
const registry = globalThis as unknown as Record<symbol, unknown>;

export function answerTaskTokensAt(endpoint: string): void {
  registry[endpointKey] = endpoint;
}

/** The next `count` answers fail as a throttled Step Functions would: the hand-off message comes back. */
export function throttleNextAnswers(count: number): void {
  registry[outagesKey] = count;
}

/** Callbacks whose sends fail while an outage set by the test lasts. */
function withOutages(callbacks: TaskCallbacks): TaskCallbacks {
  const throttled = () => {
    const left = (registry[outagesKey] as number | undefined) ?? 0;
    if (left <= 0) return false;
    registry[outagesKey] = left - 1;
    return true;
  };
  const refuse = () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
  return {
    succeed: (taskToken, output) => (throttled() ? refuse() : callbacks.succeed(taskToken, output)),
    fail: (taskToken, error, cause) => (throttled() ? refuse() : callbacks.fail(taskToken, error, cause)),
  };
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const endpoint = registry[endpointKey] as string | undefined;
  if (!endpoint) throw new Error('answerTaskTokensAt(endpoint) was not called.');
  const callbacks = withOutages(new StepFunctionsTaskCallbacks(new SFNClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } })));
  const messages = deliveryQueueMessages([documentInsightsResumer(() => ({ waits: documentInsightsWaits(), callbacks }))]);
  const failed: string[] = [];
  for (const record of event.Records) {
    try {
      await messages.handle(parseDeliveryQueueMessage(record.body));
    } catch {
      failed.push(record.messageId);
    }
  }
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}
