import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleBrowserMissing, consoleBrowserPath, launchConsoleBrowser } from '../../scripts/console-browser.ts';
import { browserProblems, signedInConsolePage } from '../support/console-pages.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { WorkflowRunClient, publishDefinition } from '../support/workflow-runs.ts';

// The console's events and runs views in a real headless chromium, against the embedded stack: an
// event links to its run or extraction, a delivery names its subscription, an attempt shows the
// headers sent (signatures redacted) and the first 4 KB of the answer as the API gives them, and the
// runs and events lists filter through the API. Each view is also shot as a PNG, checked to show it.

const browserPath = consoleBrowserPath();
if (!browserPath) console.warn(consoleBrowserMissing);

const workspaceId = 'ws_console_events_runs';
const variables = { PAPERFLOW_ALLOW_PRIVATE_URLS: 'true', PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS: '1' };
const notADocument = new URL('../../src/cli/trigger-samples/not-a-business-document.txt', import.meta.url);
/** Longer than the 4 KB the service keeps of an answer. */
const receiverAnswer = JSON.stringify({ received: true, note: 'x'.repeat(6000) });

let stack: StackUnderTest;
let browser: Browser;
let receiver: RunningWebhookReceiver;
let apiKey: string;
let runs: WorkflowRunClient;
let consoleUrl: string;
let shotsDir: string;
const seeded = {} as { greetingWorkflowId: string; failingWorkflowId: string; completedRunId: string; failedRunId: string; extractionId: string };

describe.skipIf(!browserPath)('console events and runs views', () => {
  beforeAll(async () => {
    Object.assign(process.env, variables);
    stack = await startStackUnderTest();
    apiKey = await workspaceKey(workspaceId);
    runs = new WorkflowRunClient(stack, apiKey);
    consoleUrl = `${new URL(stack.baseUrl).origin}/console/`;
    // PAPERFLOW_CONSOLE_SHOTS keeps the pictures in that folder, to look at them.
    shotsDir = process.env.PAPERFLOW_CONSOLE_SHOTS ?? (await mkdtemp(join(tmpdir(), 'paperflow-console-shots-')));
    receiver = await startWebhookReceiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(receiverAnswer);
    });
    await subscribe('Ledger sync', ['workflow.run.completed', 'workflow.run.failed']);
    await subscribe('Extraction alerts', ['document-insights.extraction.failed']);

    seeded.greetingWorkflowId = await publishDefinition(workspaceId, [{ id: 'greet', type: 'transform', with: { name: '{{ body.name }}' } }], { name: 'Greeting' });
    seeded.failingWorkflowId = await publishDefinition(workspaceId, [{ id: 'total', type: 'transform', with: { total: '{{ body.amount * 2 }}' } }], { name: 'Totals' });
    seeded.completedRunId = (await runs.run(seeded.greetingWorkflowId, { name: 'Ada' })).id;
    const failed = await runs.run(seeded.failingWorkflowId, {});
    expect(failed.status).toBe('FAILED');
    seeded.failedRunId = failed.id;
    const extractions = new ExtractionClient(stack, apiKey);
    const uploaded = await extractions.upload(await readFile(notADocument), 'not-a-business-document.txt');
    seeded.extractionId = uploaded.body.id;
    expect((await extractions.waitForTerminal(seeded.extractionId, 60_000)).status).toBe('FAILED');
    browser = await launchConsoleBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await stack?.stop();
    if (shotsDir && !process.env.PAPERFLOW_CONSOLE_SHOTS) await rm(shotsDir, { recursive: true, force: true });
    for (const name of Object.keys(variables)) delete process.env[name];
  });

  it('opens an event\'s run from the event, names each delivery\'s subscription, and shows an attempt\'s headers and first 4 KB of answer', async () => {
    const runEvent = (await runs.eventsOfRun(seeded.completedRunId))[0];
    const delivery = await succeededDeliveryOf(runEvent.eventId);
    const detail = (await runs.json(`/events/${runEvent.eventId}/deliveries/${delivery.id}`)).body;
    const attempt = detail.attempts[0];
    const page = await signedInPage();
    const problems = browserProblems(page);

    await page.goto(`${consoleUrl}#/events/${runEvent.eventId}`);
    const row = page.locator(`tr[data-delivery-id="${delivery.id}"]`);
    await row.waitFor();
    await expect.poll(() => row.locator('.subscription').textContent()).toBe(`Ledger sync (${delivery.subscriptionId})`);
    await row.getByRole('button', { name: 'Attempts' }).click();

    const shown = page.locator('.attempts li[data-attempt="1"]');
    const headers = shown.getByRole('definition');
    await headers.first().waitFor();
    const sentHeaders = await shown.locator('.headers div').evaluateAll((entries) => entries.map((entry) => [entry.querySelector('dt')!.textContent, entry.querySelector('dd')!.textContent]));
    expect(Object.fromEntries(sentHeaders)).toEqual(attempt.requestHeaders);
    expect(attempt.requestHeaders).toMatchObject({ 'X-Paperflow-Signature': '[redacted]', 'webhook-signature': '[redacted]', 'X-Paperflow-Event-Id': runEvent.eventId });
    const body = await shown.locator('.response-body').textContent();
    expect(body).toBe(attempt.responseBody);
    expect(receiverAnswer.startsWith(body!)).toBe(true);
    expect(Buffer.byteLength(body!)).toBe(4096);
    expect(await page.locator('.attempts .hint').first().textContent()).toContain('Ledger sync');
    await checkShot(page.locator('.attempts'), 'delivery-attempt');

    const subject = page.locator('.event-subject a');
    expect(await subject.getAttribute('href')).toBe(`#/runs/${seeded.completedRunId}`);
    await checkShot(page.locator('main'), 'event-detail');
    // On a phone the headers and the answer stack and wrap: the page does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => browserWindow().document.documentElement.scrollWidth - browserWindow().document.documentElement.clientWidth)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    await subject.click();
    await page.getByRole('heading', { name: `Greeting: ${seeded.completedRunId}` }).waitFor();
    expect(problems).toEqual([]);
  }, 90_000);

  it('opens an extraction event\'s extraction', async () => {
    const page = await signedInPage();
    await page.goto(`${consoleUrl}#/events`);
    await page.getByLabel('Type').selectOption('document-insights.extraction.failed');
    const row = page.locator('tbody tr');
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    await row.getByRole('link').click();

    const subject = page.locator('.event-subject a');
    await subject.waitFor();
    expect(await subject.textContent()).toBe(seeded.extractionId);
    await subject.click();
    await page.locator('.status', { hasText: 'FAILED' }).first().waitFor();
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/extractions/${seeded.extractionId}`);
  }, 60_000);

  it('filters the events list by type, by subscription (by its name) and by time, through the API', async () => {
    const page = await signedInPage();
    await page.goto(`${consoleUrl}#/events`);
    const typesShown = () => page.locator('tbody tr td:nth-child(2)').allTextContents();
    await expect.poll(async () => (await typesShown()).sort(), { timeout: 15_000 }).toEqual(['document-insights.extraction.failed', 'workflow.run.completed', 'workflow.run.failed']);

    const listed = page.waitForRequest((request) => request.url().includes('/events?') && request.url().includes('eventType=workflow.run.failed'));
    await page.getByLabel('Type').selectOption('workflow.run.failed');
    await listed;
    await expect.poll(typesShown).toEqual(['workflow.run.failed']);

    await page.getByLabel('Type').selectOption('');
    await page.getByLabel('Subscription').selectOption({ label: 'Extraction alerts' });
    await expect.poll(typesShown).toEqual(['document-insights.extraction.failed']);
    await checkShot(page.locator('main'), 'events-filtered');

    await page.getByLabel('Subscription').selectOption('');
    await page.getByLabel('Occurred from').fill('2099-01-01T00:00');
    await expect.poll(() => page.locator('caption').textContent()).toBe('0 events');
  }, 60_000);

  it('filters the runs list by status, by workflow and by time, through the API', async () => {
    const page = await signedInPage();
    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    const runIds = () => page.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')));
    await expect.poll(async () => (await runIds()).sort()).toEqual([seeded.completedRunId, seeded.failedRunId].sort());

    await page.getByLabel('Status').selectOption('FAILED');
    await expect.poll(runIds).toEqual([seeded.failedRunId]);
    await checkShot(page.locator('main'), 'runs-filtered');

    await page.getByLabel('Status').selectOption('');
    const workflowFilter = page.getByRole('textbox', { name: /^Workflow/ });
    await workflowFilter.fill(seeded.greetingWorkflowId);
    const listed = page.waitForRequest((request) => request.url().includes(`workflowId=${seeded.greetingWorkflowId}`));
    await workflowFilter.press('Enter');
    await listed;
    await expect.poll(runIds, { timeout: 10_000 }).toEqual([seeded.completedRunId]);

    await page.getByLabel('Created to').fill('2000-01-01T00:00');
    await expect.poll(() => page.locator('caption').textContent()).toBe('0 runs');
  }, 60_000);
});

