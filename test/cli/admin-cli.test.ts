import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCliFor, failureOf } from '../support/admin-cli-process.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';

// paperflow-admin as an operator runs it: a separate process reaching the running local stack.
let stack: StackUnderTest;
let folder: string;

beforeAll(async () => {
  stack = await startStackUnderTest();
  folder = await mkdtemp(join(tmpdir(), 'paperflow-admin-'));
});

afterAll(async () => {
  await stack?.stop();
  await rm(folder, { recursive: true, force: true });
});

const admin = adminCliFor(() => stack.dataDir);

async function configFile(name: string, text: string): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, text);
  return path;
}


describe('workspaces create', () => {
  it('is idempotent for an existing id with the same name', async () => {
    const first = await admin('workspaces', 'create', '--id', 'ws_acme', '--name', 'Acme');
    const again = await admin('workspaces', 'create', '--id', 'ws_acme', '--name', 'Acme');

    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
  });

  it('refuses an existing id with another name, and keeps the stored name', async () => {
    await admin('workspaces', 'create', '--id', 'ws_named', '--name', 'Original');

    const refused = await failureOf(admin('workspaces', 'create', '--id', 'ws_named', '--name', 'Renamed'));
    const listed = (await admin('workspaces', 'list')).stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; name: string });

    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/ws_named already exists, named "Original"/) });
    expect(listed.find((workspace) => workspace.id === 'ws_named')).toMatchObject({ name: 'Original' });
  });

  it.each([['no prefix', 'acme'], ['spaces', 'ws_two words'], ['a slash', 'ws_a/b'], ['nothing after the prefix', 'ws_'], ['too long', `ws_${'a'.repeat(65)}`]])(
    'refuses an id that is not a workspace id (%s)',
    async (_case, id) => {
      const refused = await failureOf(admin('workspaces', 'create', '--id', id, '--name', 'Bad'));
      const listed = (await admin('workspaces', 'list')).stdout;

      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a workspace id') });
      expect(listed).not.toContain(JSON.stringify(id));
    },
  );
});

describe('commands naming a workspace that does not exist', () => {
  it.each([
    ['keys list', ['keys', 'list', '--workspace', 'ws_unknown']],
    ['config show', ['config', 'show', '--workspace', 'ws_unknown']],
    ['keys create', ['keys', 'create', '--workspace', 'ws_unknown', '--name', 'k', '--scopes', '*']],
  ])('%s says so and exits non-zero', async (_command, args) => {
    const refused = await failureOf(admin(...args));

    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('Workspace ws_unknown does not exist') });
  });

  it('keys list still lists the keys of a workspace that exists', async () => {
    const { stdout } = await admin('keys', 'list', '--workspace', 'ws_default');

    expect(stdout).toContain('bootstrap');
  });
});

describe('config apply and show', () => {
  it('shows the default (prebuilt invoice and receipt) until a configuration is applied', async () => {
    const { stdout, stderr } = await admin('config', 'show', '--workspace', 'ws_default');

    expect(stderr).toContain('default');
    expect(stdout).toContain('invoice');
    expect(stdout).toContain('receipt');
  });

  it('refuses an invalid configuration with every problem listed, and keeps the stored one', async () => {
    const valid = await configFile('valid.yaml', 'documentTypes:\n  - prebuilt: invoice\n    duplicatePolicy: reject\n');
    const invalid = await configFile(
      'invalid.yaml',
      ['documentTypes:', '  - docType: purchase_order', '    fields:', '      - name: total', '        type: money', '      - name: po_number', '        type: string', '        patterns: ["(unclosed"]'].join('\n'),
    );
    await admin('config', 'apply', valid, '--workspace', 'ws_default');

    const refused = await admin('config', 'apply', invalid, '--workspace', 'ws_default').catch((error: { code: number; stderr: string }) => error);
    const shown = await admin('config', 'show', '--workspace', 'ws_default');

    expect(refused).toMatchObject({ code: 1 });
    const problems = (refused as { stderr: string }).stderr;
    expect(problems).toContain('documentTypes[0].fields[0].type');
    expect(problems).toContain('documentTypes[0].fields[1].patterns');
    expect(problems).toContain('nothing was applied');
    expect(shown.stdout).toContain('duplicatePolicy: reject');
  });

  it('applies JSON as well as YAML', async () => {
    const json = await configFile('config.json', JSON.stringify({ documentTypes: [{ prebuilt: 'receipt' }] }));

    const applied = await admin('config', 'apply', json, '--workspace', 'ws_default');
    const shown = await admin('config', 'show', '--workspace', 'ws_default');

    expect(JSON.parse(applied.stdout)).toMatchObject({ workspaceId: 'ws_default', documentTypes: 1 });
    expect(JSON.parse(shown.stdout)).toEqual({ documentTypes: [{ prebuilt: 'receipt' }] });
  });

  it('refuses a workspace that does not exist', async () => {
    const file = await configFile('any.yaml', 'documentTypes:\n  - prebuilt: invoice\n');

    await expect(admin('config', 'apply', file, '--workspace', 'ws_nowhere')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('ws_nowhere') });
  });
});

describe('extractions reprocess', () => {
  it('says so when the extraction does not exist', async () => {
    await expect(admin('extractions', 'reprocess', 'ext_00000000000000000000000000')).rejects.toMatchObject({ code: 1 });
  });
});
