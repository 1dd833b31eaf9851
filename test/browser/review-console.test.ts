import { readFile } from 'node:fs/promises';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confidenceBandOf, confidenceText } from '../../src/console/confidence.ts';
import { consoleBrowserMissing, consoleBrowserPath, launchConsoleBrowser } from '../../scripts/console-browser.ts';
import { browserProblems, signedInConsolePage } from '../support/console-pages.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { laidOutPdf } from '../support/extraction-documents.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { WorkflowRunClient, publishDefinition } from '../support/workflow-runs.ts';
import { corpusFile } from '../support/document-builders.ts';

// The review console in a real headless chromium, against the embedded stack: the console is served
// at /console/ by the local gateway and calls the public API with the key typed into it, as a
// customer's browser would.

const browserPath = consoleBrowserPath();
if (!browserPath) console.warn(consoleBrowserMissing);

const corpusInvoice = corpusFile('invoice2data/AmazonWebServices.pdf');
const workspaceId = 'ws_console';
const variables = { PAPERFLOW_ALLOW_PRIVATE_URLS: 'true', PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS: '1' };

let stack: StackUnderTest;
let browser: Browser;
let receiver: RunningWebhookReceiver;
let apiKey: string;
let extractions: ExtractionClient;
let consoleUrl: string;

