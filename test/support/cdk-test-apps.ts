import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';

/**
 * CDK apps whose cloud assemblies go to one temporary folder per test file, removed by `removeAll`.
 * An App without an outdir synthesizes into a new temporary folder of its own that nothing removes:
 * with the bundled functions that left about 250 MB behind per test run. The folder is outside the
 * repository, as the bundle test needs (nothing there can resolve the project's node_modules).
 */
export function cdkTestApps(context: Record<string, unknown>) {
  const root = mkdtempSync(join(tmpdir(), 'paperflow-cdk-test-'));
  let created = 0;
  return {
    app(extraContext: Record<string, unknown> = {}): App {
      created += 1;
      return new App({ context: { ...context, ...extraContext }, outdir: join(root, `assembly-${created}`) });
    },
    /** A folder for a test's own input files (a definition file, say), removed with the assemblies. */
    scratchFolder(): string {
      created += 1;
      const folder = join(root, `scratch-${created}`);
      mkdirSync(folder);
      return folder;
    },
    removeAll(): void {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
