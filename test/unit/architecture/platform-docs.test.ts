import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/** The layout table of the README: folder cell → the folder names its description cell names in backticks. */
function readmeLayout(): Map<string, string[]> {
  const section = read('README.md').split('\n## Layout\n')[1]?.split('\n## ')[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return new Map(
    rows.map((row) => {
      const [, folder = '', what = ''] = row.split('|').map((cell) => cell.trim());
      return [folder, [...what.matchAll(/`([\w-]+)\/`/gu)].map((match) => match[1]!)];
    }),
  );
}

describe("the README's layout table", () => {
  it('names every folder of src/, and only folders that exist', () => {
    const layout = readmeLayout();
    const namedInSrcRow = layout.get('`src/`') ?? [];
    const namedAsRows = [...layout.keys()].flatMap((cell) => [...cell.matchAll(/`src\/([\w-]+)\/`/gu)].map((match) => match[1]!));
    const named = [...new Set([...namedInSrcRow, ...namedAsRows])].sort();
    const folders = readdirSync(resolve(repositoryRoot, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();

    expect(named).toEqual(folders);
  });

  it('names top-level folders that exist', () => {
    const topLevel = [...readmeLayout().keys()].flatMap((cell) => [...cell.matchAll(/`([\w-]+)\/`/gu)].map((match) => match[1]!));

    expect(topLevel.length).toBeGreaterThan(5);
    for (const folder of topLevel) expect(existsSync(resolve(repositoryRoot, folder)), folder).toBe(true);
  });
});
