import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cruise, type IConfiguration, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';

// The layering of .dependency-cruiser.cjs (handlers → domain → infrastructure, never upward; no
// src/http or Lambda types in domain code), checked over the real project and over a fixture whose
// planted violations prove the rules catch what they say.

const configuration = createRequire(import.meta.url)('../../../.dependency-cruiser.cjs') as IConfiguration;
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixtureRoot = fileURLToPath(new URL('../../fixtures/layering/', import.meta.url));

/** Every rule violation under `baseDir`, one line each: `rule: from → to`. */
async function layeringViolations(baseDir: string, paths: string[]): Promise<string[]> {
  const options: ICruiseOptions = {
    ...(configuration.options as ICruiseOptions),
    baseDir,
    validate: true,
    ruleSet: { forbidden: configuration.forbidden ?? [] },
  };
  const result = (await cruise(paths, options)).output as ICruiseResult;
  // A package resolves to wherever node_modules is (a git worktree may link it from another checkout).
  const fromNodeModules = (path: string) => path.replace(/^(\.\.\/)+([\w.-]+\/)*node_modules\//u, 'node_modules/');
  return result.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${fromNodeModules(violation.to)}`).sort();
}

describe('the dependency rule', () => {
  it('holds for every module of the project', async () => {
    const violations = await layeringViolations(repositoryRoot, ['src', 'functions', 'lib', 'bin', 'scripts', 'bench']);

    expect(violations, `Layering violations (see .dependency-cruiser.cjs for the rules):\n${violations.join('\n')}`).toEqual([]);
  });

  it('reports a domain module importing src/http, the composition root, aws-lambda types, the AWS SDK or an adapter, src/manifest importing the composition root, the CLI and the typed client importing a domain module, a feature reaching past the engine\'s public module, and nothing else', async () => {
    const violations = await layeringViolations(fixtureRoot, ['src', 'functions']);

    // The fixture resolves packages from the repository's node_modules.
    expect(violations).toEqual([
      'cli-only-public-api: src/cli/greet-from-the-command-line.ts → src/extractions/greeting.ts',
      'client-only-public-api: src/client/greet-through-the-domain.ts → src/extractions/greeting.ts',
      'composition-only-from-entry-points: src/manifest/greeting-rows.ts → src/composition/greetings.ts',
      'domain-not-to-adapters: src/files/card-writer.ts → src/files/aws/s3-greeting-cards.ts',
      'domain-not-to-aws-sdk: src/files/greeting-cards-in-s3.ts → node_modules/@aws-sdk/client-s3/dist-cjs/index.js',
      'domain-not-to-lambda-types: src/extractions/queued-names.ts → node_modules/@types/aws-lambda/index.d.ts',
      'domain-not-to-outer-layers: src/extractions/greeting-with-its-graph.ts → src/composition/greetings.ts',
      'domain-not-to-outer-layers: src/files/greeting-over-http.ts → src/http/render-answer.ts',
      'engine-diagnostics-only-for-tools: src/extractions/letter-counts.ts → src/extraction-engine/diagnostics.ts',
      'engine-readers-loaded-on-first-use: src/extractions/letters-at-start-up.ts → src/extraction-engine/reading.ts',
      'engine-through-its-public-module: src/extractions/letter-counts.ts → src/extraction-engine/readers/letter-reader.ts',
    ]);
  });
});
