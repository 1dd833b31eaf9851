import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageDescription from '../../package.json' with { type: 'json' };
import { failureOf } from '../support/admin-cli-process.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { jsonOf, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { paperflowCliFor, processesWhoseCommandLineHas, startPaperflowProcess, type CliConnection } from '../support/paperflow-cli-process.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { publishDefinition } from '../support/workflow-runs.ts';
import { corpusFile } from '../support/document-builders.ts';

// `paperflow` as an API user runs it: a child process given only PAPERFLOW_API_URL and
// PAPERFLOW_API_KEY, calling the embedded stack's public API over HTTP.

const corpusInvoice = corpusFile('invoice2data/AmazonWebServices.pdf');
const workspaceId = 'ws_cli';

let stack: StackUnderTest;
let connection: CliConnection;
/** A key of a workspace nothing is ever made in. */
let emptyWorkspaceKey: string;

beforeAll(async () => {
  stack = await startStackUnderTest();
  connection = { apiUrl: stack.baseUrl, apiKey: await workspaceKey(workspaceId) };
  emptyWorkspaceKey = await workspaceKey('ws_cli_empty');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const paperflow = paperflowCliFor(() => connection);

describe('paperflow extract', () => {
  it('uploads a corpus PDF, waits, and prints the extraction with its fields as JSON', async () => {
    const { stdout } = await paperflow('extract', corpusInvoice, '--label', 'source=cli-test', '--wait', '--json');

    const extraction = JSON.parse(stdout);
    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true, labels: { source: 'cli-test' }, document: { fileName: 'AmazonWebServices.pdf' } });
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(values).toMatchObject({ invoice_number: '42183017', total_amount: 4.11 });
  }, 120_000);
});

describe('paperflow extractions', () => {
  it('lists by label as a table, shows one with its fields, records feedback and deletes it', async () => {
    const client = new ExtractionClient(stack, connection.apiKey);
    const { body: created } = await client.upload(await invoicePdf({ invoiceNumber: 'INV-CLI-7' }), 'cli-invoice.pdf', { batch: 'cli-table' });
    await client.waitForTerminal(created.id);

    const listed = await paperflow('extractions', 'list', '--label', 'batch=cli-table', '--status', 'COMPLETED');
    const shown = await paperflow('extractions', 'get', created.id);
    const fieldId = (await client.get(created.id)).body.output.fields.find((field: { name: string }) => field.name === 'invoice_number').id;
    const feedback = await paperflow('extractions', 'feedback', created.id, '--message', 'wrong number', '--field', fieldId);
    const feedbackByName = await paperflow('extractions', 'feedback', created.id, '--message', 'also wrong', '--field', 'invoice_number', '--json');
    const unknownField = await failureOf(paperflow('extractions', 'feedback', created.id, '--message', 'no such field', '--field', 'invoice_numbr'));
    const reviewed = await client.get(created.id);
    const deleted = await paperflow('extractions', 'delete', created.id);

    expect(listed.stdout).toMatch(new RegExp(`^ID +STATUS +CREATED +FILE +REVIEW +LABELS\\n${created.id} +COMPLETED .* cli-invoice\\.pdf +batch=cli-table\\n1 extraction\\.\\n$`));
    expect(shown.stdout).toContain(`${created.id}  COMPLETED  cli-invoice.pdf`);
    expect(shown.stdout).toMatch(/invoice_number +INV-CLI-7 +string/);
    expect(feedback.stdout).toMatch(new RegExp(`Feedback fb_\\w+ \\(ERROR\\) recorded on ${created.id}, field ${fieldId}\\.`));
    expect(JSON.parse(feedbackByName.stdout)).toMatchObject({ fieldId, type: 'ERROR' });
    expect(unknownField).toMatchObject({ code: 2, stderr: expect.stringContaining(`${created.id} has no field named or with the id invoice_numbr: its fields are invoice_number,`) });
    expect(reviewed.body.reviewRequired).toBe(true);
    expect(deleted.stdout).toBe(`Deleted ${created.id}.\n`);
    expect((await client.get(created.id)).status).toBe(404);
  }, 60_000);
});

