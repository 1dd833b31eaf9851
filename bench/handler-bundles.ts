import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { bundleAsDeployed } from './support/lambda-bundle.ts';
import { bundleBudgetBytes, defaultBundleBudgetBytes } from './support/handler-bundle-budgets.ts';
import { authorizerHandlerModule, unmatchedRouteHandlerModule } from '../lib/public-api.ts';
import { routes } from '../src/manifest/routes.ts';
import { triggers } from '../src/manifest/triggers.ts';
import { describeMachine, percentile } from './support/machine.ts';

// Each handler of the two tables (routes and triggers) bundled as the CDK stack bundles it (esbuild,
// ESM, minified, node22, AWS SDK included), then imported cold in a fresh Node process: the bundle's
// share of a Lambda cold start.
// Bundles are written inside the project so anything left external still resolves.
const run = promisify(execFile);
const projectRoot = resolve(import.meta.dirname, '..');
await mkdir(join(projectRoot, 'node_modules/.cache'), { recursive: true });
const outputDir = await mkdtemp(join(projectRoot, 'node_modules/.cache/paperflow-bundles-'));
// Packages a trigger row ships as node_modules stay outside its bundle, as deployed.
const nodeModulesByHandler = new Map(triggers.map((trigger) => [trigger.handler, trigger.nodeModules ?? []]));
const handlers = [
  ...new Set([authorizerHandlerModule, unmatchedRouteHandlerModule, ...routes.map((route) => route.handler), ...triggers.map((trigger) => trigger.handler)]),
];
const importSamples = Number(process.env.BENCH_IMPORT_SAMPLES ?? 5);

console.log(`handler bundles (${describeMachine()}; cold import = median of ${importSamples} fresh processes)`);
try {
  for (const handler of handlers) {
    const outfile = join(outputDir, `${handler.replace(/[/.]/g, '_')}.mjs`);
    await bundleAsDeployed(join(projectRoot, handler), outfile, nodeModulesByHandler.get(handler) ?? [], { sourcemap: false });
    const sizeKb = (await stat(outfile)).size / 1024;
    const samples: number[] = [];
    for (let sample = 0; sample < importSamples; sample += 1) {
      const { stdout } = await run(process.execPath, [
        '--input-type=module',
        '-e',
        `const t = performance.now(); await import(${JSON.stringify(outfile)}); console.log(performance.now() - t);`,
      ]);
      samples.push(Number(stdout.trim()));
    }
    const medianMs = percentile(samples.sort((a, b) => a - b), 0.5);
    const budgetKb = bundleBudgetBytes(handler) / 1024;
    const verdict = sizeKb <= defaultBundleBudgetBytes / 1024 && medianMs <= 80 ? 'ok' : 'OVER TARGET';
    const budgetNote = budgetKb > defaultBundleBudgetBytes / 1024 ? ` (named budget ${budgetKb.toFixed(0)} KB)` : '';
    console.log(`  ${handler.padEnd(58)} ${sizeKb.toFixed(0).padStart(5)} KB  ${medianMs.toFixed(1).padStart(6)} ms  ${verdict}${budgetNote}`);
  }
  console.log(`  targets: ≤ ${defaultBundleBudgetBytes / 1024} KB minified, ≤ 80 ms cold import; sizes held to their budgets by test/infra/handler-bundle-sizes.test.ts`);
} finally {
  await rm(outputDir, { recursive: true, force: true });
}
