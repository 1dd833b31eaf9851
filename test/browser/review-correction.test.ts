import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confidenceText } from '../../src/console/confidence.ts';
import { consoleBrowserMissing, consoleBrowserPath, launchConsoleBrowser } from '../../scripts/console-browser.ts';
import { browserProblems, signedInConsolePage } from '../support/console-pages.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';

// The review console's value correction in a real headless chromium against the embedded stack: the
// reviewer reads the confidence legend, narrows the fields to the unsure ones, zooms into the page,
// types the right value beside a field and saves it; the API then shows it beside the extracted value.
// Screenshots are taken of the view and checked pixel by pixel where the legend's colours must be.

const browserPath = consoleBrowserPath();
if (!browserPath) console.warn(consoleBrowserMissing);

const workspaceId = 'ws_console_corrections';

let stack: StackUnderTest;
let browser: Browser;
let apiKey: string;
let extractions: ExtractionClient;
let consoleUrl: string;

describe.skipIf(!browserPath)('value correction in the review console', () => {
  beforeAll(async () => {
    stack = await startStackUnderTest();
    apiKey = await workspaceKey(workspaceId);
    extractions = new ExtractionClient(stack, apiKey);
    consoleUrl = `${new URL(stack.baseUrl).origin}/console/`;
    browser = await launchConsoleBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows the confidence legend in the boxes\' colours, filters fields by a threshold, zooms the page, and saves a typed value as a correction', async () => {
    const created = await extractions.upload(await invoicePdf({ invoiceNumber: 'REV-0007' }), 'review.pdf');
    const extraction = await extractions.waitForTerminal(created.body.id, 60_000);
    const fields = extraction.output.fields as { id: string; name: string; type: string; value: unknown; metadata: { confidence?: number; placement?: unknown } }[];
    const page = await signedInConsolePage(browser, consoleUrl, apiKey);
    const problems = browserProblems(page);
    await page.goto(`${consoleUrl}#/extractions/${extraction.id}`);
    await page.locator('.page canvas').first().waitFor();

    // The legend names each band, in the colour the boxes of that band are drawn in.
    const legend = page.locator('.confidence-legend');
    expect((await legend.locator('li').allTextContents()).map((text) => text.trim())).toEqual(['high, 90% and above', 'medium, 60% to 89%', 'low, below 60%', 'not given']);
    const legendShot = await sharp(await legend.screenshot()).raw().toBuffer({ resolveWithObject: true });
    for (const band of ['high', 'medium', 'low', 'unknown']) {
      const swatch = (await legend.locator(`li[data-band="${band}"] .confidence-swatch`).boundingBox())!;
      const origin = (await legend.boundingBox())!;
      const pixel = pixelAt(legendShot, swatch.x - origin.x + swatch.width / 2, swatch.y - origin.y + swatch.height / 2);
      expect(pixel, band).toEqual(rgbOf(await page.evaluate<string>(`getComputedStyle(document.documentElement).getPropertyValue('--${band}')`)));
    }

    // The threshold keeps the fields the extractor was less sure of (and those without a confidence).
    const listed = () => page.locator('table.fields tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-field-id')));
    expect(await listed()).toEqual(fields.map((field) => field.id));
    await page.getByLabel('Show fields with confidence below (%)').fill('95');
    const unsure = fields.filter((field) => field.metadata.confidence === undefined || Math.round(field.metadata.confidence * 100) < 95);
    await expect.poll(listed).toEqual(unsure.map((field) => field.id));
    expect(unsure.length).toBeLessThan(fields.length);
    await page.getByText(`${unsure.length} of ${fields.length} fields shown.`).waitFor();
    await page.getByLabel('Show fields with confidence below (%)').fill('100');
    await expect.poll(listed).toEqual(fields.map((field) => field.id));

    // Zoom: the page is drawn twice as wide and its boxes stay on their values.
    const invoiceNumber = fields.find((field) => field.name === 'invoice_number')!;
    const canvas = page.locator('.page[data-page="1"] canvas');
    const before = (await canvas.boundingBox())!;
    const boxBefore = (await page.locator(`.field-box[data-field-id="${invoiceNumber.id}"]`).boundingBox())!;
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(async () => Math.round(((await canvas.boundingBox())!.width / before.width) * 100)).toBe(200);
    await expect.poll(() => page.locator('.zoom output').textContent()).toBe('200%');
    const after = (await canvas.boundingBox())!;
    const boxAfter = (await page.locator(`.field-box[data-field-id="${invoiceNumber.id}"]`).boundingBox())!;
    expect((boxAfter.x - after.x) / after.width).toBeCloseTo((boxBefore.x - before.x) / before.width, 2);
    expect((boxAfter.y - after.y) / after.height).toBeCloseTo((boxBefore.y - before.y) / before.height, 2);
    const zoomedShot = await sharp(await page.locator('.review-document').screenshot()).metadata();
    expect(zoomedShot.width).toBeLessThanOrEqual(Math.ceil(before.width) + 40);
    await page.getByRole('button', { name: 'Fit' }).click();

    // A value that does not fit the type is refused with the API's reason, and nothing is corrected.
    const total = fields.find((field) => field.name === 'total_amount')!;
    await page.getByRole('textbox', { name: 'Right value of total_amount' }).fill('twelve');
    await page.getByRole('button', { name: 'Save the right value of total_amount' }).click();
    await page.getByRole('alert').filter({ hasText: 'must be a number' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Right value of total_amount' }).inputValue()).toBe('twelve');

    // The reviewer types the right value beside the field and saves: the API shows it beside the extracted one.
    await page.getByRole('textbox', { name: 'Right value of invoice_number' }).fill('REV-0007-B');
    await page.getByRole('textbox', { name: 'Right value of invoice_number' }).press('Enter');
    await page.getByRole('status').filter({ hasText: 'Saved: invoice_number is now "REV-0007-B".' }).waitFor();
    const row = page.locator(`table.fields tr[data-field-id="${invoiceNumber.id}"]`);
    await expect.poll(() => row.locator('[data-corrected-value]').textContent()).toContain('REV-0007-B');
    expect(await row.locator('td').first().textContent()).toBe('REV-0007');
    expect(await row.locator('td').nth(1).textContent()).toContain(confidenceText(invoiceNumber.metadata.confidence));
    const read = (await extractions.get(extraction.id)).body.output.fields;
    expect(read.find((field: { id: string }) => field.id === invoiceNumber.id)).toMatchObject({ value: 'REV-0007', correctedValue: 'REV-0007-B' });
    expect(read.find((field: { id: string }) => field.id === total.id)).not.toHaveProperty('correctedValue');
    const viewShot = await sharp(await page.screenshot()).metadata();
    expect([viewShot.width, viewShot.height]).toEqual([1280, 900]);
    // The refused total was a 422 the view showed: the only console error is that answer's.
    expect(problems.filter((problem) => !problem.includes('422'))).toEqual([]);
  }, 120_000);

  it('keeps the review aids within a phone\'s width (390 px): nothing scrolls the page sideways', async () => {
    const created = await extractions.upload(await invoicePdf({ invoiceNumber: 'REV-0390' }), 'phone.pdf');
    await extractions.waitForTerminal(created.body.id, 60_000);
    const page = await signedInConsolePage(browser, consoleUrl, apiKey, { width: 390, height: 844 });
    await page.goto(`${consoleUrl}#/extractions/${created.body.id}`);
    await page.locator('.page canvas').first().waitFor();
    await page.getByRole('button', { name: 'Zoom in' }).click();

    // Elements reaching past the window, other than those inside a region that scrolls in place.
    const outside = await page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
      .filter((element) => !element.closest('.table-scroll, .pages-viewport') && element.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map((element) => element.tagName.toLowerCase() + '.' + element.className)`);
    expect(outside).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
  }, 90_000);
});

function pixelAt(image: { data: Buffer; info: { width: number; channels: number } }, x: number, y: number): [number, number, number] {
  const offset = (Math.round(y) * image.info.width + Math.round(x)) * image.info.channels;
  return [image.data[offset]!, image.data[offset + 1]!, image.data[offset + 2]!];
}

function rgbOf(hex: string): [number, number, number] {
  const digits = hex.trim().replace('#', '');
  return [0, 2, 4].map((start) => Number.parseInt(digits.slice(start, start + 2), 16)) as [number, number, number];
}