async function subscribe(name: string, eventTypes: string[]): Promise<void> {
  const created = await runs.json('/event-subscriptions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, endpointUrl: `${receiver.url}/hooks`, eventTypes }),
  });
  if (created.status !== 201) throw new Error(`The subscription ${name} was not created: ${JSON.stringify(created.body)}`);
}

/** The event's delivery once it has SUCCEEDED (the outbox drains every second). */
async function succeededDeliveryOf(eventId: string): Promise<{ id: string; subscriptionId: string }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listed = (await runs.json(`/events/${eventId}/deliveries`)).body;
    const delivered = listed.data.find((delivery: { status: string }) => delivery.status === 'SUCCEEDED');
    if (delivered) return delivered;
    if (Date.now() > deadline) throw new Error(`No delivery of ${eventId} succeeded: ${JSON.stringify(listed)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function signedInPage(viewport?: { width: number; height: number }): Promise<Page> {
  return signedInConsolePage(browser, consoleUrl, apiKey, viewport);
}

/**
 * Shoots the element as chromium paints it and checks the picture shows it: as large as the element,
 * with text drawn (dark pixels) over much of its height, not a blank or half-drawn area.
 */
async function checkShot(element: Locator, name: string): Promise<void> {
  const bounds = (await element.boundingBox())!;
  await mkdir(shotsDir, { recursive: true });
  const path = join(shotsDir, `${name}.png`);
  await element.screenshot({ path });
  const { data, info } = await sharp(path).greyscale().raw().toBuffer({ resolveWithObject: true });
  expect(Math.abs(info.width - Math.round(bounds.width))).toBeLessThanOrEqual(1);
  expect(Math.abs(info.height - Math.round(bounds.height))).toBeLessThanOrEqual(1);
  const rowsWithInk = new Set<number>();
  for (let index = 0; index < data.length; index += 1) if (data[index]! < 100) rowsWithInk.add(Math.floor(index / info.width));
  // Lines of text every few pixels: at least a fifth of the rows carry some.
  expect(rowsWithInk.size / info.height, `${name}.png shows little text`).toBeGreaterThan(0.2);
}

/** The page's window, in functions playwright runs in the browser (defined there by signedInConsolePage). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare function browserWindow(): any;