describe('paperflow extractions feedback --value', () => {
  it('corrects a field typed as the field, shows the corrected value beside the read one, and refuses what does not fit', async () => {
    const client = new ExtractionClient(stack, connection.apiKey);
    const { body: created } = await client.upload(await invoicePdf({ invoiceNumber: 'INV-CLI-8' }), 'cli-correct.pdf');
    await client.waitForTerminal(created.id);

    const corrected = await paperflow('extractions', 'feedback', created.id, '--message', 'typo on the page', '--field', 'invoice_number', '--value', 'INV-CLI-9');
    const notAnAmount = await failureOf(paperflow('extractions', 'feedback', created.id, '--message', 'comma', '--field', 'total_amount', '--value', 'lots'));
    const withoutField = await failureOf(paperflow('extractions', 'feedback', created.id, '--message', 'which one?', '--value', '12'));
    const cleared = await paperflow('extractions', 'feedback', created.id, '--message', 'not on this invoice', '--field', 'due_date', '--clear-value', '--json');
    const shown = await paperflow('extractions', 'get', created.id);
    const asJson = JSON.parse((await paperflow('extractions', 'get', created.id, '--json')).stdout);

    expect(corrected.stdout).toMatch(new RegExp(`Feedback fb_\\w+ \\(ERROR\\) recorded on ${created.id}, field \\S+, corrected to "INV-CLI-9"\\.`));
    expect(notAnAmount).toMatchObject({ code: 1, stderr: expect.stringMatching(/VALIDATION_FAILED \(HTTP 422\): .*correctedValue: must be a number/) });
    expect(withoutField).toMatchObject({ code: 2, stderr: expect.stringContaining('name it with --field') });
    expect(JSON.parse(cleared.stdout)).toMatchObject({ correctedValue: null });
    expect(shown.stdout).toMatch(/invoice_number +INV-CLI-9 \(corrected; read "INV-CLI-8"\) +string/);
    const invoiceNumber = asJson.output.fields.find((field: { name: string }) => field.name === 'invoice_number');
    expect(invoiceNumber).toMatchObject({ value: 'INV-CLI-8', correctedValue: 'INV-CLI-9', correction: { correctedBy: expect.any(String) } });
  }, 60_000);
});

describe('errors and exit codes', () => {
  it('shows the API 401 with its code, message and request id, exits 1, and never prints the key', async () => {
    const wrongKey = 'pf_live_thiskeydoesnotexist0000';
    const refused = await failureOf(paperflowCliFor(() => ({ ...connection, apiKey: wrongKey }))('extractions', 'list'));

    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^paperflow: UNAUTHORIZED \(HTTP 401\): .+\npaperflow: Request id: \S+\n$/);
    expect(`${refused.stdout}${refused.stderr}`).not.toContain(wrongKey);
  });

  it('shows a 422 reason once, in the message, not again as a detail line', async () => {
    const refused = await failureOf(paperflow('subscriptions', 'create', '--name', 'ftp hooks', '--url', 'ftp://hooks.example.com/x', '--events', 'workflow.run.failed'));

    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^paperflow: VALIDATION_FAILED \(HTTP 422\): Validation failed: endpointUrl: .+\npaperflow: Request id: \S+\n$/);
  });

  it('says an empty list is empty, without a page range', async () => {
    const empty = paperflowCliFor(() => ({ ...connection, apiKey: emptyWorkspaceKey }));

    const [events, runs, subscriptions] = await Promise.all([empty('events', 'list'), empty('runs', 'list'), empty('subscriptions', 'list')]);

    expect([events.stdout, runs.stdout, subscriptions.stdout]).toEqual(['No events.\n', 'No runs.\n', 'No subscriptions.\n']);
  });

  it('prints its version with --version, exit 0', async () => {
    const { stdout } = await paperflow('--version');

    expect(stdout).toBe(`paperflow ${packageDescription.version}\n`);
  });

  it('shows a 404 of an unknown extraction with its request id, exit 1', async () => {
    const refused = await failureOf(paperflow('extractions', 'get', 'ext_00000000000000000000000000'));

    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/NOT_FOUND \(HTTP 404\): .*\n.*Request id: \S+/) });
  });

  it.each([
    ['no command', []],
    ['an unknown command', ['extractoins', 'list']],
    ['a missing argument', ['extract']],
    ['a page size out of range', ['extractions', 'list', '--size', '0']],
    ['a label without a value', ['extract', corpusInvoice, '--label', 'source']],
    ['data that is not JSON', ['runs', 'start', 'wf_any', '--data', '{not json']],
    ['an unknown event type', ['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--events', 'extraction.done']],
    ['a file that does not exist', ['extract', '/nonexistent/invoice.pdf']],
  ])('exits 2 on a usage error: %s', async (_case, args) => {
    const refused = await failureOf(paperflow(...args));

    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toBe('');
  });

  it('exits 2 when no API URL is configured, saying where to configure it', async () => {
    const refused = await failureOf(paperflowCliFor(() => ({ apiUrl: '', apiKey: '' }))('events', 'list'));

    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('PAPERFLOW_API_URL') });
  });

  it('answers --help on every level with exit 0', async () => {
    const top = await paperflow('--help');
    const group = await paperflow('subscriptions', '--help');
    const leaf = await paperflow('runs', 'start', '--help');

    expect(top.stdout).toContain('Exit codes');
    expect(group.stdout).toMatch(/create \[options\]/);
    expect(leaf.stdout).toContain('--file <name=@path>');
  });
});

