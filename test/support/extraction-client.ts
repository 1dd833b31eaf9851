import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyService, workspaceStore } from '../../src/composition/auth.ts';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { executionNameOf } from '../../src/extractions/extraction-executions.ts';
import { dynamoDocumentClient } from '../../src/infrastructure/dynamodb-client.ts';
import { sfnClient } from '../../src/infrastructure/sfn-client.ts';
import { paperflowConfiguration } from '../../src/composition/configuration.ts';
import { jsonOf, type StackUnderTest } from './local-stack-harness.ts';

// Helpers for the extraction integration tests: keys per workspace, uploads, bounded polling.

const terminal = new Set(['COMPLETED', 'FAILED', 'REJECTED']);

/** A key of its own workspace with a high rate limit, so polling never meets 429. */
export async function workspaceKey(workspaceId: string, scopes: string[] = ['*']): Promise<string> {
  await workspaceStore().ensure({ id: workspaceId, name: workspaceId, createdAt: new Date().toISOString() });
  const { secret } = await apiKeyService().create({ workspaceId, name: 'extraction tests', scopes, rateLimit: { requestsPerSecond: 5_000, burst: 5_000 } });
  return secret;
}

export class ExtractionClient {
  constructor(
    private readonly stack: StackUnderTest,
    readonly apiKey: string,
  ) {}

  request(path: string, init: RequestInit = {}) {
    return this.stack.api(path, { ...init, apiKey: this.apiKey });
  }

  async json(path: string, init: RequestInit = {}) {
    const response = await this.request(path, init);
    return { status: response.status, body: await jsonOf(response) };
  }

  create(body: unknown) {
    return this.json('/document-insights/extractions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  /** Labels go as a text part holding JSON (a browser's FormData cannot send a JSON part without a filename). */
  upload(content: Buffer, fileName = 'document.pdf', labels?: Record<string, string>) {
    const form = new FormData();
    form.append('file', new Blob([content]), fileName);
    if (labels) form.append('labels', JSON.stringify(labels));
    return this.json('/document-insights/extractions/upload', { method: 'POST', body: form });
  }

  /** The form curl sends with `-F 'labels=…;type=application/json'`: labels as a JSON part. */
  uploadWithJsonLabelsPart(content: Buffer, fileName: string, labelsJson: string) {
    const boundary = `----paperflow${Date.now()}`;
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="labels"\r\nContent-Type: application/json\r\n\r\n${labelsJson}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/pdf\r\n\r\n`),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return this.json('/document-insights/extractions/upload', { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
  }

  async uploadFile(content: Buffer, fileName = 'document.pdf'): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([content]), fileName);
    const { status, body } = await this.json('/files', { method: 'POST', body: form });
    if (status !== 201) throw new Error(`upload failed: ${status} ${JSON.stringify(body)}`);
    return body.fileId as string;
  }

  get(extractionId: string) {
    return this.json(`/document-insights/extractions/${extractionId}`);
  }

  list(query = '') {
    return this.json(`/document-insights/extractions${query ? `?${query}` : ''}`);
  }

  /** Polls until the extraction is terminal (bounded: `timeoutMs`), returning it. */
  async waitForTerminal(extractionId: string, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { status, body } = await this.get(extractionId);
      if (status !== 200) throw new Error(`GET ${extractionId}: ${status} ${JSON.stringify(body)}`);
      if (terminal.has(body.status)) return body;
      if (Date.now() > deadline) throw new Error(`${extractionId} still ${body.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Polls until the extraction has left QUEUED (bounded). */
  async waitForStatus(extractionId: string, wanted: string, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { body } = await this.get(extractionId);
      if (body.status === wanted) return body;
      if (Date.now() > deadline) throw new Error(`${extractionId} is ${body.status}, not ${wanted}, after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LooseItem = Record<string, any>;

/** Every recorded event of a workspace, read from the records table. */
export async function recordedEvents(workspaceId: string): Promise<LooseItem[]> {
  const items: LooseItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamoDocumentClient().send(
      new QueryCommand({
        TableName: paperflowConfiguration().resources.recordsTableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :events',
        ExpressionAttributeValues: { ':events': `WS#${workspaceId}#EVENTS` },
        ExclusiveStartKey: startKey,
      }),
    );
    // Events keep `data` as its JSON text (`dataJson`, src/events/event-recorder.ts): read as the envelope.
    items.push(...(page.Items ?? []).map((item) => (typeof item.dataJson === 'string' ? { ...item, data: JSON.parse(item.dataJson) } : item)));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The recorded events of one extraction. */
export async function recordedEventsOf(workspaceId: string, extractionId: string): Promise<LooseItem[]> {
  return (await recordedEvents(workspaceId)).filter((item) => item.data?.extractionId === extractionId);
}

/** Waits (bounded) until the generation's execution has ended, asking Step Functions as a client would. */
export async function waitForExecutionEnd(extractionId: string, generation = 1, timeoutMs = 20_000): Promise<string> {
  const stateMachineArn = paperflowConfiguration().resources.stateMachineArn('extraction');
  const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionNameOf({ id: extractionId, generation })}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await sfnClient().send(new DescribeExecutionCommand({ executionArn }));
    if (status !== 'RUNNING') return status!;
    if (Date.now() > deadline) throw new Error(`${executionArn} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The terminal state is written before its event (the event id derives from it), so a client can see
 * COMPLETED a moment before the event exists: wait (bounded) for the expected number of events.
 */
export async function waitForEvents(workspaceId: string, extractionId: string, count: number, timeoutMs = 5_000): Promise<LooseItem[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await recordedEventsOf(workspaceId, extractionId);
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