describe.skipIf(!browserPath)('review console', () => {
  beforeAll(async () => {
    Object.assign(process.env, variables);
    stack = await startStackUnderTest();
    apiKey = await workspaceKey(workspaceId);
    extractions = new ExtractionClient(stack, apiKey);
    consoleUrl = `${new URL(stack.baseUrl).origin}/console/`;
    receiver = await startWebhookReceiver((_request, response) => {
      response.writeHead(204).end();
    });
    const subscription = await extractions.json('/event-subscriptions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'console', endpointUrl: `${receiver.url}/hooks`, eventTypes: ['document-insights.extraction.completed'] }),
    });
    if (subscription.status !== 201) throw new Error(`The subscription was not created: ${JSON.stringify(subscription.body)}`);
    browser = await launchConsoleBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await stack?.stop();
    for (const name of Object.keys(variables)) delete process.env[name];
  });

  it('uploads a dropped corpus PDF, draws the total\'s box where its placement says, and takes ERROR feedback that marks it for review', async () => {
    const page = await signedInPage();
    const problems = browserProblems(page);

    await dropFile(page, corpusInvoice, 'application/pdf');
    await page.getByRole('link', { name: /^ext_/ }).click();
    await page.locator('.status', { hasText: 'COMPLETED' }).first().waitFor({ timeout: 60_000 });
    const extractionId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    const total = (await extractions.get(extractionId)).body.output.fields.find((field: { name: string }) => field.name === 'total_amount');
    await page.locator(`tr[data-field-id="${total.id}"]`).click();

    const box = page.locator(`.field-box[data-field-id="${total.id}"]`);
    await expect.poll(() => box.getAttribute('class')).toContain('selected');
    const { x, y, width, height } = total.metadata.placement;
    expect(total.metadata.page).toBe(1);
    await expectBoxAround(page, box, 1, total.metadata.placement);
    // Selected, it hides nothing of its value: no fill, and its border no thicker than an unselected box's.
    const otherBox = page.locator('.field-box:not(.selected)').first();
    expect(await box.evaluate((element) => browserWindow().getComputedStyle(element).backgroundColor)).toBe('rgba(0, 0, 0, 0)');
    expect(await box.evaluate((element) => browserWindow().getComputedStyle(element).borderTopWidth)).toBe(await otherBox.evaluate((element) => browserWindow().getComputedStyle(element).borderTopWidth));
    // The page was drawn: pdf.js painted ink where the total is printed.
    expect(await inkUnder(page, { x, y, width, height })).toBe(true);

    await page.getByLabel('Message').fill('The total is the net amount');
    const send = page.getByRole('button', { name: 'Send feedback' });
    // The button at the very bottom of the window, as it is after scrolling down a long fields table.
    await send.evaluate((button) => button.scrollIntoView({ block: 'end' }));
    await send.click();

    const confirmation = page.getByRole('status').filter({ hasText: 'ERROR feedback recorded on total_amount' });
    await confirmation.waitFor();
    await expect.poll(() => confirmation.evaluate((element) => {
      const bounds = element.getBoundingClientRect();
      // Within the window, give or take the sub-pixel rounding of a scroll position.
      return bounds.top >= -1 && bounds.bottom <= browserWindow().innerHeight + 1;
    })).toBe(true);
    await page.locator('.summary .review-required', { hasText: 'Needs review' }).waitFor();
    expect((await extractions.get(extractionId)).body.reviewRequired).toBe(true);
    await page.goto(`${consoleUrl}#/extractions`);
    await page.getByLabel('Review').selectOption('required');
    await expect.poll(() => page.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-extraction-id')))).toEqual([extractionId]);
    expect(page.url()).not.toContain(apiKey);
    expect(problems).toEqual([]);
  }, 120_000);

  it('shows an invoice\'s line items as a table under its fields, draws a selected row\'s and cell\'s box where their placements say, and takes feedback on the table', async () => {
    // A text invoice whose table continues on page 2.
    const column = { description: 50, quantity: 300, price: 380, amount: 480 };
    const row = (description: string, quantity: string, price: string, amount: string) => [
      { text: description, x: column.description },
      { text: quantity, x: column.quantity },
      { text: price, x: column.price },
      { text: amount, x: column.amount },
    ];
    const header = row('Description', 'Qty', 'Unit price', 'Amount');
    const invoice = await laidOutPdf([
      ['Harbour Tools Ltd', 'INVOICE', 'Invoice number: LI-2024-9', 'Invoice date: 15/03/2024', '', header, row('Claw hammer', '2', '12.50', '25.00'), row('Chisel set', '1', '40.00', '40.00')],
      ['Invoice LI-2024-9, page 2', '', header, row('Tape measure', '4', '5.00', '20.00'), [{ text: 'Total', x: column.price }, { text: '85.00', x: column.amount }]],
    ]);
    const created = await uploadCorpusInvoice('line-items.pdf', invoice);
    const completed = await extractions.waitForTerminal(created.id, 60_000);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const lineItems = completed.output.fields.find((field: { name: string }) => field.name === 'line_items') as { id: string; value: Record<string, unknown>[]; metadata: any };
    expect(lineItems.metadata.rows.map((entry: { page: number }) => entry.page)).toEqual([1, 1, 2]);
    const page = await signedInPage();
    const problems = browserProblems(page);
    await page.goto(`${consoleUrl}#/extractions/${created.id}`);
    await page.locator('.page canvas').first().waitFor();

    const table = page.locator(`.table-field[data-field-id="${lineItems.id}"]`);
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    // A column for each column the rows have, each row's values as the API returns them, numbers as the fields table writes them.
    const headers = await table.locator('thead th').allTextContents();
    const columns = headers.slice(1, -1);
    expect([headers[0], headers.at(-1)]).toEqual(['Row', 'Confidence']);
    expect([...columns].sort()).toEqual([...new Set(lineItems.value.flatMap((row) => Object.keys(row)))].sort());
    expect(columns.indexOf('description')).toBeLessThan(columns.indexOf('amount'));
    const shown = await rows.evaluateAll((elements) =>
      elements.map((row) => Object.fromEntries([...row.querySelectorAll('td[data-column]')].map((cell) => [cell.getAttribute('data-column'), cell.textContent]))),
    );
    expect(shown).toEqual(lineItems.value.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, String(value)]))));
    expect(shown).toEqual([
      { description: 'Claw hammer', quantity: '2', unit_price: '12.5', amount: '25' },
      { description: 'Chisel set', quantity: '1', unit_price: '40', amount: '40' },
      { description: 'Tape measure', quantity: '4', unit_price: '5', amount: '20' },
    ]);
    expect(columns).toEqual(['description', 'quantity', 'unit_price', 'amount']);
    // Each row's confidence in text, and in its band's colour as the boxes are.
    for (const [index, rowMetadata] of (lineItems.metadata.rows as { confidence: number }[]).entries()) {
      expect(await rows.nth(index).locator('.row-confidence').textContent()).toContain(confidenceText(rowMetadata.confidence));
      expect(await rows.nth(index).locator('.confidence-swatch').getAttribute('class')).toContain(`confidence-${confidenceBandOf(rowMetadata.confidence)}`);
    }
    // The fields table says how many rows instead of printing the rows' JSON.
    expect(await page.locator(`table.fields tr[data-field-id="${lineItems.id}"] td`).first().textContent()).toBe('3 rows');

    // A row, selected by its number: its box on the page, where its placement says.
    const secondRow = lineItems.metadata.rows[1];
    await rows.nth(1).locator('th').click();
    const rowBox = page.locator(`.field-box[data-field-id="${lineItems.id}"][data-row="1"]:not([data-column])`);
    await expect.poll(() => rowBox.getAttribute('class')).toContain('selected');
    await expectBoxAround(page, rowBox, secondRow.page, secondRow.placement);

    // A cell, on the second page: its own box there, and the row's is gone.
    const thirdRow = lineItems.metadata.rows[2];
    await rows.nth(2).locator('td[data-column="amount"]').click();
    const cellBox = page.locator(`.page[data-page="2"] .field-box[data-field-id="${lineItems.id}"][data-row="2"][data-column="amount"]`);
    await expect.poll(() => cellBox.getAttribute('class')).toContain('selected');
    await expectBoxAround(page, cellBox, 2, thirdRow.cells.amount.placement);
    expect(await rowBox.count()).toBe(0);
    expect(await cellBox.getAttribute('aria-label')).toBe('line_items row 3, amount: 20');

    // From the keyboard: Tab from a row reaches its first cell, Enter selects it.
    await rows.nth(0).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => browserWindow().document.activeElement?.getAttribute('data-selection'))).toBe(`${lineItems.id}/0/description`);
    await page.keyboard.press('Enter');
    const keyboardBox = page.locator(`.field-box[data-row="0"][data-column="description"]`);
    await expect.poll(() => keyboardBox.getAttribute('class')).toContain('selected');
    await expectBoxAround(page, keyboardBox, 1, lineItems.metadata.rows[0].cells.description.placement);

    // Feedback on a row names the table field.
    await page.getByLabel('Note').check();
    expect(await page.getByText('The selected field').textContent()).toContain('(line_items)');
    await page.getByLabel('Message').fill('Row 1 is missing its tax rate');
    const posted = page.waitForResponse((response) => response.url().endsWith('/feedback') && response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send feedback' }).click();
    const response = await posted;
    expect(response.status()).toBe(201);
    expect(await response.json()).toMatchObject({ type: 'INFO', fieldId: lineItems.id, message: 'Row 1 is missing its tax rate' });
    await page.getByRole('status').filter({ hasText: 'INFO feedback recorded on line_items' }).waitFor();
    // On a phone the table scrolls in place: the page itself does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => horizontalOverflow(page)).toBe(0);
    expect(problems).toEqual([]);
  }, 120_000);

  it('checks the key at sign-in: a wrong one is refused on the form, with nothing stored, and the right one opens the console', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript('globalThis.browserWindow = () => globalThis;');
    const page = await context.newPage();
    await page.goto(consoleUrl);

    await page.getByLabel('API key').fill('pf_live_thiskeydoesnotexist0000');
    await page.getByRole('button', { name: 'Open the console' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();

    expect(await refusal.textContent()).toContain('This API key was not accepted');
    expect(await page.getByRole('heading', { name: 'Extractions' }).count()).toBe(0);
    expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => browserWindow().sessionStorage.length)).toBe(0);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('heading', { name: 'Extractions' }).waitFor();
    await context.close();
  }, 60_000);

  it('draws a run\'s steps as a DAG with their statuses, durations and outputs', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'left', type: 'transform', with: { value: 2 } },
      { id: 'right', type: 'transform', with: { value: 3 } },
      { id: 'join', type: 'transform', needs: ['left', 'right'], with: { sum: '{{ steps.left.output.value + steps.right.output.value }}' } },
    ]);
    const run = await new WorkflowRunClient(stack, apiKey).run(workflowId, {});
    const page = await signedInPage();

    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('link', { name: run.id }).click();

    const nodes = page.locator('.step-node');
    await expect.poll(() => nodes.count()).toBe(3);
    for (const stepId of ['left', 'right', 'join']) await expect.poll(() => page.locator(`.step-node[data-step-id="${stepId}"] .status`).textContent()).toBe('COMPLETED');
    const left = (await page.locator('.step-node[data-step-id="left"]').boundingBox())!;
    const join = (await page.locator('.step-node[data-step-id="join"]').boundingBox())!;
    expect(join.x).toBeGreaterThan(left.x + left.width);
    expect(await page.locator('.graph-edges path').count()).toBe(2);
    await page.locator('.step-node[data-step-id="join"]').click();
    expect(JSON.parse((await page.locator('.step-detail pre').textContent())!)).toEqual({ sum: 5 });
  }, 60_000);

  it('opens a for_each step\'s nested run in one click, and goes back to its parent', async () => {
    const childId = await publishDefinition(workspaceId, [{ id: 'double', type: 'transform', with: { value: '{{ item * 2 }}' } }], { name: 'Child' });
    const parentId = await publishDefinition(workspaceId, [{ id: 'each', type: 'for_each', with: { items: '{{ body.items }}', workflowId: childId, maxConcurrency: 2 } }]);
    const run = await new WorkflowRunClient(stack, apiKey).run(parentId, { items: [1, 2] });
    const firstNestedId = run.steps[0].nestedRuns.data[0].id;
    const page = await signedInPage();
    await page.goto(`${consoleUrl}#/runs/${run.id}`);

    await page.locator('.step-node[data-step-id="each"]').click();
    await page.getByRole('link', { name: firstNestedId }).click();

    await expect.poll(() => page.locator('.step-node[data-step-id="double"] .status').textContent()).toBe('COMPLETED');
    expect(JSON.parse((await page.locator('.step-detail pre').textContent())!)).toEqual({ value: 2 });
    await page.getByRole('link', { name: '← Parent run' }).click();
    await page.locator('.step-node[data-step-id="each"]').waitFor();
  }, 60_000);

  it('lists events with their delivery summary, shows a delivery\'s attempts and resends it', async () => {
    const created = await uploadCorpusInvoice('events.pdf');
    await extractions.waitForTerminal(created.id, 60_000);
    const page = await signedInPage();
    await page.getByRole('navigation').getByRole('link', { name: 'Events' }).click();

    const eventRow = page.locator('tbody tr').filter({ hasText: 'document-insights.extraction.completed' }).filter({ hasText: '1 succeeded' }).first();
    await expect.poll(async () => {
      await page.reload();
      return eventRow.count();
    }, { timeout: 30_000 }).toBeGreaterThan(0);
    await eventRow.getByRole('link').click();
    await page.getByRole('button', { name: 'Attempts' }).first().click();
    await page.locator('.attempts li', { hasText: '#1' }).waitFor();
    await page.getByRole('button', { name: 'Resend' }).first().click();

    await expect.poll(() => page.locator('tbody tr').filter({ hasText: '(manual)' }).count(), { timeout: 15_000 }).toBe(1);
  }, 90_000);

  it('fits a phone\'s width (390 px) and reaches a field\'s box from the keyboard alone', async () => {
    const created = await uploadCorpusInvoice('phone.pdf');
    await extractions.waitForTerminal(created.id, 60_000);
    const total = (await extractions.get(created.id)).body.output.fields.find((field: { name: string }) => field.name === 'total_amount');
    const page = await signedInPage({ width: 390, height: 844 });

    await page.locator('tbody tr').first().waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await page.goto(`${consoleUrl}#/extractions/${created.id}`);
    await page.locator('.page canvas').first().waitFor();
    expect(await horizontalOverflow(page)).toBe(0);

    let focusedFieldId: string | null = null;
    for (let presses = 0; presses < 60 && focusedFieldId !== total.id; presses += 1) {
      await page.keyboard.press('Tab');
      focusedFieldId = await page.evaluate(() => browserWindow().document.activeElement?.closest('tr')?.getAttribute('data-field-id') ?? null);
    }
    expect(focusedFieldId).toBe(total.id);
    expect(await page.evaluate(() => browserWindow().getComputedStyle(browserWindow().document.activeElement).outlineStyle)).not.toBe('none');
    // The focus ring is not red: red says error here (a failed status, a low confidence, an error notice).
    const focusRing = await page.evaluate(() => browserWindow().getComputedStyle(browserWindow().document.activeElement).outlineColor);
    expect(hueDistanceFromRed(focusRing)).toBeGreaterThan(45);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator(`.field-box[data-field-id="${total.id}"]`).getAttribute('class')).toContain('selected');

    // Each box keeps an inside on the narrow page (not a solid bar of border), and no caption is cut.
    const insides = await page.locator('.field-box').evaluateAll((boxes) => boxes.map((box) => ({ label: box.getAttribute('aria-label'), width: box.clientWidth, height: box.clientHeight })));
    expect(insides.length).toBeGreaterThan(3);
    for (const inside of insides) expect(inside, inside.label!).toMatchObject({ width: expect.toSatisfy((width: number) => width >= 6), height: expect.toSatisfy((height: number) => height >= 6) });
    const captions = await page.locator('caption').evaluateAll((elements) =>
      elements.map((caption) => ({ text: caption.textContent, right: caption.getBoundingClientRect().right, overflow: caption.scrollWidth - caption.clientWidth })),
    );
    expect(captions.length).toBeGreaterThan(0);
    for (const caption of captions) expect(caption, caption.text!).toMatchObject({ right: expect.toSatisfy((right: number) => right <= 390), overflow: 0 });
  }, 90_000);
});

