import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildConsoleFiles } from '../src/local/console-bundle.ts';
import { startLocalStack } from '../src/local/local-stack.ts';
import { consoleBrowserMissing, consoleBrowserPath, launchConsoleBrowser } from '../scripts/console-browser.ts';
import { seedConsoleDemo } from '../scripts/console-demo-data.ts';
import { describeMachine, percentile } from './support/machine.ts';

// The review console: what a browser downloads (raw and gzip: the app with pdf.js, the stylesheet, the
// pdf.js worker) and the first render, from navigation to the extractions list painted with its rows,
// in headless chromium against the local stack. The baseline, in the same browser and run, is a blank
// page served by the same gateway (the console's own 404 answer): what any navigation costs there.
const samples = Number(process.env.BENCH_SAMPLES ?? 10);

console.log(describeMachine());
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
for (const file of buildConsoleFiles()) {
  console.log(`${file.path.padEnd(20)} raw ${kib(file.contents.length).padStart(11)}   gzip ${kib(gzipSync(file.contents).length).padStart(10)}`);
}

if (!consoleBrowserPath()) {
  console.log(consoleBrowserMissing);
  process.exit(0);
}
process.env.PAPERFLOW_ALLOW_PRIVATE_URLS = 'true';
process.env.PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS = '1';
const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-bench-'));
const stack = await startLocalStack({ dataDir, port: 0 });
const browser = await launchConsoleBrowser();
try {
  const demo = await seedConsoleDemo(stack.baseUrl);
  const origin = new URL(stack.baseUrl).origin;
  // Each sample in a fresh context: an empty cache, as a first visit.
  const timeNavigation = async (url: string, painted: string) => {
    const context = await browser.newContext();
    await context.addInitScript((apiKey) => sessionStorage.setItem('paperflow.apiKey', apiKey), demo.apiKey);
    const page = await context.newPage();
    const startedAt = performance.now();
    await page.goto(url);
    await page.locator(painted).first().waitFor();
    // The next frame: the rows are painted, not only in the DOM.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)))');
    const elapsed = performance.now() - startedAt;
    await context.close();
    return elapsed;
  };
  await timeNavigation(`${origin}/console/#/extractions`, 'tbody tr'); // builds the bundle once, warms the stack
  const blank: number[] = [];
  const firstRender: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    blank.push(await timeNavigation(`${origin}/console/blank`, 'body'));
    firstRender.push(await timeNavigation(`${origin}/console/#/extractions`, 'tbody tr'));
  }
  blank.sort((left, right) => left - right);
  firstRender.sort((left, right) => left - right);
  const figures = (values: number[]) => `median ${percentile(values, 0.5).toFixed(0)} ms   p90 ${percentile(values, 0.9).toFixed(0)} ms   (${samples} samples)`;
  console.log(`blank page (baseline)          ${figures(blank)}`);
  console.log(`console: extractions painted   ${figures(firstRender)}`);
  console.log(`console first render over the baseline: ${(percentile(firstRender, 0.5) - percentile(blank, 0.5)).toFixed(0)} ms (medians)`);
  await demo.close();
} finally {
  await browser.close();
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
