import { build, type Metafile } from 'esbuild';
import { createRequireBanner, credentialProvidersLambdaNeverLoads } from '../../lib/paperflow-function.ts';

/**
 * Bundles `entry` with the esbuild options PaperflowFunction gives a handler (lib/paperflow-function.ts:
 * ESM, minified, node22, the SDK inside, `nodeModules` left to ship beside it), for the benches that
 * measure what is deployed. `sourcemap` as deployed; off where only the bundle's size and load count.
 * Answers esbuild's metafile: what each input contributes to the bundle.
 */
export async function bundleAsDeployed(entry: string, outfile: string, nodeModules: readonly string[], options: { sourcemap: boolean }): Promise<Metafile> {
  const { metafile } = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: options.sourcemap,
    banner: { js: createRequireBanner },
    external: [...credentialProvidersLambdaNeverLoads, ...nodeModules],
    logLevel: 'silent',
    metafile: true,
  });
  return metafile;
}