describe('paperflow runs', () => {
  it('starts a published transform workflow, waits, and prints the COMPLETED run', async () => {
    const workflowId = await publishDefinition(workspaceId, [{ id: 'greet', type: 'transform', with: { greeting: '{{ "Hello, " & body.name }}' } }]);

    const { stdout } = await paperflow('runs', 'start', workflowId, '--data', '{"name":"Ada"}', '--wait', '--json');
    const listed = await paperflow('runs', 'list', '--workflow', workflowId);

    const run = JSON.parse(stdout);
    expect(run).toMatchObject({ status: 'COMPLETED', workflow: { id: workflowId }, steps: [{ id: 'greet', status: 'COMPLETED', output: { greeting: 'Hello, Ada' } }] });
    expect(listed.stdout).toMatch(new RegExp(`${run.id} +COMPLETED +${workflowId}`));
  }, 60_000);

  it('sends --file parts and --data properties as multipart, and prints the run with its steps', async () => {
    const workflowId = await publishDefinition(workspaceId, [{ id: 'echo', type: 'transform', with: { fileName: '{{ body.invoice[0].fileName }}', batch: '{{ body.meta.batch }}' } }]);

    const { stdout } = await paperflow('runs', 'start', workflowId, '--file', `invoice=@${corpusInvoice}`, '--data', '{"meta":{"batch":7}}', '--wait');

    expect(stdout).toMatch(/^run_\w+ {2}COMPLETED/);
    expect(stdout).toMatch(/echo +transform +COMPLETED +\{"fileName":"AmazonWebServices\.pdf","batch":7\}/);
  }, 60_000);
});

describe('paperflow subscriptions', () => {
  it('prints the signing secret on create only', async () => {
    const created = await paperflow('subscriptions', 'create', '--name', 'cli hooks', '--url', 'https://hooks.example.com/cli', '--events', 'workflow.run.completed');
    const secret = /Signing secret: (whsec_\S+)/.exec(created.stdout)?.[1];
    const subscriptionId = /sub_\w+/.exec(created.stdout)![0];

    const shown = await paperflow('subscriptions', 'get', subscriptionId, '--json');
    const paused = await paperflow('subscriptions', 'update', subscriptionId, '--status', 'paused', '--json');
    await paperflow('subscriptions', 'delete', subscriptionId);

    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created.stderr).toContain('shown only this once');
    expect(shown.stdout).not.toContain('whsec_');
    expect(JSON.parse(paused.stdout)).toMatchObject({ id: subscriptionId, status: 'paused' });
  });

  it('rotates the secret, printing the new one once and how long the old one signs; recover says when nothing failed', async () => {
    const created = await paperflow('subscriptions', 'create', '--name', 'cli rotation', '--url', 'https://hooks.example.com/cli', '--events', 'workflow.run.completed', '--json');
    const subscriptionId = JSON.parse(created.stdout).id as string;

    const rotated = await paperflow('subscriptions', 'rotate-secret', subscriptionId);
    const rotatedAtOnce = await paperflow('subscriptions', 'rotate-secret', subscriptionId, '--overlap-hours', '0', '--json');
    const badOverlap = await failureOf(paperflow('subscriptions', 'rotate-secret', subscriptionId, '--overlap-hours', '200'));
    const recovered = await paperflow('subscriptions', 'recover', subscriptionId, '--since', '2026-01-01T00:00:00Z');
    const shown = await paperflow('subscriptions', 'get', subscriptionId, '--json');

    const secret = /Signing secret: (whsec_\S+)/.exec(rotated.stdout)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.stdout).toMatch(/The old secret signs too until \d{4}-\d\d-\d\dT[\d:.]+Z\./);
    expect(rotated.stderr).toContain('shown only this once');
    expect(JSON.parse(rotatedAtOnce.stdout)).toEqual({ subscriptionId, signingSecret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: null });
    expect(JSON.parse(rotatedAtOnce.stdout).signingSecret).not.toBe(secret);
    expect(badOverlap).toMatchObject({ code: 2, stderr: expect.stringContaining('from 0 to 168') });
    expect(recovered.stdout).toBe('Nothing to recover since 2026-01-01T00:00:00.000Z.\n');
    expect(shown.stdout).not.toContain('whsec_');
  });
});

