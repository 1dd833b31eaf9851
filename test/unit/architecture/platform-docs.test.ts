import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/platform.md names the files that hold the feature rows of the two tables. It once listed 3 of 5
// route files and 2 of 5 trigger files; this keeps it in step with what the manifests import.
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (path: string): string => readFileSync(resolve(repositoryRoot, path), 'utf8');

/** The feature files a manifest imports (its own table types in src/platform are not rows). */
function featureFilesImportedBy(manifest: string): string[] {
  return [...read(manifest).matchAll(/^import [^;]* from '\.\.\/([\w-]+\/[\w-]+\.ts)';$/gmu)]
    .map((match) => `src/${match[1]}`)
    .filter((path) => !path.startsWith('src/platform/'))
    .sort();
}

/** The files named in the fourth column (the feature rows) of a table row of docs/platform.md. */
function featureFilesNamedInDocs(rowName: string): string[] {
  const row = read('docs/platform.md')
    .split('\n')
    .find((line) => line.startsWith(`| ${rowName} |`));
  const cells = row?.split('|').map((cell) => cell.trim()) ?? [];
  return [...(cells[4] ?? '').matchAll(/`([^`]+)`/gu)].map((match) => match[1]!).sort();
}

describe('docs/platform.md', () => {
  it.each([
    ['routes (HTTP)', 'src/manifest/routes.ts'],
    ['triggers (everything else)', 'src/manifest/triggers.ts'],
  ])('names every feature file of the %s table, and only files that exist', (rowName, manifest) => {
    const named = featureFilesNamedInDocs(rowName);

    expect(named).toEqual(featureFilesImportedBy(manifest));
    for (const path of named) expect(existsSync(resolve(repositoryRoot, path)), path).toBe(true);
  });
});
