import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Settings are read once, in src/composition/configuration.ts, and passed into the domain objects
// (issue 27): a domain module reading process.env would bypass the parsing and validation there,
// and the per-row limits the local invoker applies. Only the composition root, the local stack,
// infrastructure, the admin CLI, the CLI and the console build process may read the environment.

const sourceRoot = fileURLToPath(new URL('../../../src/', import.meta.url));
const mayReadEnvironment = new Set(['composition', 'local', 'infrastructure', 'admin', 'cli', 'console']);
const environmentRead = /\bprocess\s*\.\s*env\b|\bprocess\s*\[\s*['"]env['"]\s*\]/u;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/u.test(entry.name) ? [path] : [];
  });
}

/** The domain files (under src/, outside the folders that may) whose code reads process.env, with the line. */
export function domainEnvironmentReads(root: string): string[] {
  return sourceFiles(root)
    .filter((path) => !mayReadEnvironment.has(relative(root, path).split(/[\\/]/u)[0]!))
    .flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, index) => (environmentRead.test(line.replace(/\/\/.*$/u, '')) ? [`${relative(root, path)}:${index + 1}`] : [])),
    );
}

describe('domain code and the environment', () => {
  it('no domain file reads process.env: settings come from the configuration', () => {
    expect(domainEnvironmentReads(sourceRoot)).toEqual([]);
  });

  it('finds a read in a domain file and none in the folders that may read', () => {
    const fixture = fileURLToPath(new URL('../../fixtures/environment-reads/', import.meta.url));

    expect(domainEnvironmentReads(fixture)).toEqual(['webhooks/reads-a-variable.ts:2', 'webhooks/reads-a-variable.ts:3']);
  });
});