describe('paperflow listen', () => {
  let receiver: RunningWebhookReceiver;
  const received: ReceivedWebhook[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver((request: ReceivedWebhook, response: ServerResponse) => {
      received.push(request);
      response.writeHead(204).end();
    });
  });

  afterAll(async () => {
    await receiver?.close();
  });

  /**
   * Events are recorded by a queue consumer, so an earlier test's extraction may appear (and be
   * forwarded) after listen started: the receiver's requests are picked out by extraction (bounded wait).
   */
  async function eventIdForwardedFor(extractionId: string, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const request = received.find((candidate) => JSON.parse(candidate.body).data.extractionId === extractionId);
      if (request) return JSON.parse(request.body).eventId as string;
      if (Date.now() > deadline) throw new Error(`No event of ${extractionId} reached the receiver in ${timeoutMs} ms.`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('forwards a new event with exactly the headers of a delivery, signed so that standardwebhooks and stripe verify it, and removes its subscription on Ctrl-C', async () => {
    // Without a scheme, as `stripe listen --forward-to localhost:3000/hooks` takes it: http is meant.
    const forwardTo = `${receiver.url.replace(/^http:\/\//, '')}/hooks`;
    const listen = startPaperflowProcess(connection, ['listen', '--forward-to', forwardTo, '--events', 'document-insights.extraction.completed', '--interval', '0.2']);
    try {
      const secret = (await listen.waitForLine(/^Signing secret: whsec_/)).slice('Signing secret: '.length);
      await listen.waitForLine(/^Ready/);
      const listenSubscription = /Created the paused subscription (sub_\w+)/.exec(listen.stderr())?.[1];
      const client = new ExtractionClient(stack, connection.apiKey);
      const { body: created } = await client.upload(await invoicePdf({ invoiceNumber: 'INV-LISTEN-1' }), 'listen.pdf');
      await client.waitForTerminal(created.id, 60_000);

      const eventId = await eventIdForwardedFor(created.id);
      const forwardedLine = await listen.waitForLine(new RegExp(`document-insights\\.extraction\\.completed +${eventId} +-> 204`));
      const exitCode = await listen.stop('SIGINT');
      const subscriptionsAfter = await jsonOf(await stack.api('/event-subscriptions', { apiKey: connection.apiKey }));

      const forwarded = received.filter((request) => JSON.parse(request.body).data.extractionId === created.id);
      expect(forwarded).toHaveLength(1);
      const [request] = forwarded;
      const body = JSON.parse(request!.body);
      const headers = Object.fromEntries(Object.entries(request!.headers).map(([name, value]) => [name, String(value)]));
      expect(request!.path).toBe('/hooks');
      expect(body).toMatchObject({ eventType: 'document-insights.extraction.completed', apiVersion: 'v1', data: { extractionId: created.id, status: 'COMPLETED' } });
      expect(forwardedLine).toContain(body.eventId);
      expect(new Webhook(secret).verify(request!.body, headers)).toEqual(body);
      expect(new Stripe('sk_test_unused').webhooks.constructEvent(request!.body, headers['x-paperflow-signature']!, secret)).toEqual(body);
      expect(headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'Paperflow-Webhooks/1',
        'x-paperflow-event-id': body.eventId,
        'x-paperflow-event-type': 'document-insights.extraction.completed',
        'x-paperflow-attempt': '1',
        'webhook-id': body.eventId,
      });
      // The delivery's headers and what HTTP/1.1 itself needs; nothing a fetch implementation adds (accept-language, sec-fetch-mode…).
      expect(Object.keys(headers).sort()).toEqual(
        [
          'connection',
          'content-length',
          'content-type',
          'host',
          'user-agent',
          'webhook-id',
          'webhook-signature',
          'webhook-timestamp',
          'x-paperflow-attempt',
          'x-paperflow-delivery-id',
          'x-paperflow-event-id',
          'x-paperflow-event-type',
          'x-paperflow-signature',
        ].sort(),
      );
      expect(headers['content-length']).toBe(String(Buffer.byteLength(request!.body)));
      // The body is the event exactly as GET /events/{id} answers it.
      expect(body).toEqual(await jsonOf(await stack.api(`/events/${body.eventId}`, { apiKey: connection.apiKey })));
      expect(listenSubscription).toMatch(/^sub_/);
      expect(exitCode).toBe(0);
      expect(listen.stderr()).toContain(`Deleted the subscription ${listenSubscription}`);
      expect(subscriptionsAfter.data.map((subscription: { id: string }) => subscription.id)).not.toContain(listenSubscription);
    } finally {
      await listen.stop('SIGKILL');
    }
  }, 150_000);
});

