import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleAsDeployed } from '../../bench/support/lambda-bundle.ts';
import { bundleBudgetBytes, defaultBundleBudgetBytes, namedBundleBudgets } from '../../bench/support/handler-bundle-budgets.ts';
import { repositoryRoot } from '../../lib/paperflow-function.ts';
import { authorizerHandlerModule, unmatchedRouteHandlerModule } from '../../lib/public-api.ts';
import { routes } from '../../src/manifest/routes.ts';
import { triggers } from '../../src/manifest/triggers.ts';

// Each handler of the route and trigger tables bundled as PaperflowFunction deploys it (esbuild, ESM,
// minified, node22, the AWS SDK inside, a trigger's nodeModules left beside it) and held to its budget
// (bench/support/handler-bundle-budgets.ts). Size only: the cold import it costs is measured by
// bench/handler-bundles.ts, never asserted here.

const handlers = [...new Set([authorizerHandlerModule, unmatchedRouteHandlerModule, ...routes.map((route) => route.handler), ...triggers.map((trigger) => trigger.handler)])];
const nodeModulesByHandler = new Map(triggers.map((trigger) => [trigger.handler, trigger.nodeModules ?? []]));
const bundles = new Map<string, { bytes: number; metafile: Metafile }>();
let outputDir: string;

beforeAll(async () => {
  // Inside the project, as the bench does, so anything left external still resolves.
  await mkdir(join(repositoryRoot, 'node_modules/.cache'), { recursive: true });
  outputDir = await mkdtemp(join(repositoryRoot, 'node_modules/.cache/paperflow-bundle-sizes-'));
  for (const handler of handlers) {
    const outfile = join(outputDir, `${handler.replace(/[/.]/g, '_')}.mjs`);
    const metafile = await bundleAsDeployed(join(repositoryRoot, handler), outfile, nodeModulesByHandler.get(handler) ?? [], { sourcemap: false });
    bundles.set(handler, { bytes: (await stat(outfile)).size, metafile });
  }
});

afterAll(async () => {
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

/** The packages (or project folders) that weigh most in a bundle, for the failure message. */
function heaviestParts(metafile: Metafile): string {
  const byPart = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const part = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split('/').slice(0, 2).join('/');
      byPart.set(part, (byPart.get(part) ?? 0) + bytesInOutput);
    }
  }
  return [...byPart].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([part, bytes]) => `${part} ${Math.round(bytes / 1024)} KB`).join(', ');
}

describe('handler bundles', () => {
  it.each(handlers)('%s stays within its size budget', (handler) => {
    const bundle = bundles.get(handler)!;
    const budget = bundleBudgetBytes(handler);
    expect(
      bundle.bytes,
      `${handler} is ${Math.round(bundle.bytes / 1024)} KB, over its ${Math.round(budget / 1024)} KB budget; heaviest: ${heaviestParts(bundle.metafile)}`,
    ).toBeLessThanOrEqual(budget);
  });

  it('names in its budget table only handlers of the tables, each needing more than the default', () => {
    for (const [handler, { bytes, why }] of Object.entries(namedBundleBudgets)) {
      expect(handlers, `${handler} has a budget but is no handler of the route or trigger tables`).toContain(handler);
      expect(bytes).toBeGreaterThan(defaultBundleBudgetBytes);
      expect(why.length).toBeGreaterThan(0);
      // A named budget is for a handler that needs it: one back under the default loses its row.
      expect(bundles.get(handler)!.bytes, `${handler} fits the default budget now: remove its row`).toBeGreaterThan(defaultBundleBudgetBytes);
    }
  });
});