async function uploadCorpusInvoice(fileName: string, content?: Buffer): Promise<{ id: string }> {
  const { status, body } = await extractions.upload(content ?? (await readFile(corpusInvoice)), fileName);
  if (status !== 202) throw new Error(`upload of ${fileName} answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

function signedInPage(viewport?: { width: number; height: number }): Promise<Page> {
  return signedInConsolePage(browser, consoleUrl, apiKey, viewport);
}

/** Drops a file on the upload area as a user dragging it from their desktop would. */
async function dropFile(page: Page, path: string, mimeType: string): Promise<void> {
  const bytes = [...(await readFile(path))];
  const name = path.split('/').at(-1)!;
  const dataTransfer = await page.evaluateHandle(
    ({ bytes, name, mimeType }) => {
      const transfer = new (browserWindow().DataTransfer)();
      transfer.items.add(new (browserWindow().File)([new Uint8Array(bytes)], name, { type: mimeType }));
      return transfer;
    },
    { bytes, name, mimeType },
  );
  await page.locator('.upload').dispatchEvent('dragover', { dataTransfer });
  await page.locator('.upload').dispatchEvent('drop', { dataTransfer });
}

/** Whether the first page's canvas has dark pixels inside the placement (fractions of the page). */
function inkUnder(page: Page, placement: { x: number; y: number; width: number; height: number }): Promise<boolean> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return page.locator('.page[data-page="1"] canvas').evaluate((canvas: any, box) => {
    const context = canvas.getContext('2d')!;
    const pixels = context.getImageData(
      Math.floor(box.x * canvas.width),
      Math.floor(box.y * canvas.height),
      Math.max(1, Math.ceil(box.width * canvas.width)),
      Math.max(1, Math.ceil(box.height * canvas.height)),
    ).data;
    for (let index = 0; index < pixels.length; index += 4) if (pixels[index]! + pixels[index + 1]! + pixels[index + 2]! < 200) return true;
    return false;
  }, placement);
}

/**
 * Asserts that a drawn box is where its placement (fractions of the page) says, with a little room
 * between its border and the value on every side.
 */
async function expectBoxAround(page: Page, box: Locator, pageNumber: number, placement: { x: number; y: number; width: number; height: number }): Promise<void> {
  const { pageBounds, inside, outside } = await settledGeometry(box, pageNumber);
  const { x, y, width, height } = placement;
  const placed = { left: pageBounds.left + x * pageBounds.width, top: pageBounds.top + y * pageBounds.height, right: pageBounds.left + (x + width) * pageBounds.width, bottom: pageBounds.top + (y + height) * pageBounds.height };
  for (const room of [placed.left - inside.left, inside.right - placed.right, placed.top - inside.top, inside.bottom - placed.bottom]) {
    expect(room).toBeGreaterThanOrEqual(1.5);
    expect(room).toBeLessThanOrEqual(6);
  }
  expect(outside.left).toBeGreaterThan(placed.left - 10);
  expect(outside.right).toBeLessThan(placed.right + 10);
  expect(outside.top).toBeGreaterThan(placed.top - 10);
  expect(outside.bottom).toBeLessThan(placed.bottom + 10);
}

/**
 * The page's canvas and a drawn box, measured in one frame once layout is still. Selecting scrolls the
 * other side into view in the next animation frame, so two measurements taken one after the other
 * could straddle that scroll (the canvas before it, the box after it).
 */
async function settledGeometry(box: Locator, pageNumber: number) {
  return box.evaluate(async (element, pageNumber) => {
    const view = browserWindow();
    const nextFrame = () => new Promise((resolve) => view.requestAnimationFrame(resolve));
    const measure = () => {
      const canvas = view.document.querySelector(`.page[data-page="${pageNumber}"] canvas`)!.getBoundingClientRect();
      const bounds = element.getBoundingClientRect();
      return {
        pageBounds: { left: canvas.left, top: canvas.top, width: canvas.width, height: canvas.height },
        inside: { left: bounds.left + element.clientLeft, top: bounds.top + element.clientTop, right: bounds.left + element.clientLeft + element.clientWidth, bottom: bounds.top + element.clientTop + element.clientHeight },
        outside: { left: bounds.left, top: bounds.top, right: bounds.right, bottom: bounds.bottom },
      };
    };
    let last = JSON.stringify(measure());
    for (let frame = 0; frame < 60; frame += 1) {
      await nextFrame();
      await nextFrame();
      const now = JSON.stringify(measure());
      if (now === last) return JSON.parse(now) as ReturnType<typeof measure>;
      last = now;
    }
    throw new Error('the page kept moving for 120 frames');
  }, pageNumber);
}

/** How far a CSS `rgb(…)` colour's hue is from red, in degrees (0 to 180). */
function hueDistanceFromRed(cssColour: string): number {
  const [red, green, blue] = cssColour.match(/[\d.]+/g)!.slice(0, 3).map(Number) as [number, number, number];
  const max = Math.max(red, green, blue);
  const min = Math.min(red, green, blue);
  if (max === min) return 180; // a grey is no red
  const delta = max - min;
  const hue = max === red ? 60 * (((green - blue) / delta + 6) % 6) : max === green ? 60 * ((blue - red) / delta + 2) : 60 * ((red - green) / delta + 4);
  return Math.min(hue, 360 - hue);
}

function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => browserWindow().document.documentElement.scrollWidth - browserWindow().document.documentElement.clientWidth);
}

/**
 * The page's window, inside functions that playwright runs in the browser (this project's types have
 * no DOM). Declared, never defined here: each browser-side function calls it by name, and the page
 * defines it (addInitScript in signedInPage).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare function browserWindow(): any;
