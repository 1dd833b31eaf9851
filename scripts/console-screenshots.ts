import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLocalStack } from '../src/local/local-stack.ts';
import { consoleBrowserMissing, consoleBrowserPath, launchConsoleBrowser } from './console-browser.ts';
import { seedConsoleDemo } from './console-demo-data.ts';

// `npm run console:screenshots`: a fresh local stack with demo data (scripts/console-demo-data.ts),
// and a screenshot of each view of the review console in docs/console/, as the README shows them.

if (!consoleBrowserPath()) {
  console.error(consoleBrowserMissing);
  process.exit(1);
}
const outputDir = resolve(import.meta.dirname, '../docs/console');
await mkdir(outputDir, { recursive: true });
process.env.PAPERFLOW_ALLOW_PRIVATE_URLS = 'true';
process.env.PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS = '1';
const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-screenshots-'));
const stack = await startLocalStack({ dataDir, port: 0 });
const browser = await launchConsoleBrowser();
try {
  const demo = await seedConsoleDemo(stack.baseUrl);
  const consoleUrl = `${new URL(stack.baseUrl).origin}/console/`;
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript((apiKey) => sessionStorage.setItem('paperflow.apiKey', apiKey), demo.apiKey);
  const page = await context.newPage();
  const shoot = async (name: string) => {
    await page.screenshot({ path: join(outputDir, `${name}.png`), fullPage: false });
    console.log(`docs/console/${name}.png`);
  };

  await page.goto(`${consoleUrl}#/extractions`);
  await page.locator('tbody tr').nth(1).waitFor();
  await shoot('extractions-list');

  await page.goto(`${consoleUrl}#/extractions/${demo.extractionIds[0]}`);
  await page.locator('.page canvas').first().waitFor();
  await page.locator('tr[data-field-id]').filter({ hasText: 'total_amount' }).click();
  await shoot('extraction-detail');

  // The second invoice has line items: its table under the fields, one cell selected and boxed on the page.
  await page.goto(`${consoleUrl}#/extractions/${demo.extractionIds[1]}`);
  await page.locator('.page canvas').first().waitFor();
  // Wide enough for the fields column to show all seven of its columns.
  await page.setViewportSize({ width: 1440, height: 1500 });
  await page.locator('.table-field tbody tr').nth(2).locator('td[data-column="description"]').click();
  await page.locator('.table-field').evaluate((table) => table.scrollIntoView({ block: 'end' }));
  await shoot('line-items');
  await page.setViewportSize({ width: 1280, height: 860 });

  await page.goto(`${consoleUrl}#/runs/${demo.runId}`);
  await page.locator('.step-node').first().waitFor();
  await page.locator('.step-node[data-step-id="decide"]').click();
  await shoot('run-dag');

  await page.goto(`${consoleUrl}#/events`);
  await page.locator('tbody tr').first().waitFor();
  await shoot('events');

  // An event with its delivery open: the subscription's name, the headers sent and the answer.
  await page.locator('tbody tr').filter({ hasText: '1 succeeded' }).first().getByRole('link').click();
  await page.getByRole('button', { name: 'Attempts' }).first().click();
  await page.locator('.attempts .headers').first().waitFor();
  // Tall enough for the link to the extraction, the deliveries and the attempt together.
  await page.setViewportSize({ width: 1280, height: 1000 });
  await shoot('event-detail');
  await page.setViewportSize({ width: 1280, height: 860 });
  await demo.close();
} finally {
  await browser.close();
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