describe('paperflow listen ended without Ctrl-C', () => {
  let listenConnection: CliConnection;

  beforeAll(async () => {
    listenConnection = { apiUrl: stack.baseUrl, apiKey: await workspaceKey('ws_cli_listen_signals') };
  });

  const subscriptionIds = async () =>
    (await jsonOf(await stack.api('/event-subscriptions', { apiKey: listenConnection.apiKey }))).data.map((subscription: { id: string }) => subscription.id);

  async function startListen() {
    const listen = startPaperflowProcess(listenConnection, ['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--events', 'workflow.run.failed', '--interval', '0.2']);
    await listen.waitForLine(/^Ready/);
    const subscriptionId = /Created the paused subscription (sub_\w+)/.exec(listen.stderr())?.[1];
    return { listen, subscriptionId };
  }

  it.each(['SIGTERM', 'SIGHUP'] as const)('deletes its paused subscription when it gets %s', async (signal) => {
    const { listen, subscriptionId } = await startListen();
    try {
      const whileListening = await subscriptionIds();
      const exitCode = await listen.stop(signal);

      expect(subscriptionId).toMatch(/^sub_/);
      expect(whileListening).toContain(subscriptionId);
      expect(exitCode).toBe(0);
      expect(listen.stderr()).toContain(`Deleted the subscription ${subscriptionId}`);
      expect(await subscriptionIds()).not.toContain(subscriptionId);
    } finally {
      await listen.stop('SIGKILL');
    }
  }, 60_000);

  it('ends, deleting its paused subscription, when `npx paperflow listen` gets SIGTERM (npm passes it to its shell only)', async () => {
    // The forward URL marks the processes of this listen: npm, its shell and node.
    const marker = `/hooks-${randomUUID()}`;
    const listen = startPaperflowProcess(listenConnection, ['listen', '--forward-to', `127.0.0.1:9${marker}`, '--events', 'workflow.run.failed', '--interval', '0.2'], 'npx');
    try {
      await listen.waitForLine(/^Ready/, 60_000);
      const subscriptionId = /Created the paused subscription (sub_\w+)/.exec(listen.stderr())?.[1];
      const whileListening = await subscriptionIds();
      const processesWhileListening = await processesWhoseCommandLineHas(marker);

      await listen.stop('SIGTERM');

      expect(subscriptionId).toMatch(/^sub_/);
      expect(whileListening).toContain(subscriptionId);
      expect(processesWhileListening.length).toBeGreaterThanOrEqual(2);
      await expect.poll(() => processesWhoseCommandLineHas(marker), { timeout: 20_000, interval: 100 }).toEqual([]);
      await expect.poll(() => listen.stderr()).toContain(`Deleted the subscription ${subscriptionId}`);
      expect(await subscriptionIds()).not.toContain(subscriptionId);
    } finally {
      await listen.stop('SIGKILL');
      for (const pid of await processesWhoseCommandLineHas(marker)) process.kill(pid, 'SIGKILL');
    }
  }, 90_000);

  it('deletes the subscription a listen killed outright left behind, instead of adding another', async () => {
    const killed = await startListen();
    await killed.listen.stop('SIGKILL');
    const leftBehind = await subscriptionIds();

    const { listen, subscriptionId } = await startListen();
    try {
      const whileListening = await subscriptionIds();
      const exitCode = await listen.stop('SIGTERM');

      expect(leftBehind).toEqual([killed.subscriptionId]);
      expect(listen.stderr()).toContain(`Deleted the subscription ${killed.subscriptionId} ("paperflow listen `);
      expect(whileListening).toEqual([subscriptionId]);
      expect(exitCode).toBe(0);
      expect(await subscriptionIds()).toEqual([]);
    } finally {
      await listen.stop('SIGKILL');
    }
  }, 60_000);
});
