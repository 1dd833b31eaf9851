import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { apiSchemaPath, renderApiSchema } from '../../../scripts/generate-api-client.ts';
import { createPaperflowClient, type PaperflowEvent } from '../../../src/client/paperflow-client.ts';
import { verifyPaperflowWebhook, WebhookSignatureError } from '../../../src/client/webhook-events.ts';
import { signWebhook } from '../../../src/webhooks/webhook-signature.ts';

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes').toString('base64')}`;
const otherSecret = `whsec_${Buffer.from('another secret, thirty-two bytes').toString('base64')}`;
const event = {
  eventId: 'evt_01JZ00000000000000000000E1',
  eventType: 'workflow.run.failed',
  occurredAt: '2026-03-01T10:00:00.000Z',
  apiVersion: 'v1',
  data: { runId: 'run_1', workflowId: 'wf_1', status: 'FAILED', error: { code: 'WORKFLOW_STEP_FAILED', message: 'Step check failed.' } },
};
const body = JSON.stringify(event);
const now = 1_772_359_200;

function signedHeaders(...secrets: string[]): Record<string, string> {
  const signed = secrets.map((key) => signWebhook({ secret: key, eventId: event.eventId, body, timestamp: now }));
  // During a rotation the service sends one header with both v1 values.
  const signature = `t=${now},${signed.map((headers) => headers['X-Paperflow-Signature'].split(',')[1]).join(',')}`;
  return { 'X-Paperflow-Signature': signature, 'X-Paperflow-Event-Id': event.eventId };
}

describe('the generated client types', () => {
  it('are what scripts/generate-api-client.ts writes from the served document today', async () => {
    expect(await readFile(apiSchemaPath, 'utf8'), 'src/client/api-schema.ts is stale: run npx tsx scripts/generate-api-client.ts').toBe(await renderApiSchema());
  });
});

describe('createPaperflowClient', () => {
  it('sends the key as Authorization: api-key and the documented path with its parameters', async () => {
    const requests: Request[] = [];
    const api = createPaperflowClient({
      apiUrl: 'https://api.example.test/api/public/v1/',
      apiKey: 'pf_live_example',
      fetch: async (request) => {
        requests.push(request as Request);
        return new Response(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'No such run.', requestId: 'req_1', retryable: false } }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        });
      },
    });

    const answer = await api.GET('/workflow-runs/{runId}', { params: { path: { runId: 'run_123' } } });

    expect(requests[0]!.url).toBe('https://api.example.test/api/public/v1/workflow-runs/run_123');
    expect(requests[0]!.headers.get('authorization')).toBe('api-key pf_live_example');
    expect(answer.response.status).toBe(404);
    expect(answer.error).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

describe('verifyPaperflowWebhook', () => {
  it('returns the event, typed by its eventType, when the signature is the secret\'s', () => {
    const verified: PaperflowEvent = verifyPaperflowWebhook(body, signedHeaders(secret), secret, { now });

    expect(verified).toEqual(event);
    if (verified.eventType === 'workflow.run.failed' && verified.data.status === 'FAILED') expect(verified.data.error.code).toBe('WORKFLOW_STEP_FAILED');
  });

  it('accepts a delivery signed during a rotation with either secret, and headers as fetch gives them', () => {
    const headers = signedHeaders(otherSecret, secret);

    expect(verifyPaperflowWebhook(body, headers, secret, { now }).eventId).toBe(event.eventId);
    expect(verifyPaperflowWebhook(Buffer.from(body), new Headers(headers), otherSecret, { now }).eventId).toBe(event.eventId);
  });

  it('refuses another secret, a changed body, an old timestamp and an id header naming another event', () => {
    const headers = signedHeaders(secret);

    expect(() => verifyPaperflowWebhook(body, headers, otherSecret, { now })).toThrow(WebhookSignatureError);
    expect(() => verifyPaperflowWebhook(body.replace('run_1', 'run_2'), headers, secret, { now })).toThrow(WebhookSignatureError);
    expect(() => verifyPaperflowWebhook(body, headers, secret, { now: now + 3600 })).toThrow(/tolerance|timestamp/i);
    expect(() => verifyPaperflowWebhook(body, { ...headers, 'X-Paperflow-Event-Id': 'evt_other' }, secret, { now })).toThrow(/does not name the signed event/);
  });
});
