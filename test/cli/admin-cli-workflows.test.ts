import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { adminCliFor, failureOf } from '../support/admin-cli-process.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';

// paperflow-admin workflows as an operator runs it: a separate process reaching the running local stack.
let stack: StackUnderTest;
let folder: string;
const workspaceId = 'ws_workflows';

beforeAll(async () => {
  stack = await startStackUnderTest();
  folder = await mkdtemp(join(tmpdir(), 'paperflow-admin-workflows-'));
  await admin('workspaces', 'create', '--id', workspaceId, '--name', 'Workflows');
});

afterAll(async () => {
  await stack?.stop();
  await rm(folder, { recursive: true, force: true });
});

const admin = adminCliFor(() => stack.dataDir);

let fileCount = 0;
async function definitionFile(definition: unknown, format: 'yaml' | 'json' = 'yaml'): Promise<string> {
  const path = join(folder, `definition-${(fileCount += 1)}.${format}`);
  await writeFile(path, format === 'json' ? JSON.stringify(definition) : stringify(definition));
  return path;
}

function definition(id: string, name = 'Greeting') {
  return { id, name, steps: [{ id: 'greet', type: 'transform', with: { text: 'Hello {{ body.name }}' } }] };
}

const linesOf = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('workflows publish', () => {
  it('makes version 1, then version 2 of the same id, printing exactly workflowId and version', async () => {
    const first = await admin('workflows', 'publish', await definitionFile(definition('wf_greeting')), '--workspace', workspaceId);
    const second = await admin('workflows', 'publish', await definitionFile(definition('wf_greeting', 'Greeting v2'), 'json'), '--workspace', workspaceId);

    expect(JSON.parse(first.stdout)).toEqual({ workflowId: 'wf_greeting', version: 1 });
    expect(JSON.parse(second.stdout)).toEqual({ workflowId: 'wf_greeting', version: 2 });
  });

  it('gives two publishes of one id at the same time two different versions', async () => {
    const [one, two] = await Promise.all([
      definitionFile(definition('wf_raced', 'Raced one')),
      definitionFile(definition('wf_raced', 'Raced two')),
    ]);

    const results = await Promise.all([one, two].map(async (file) => JSON.parse((await admin('workflows', 'publish', file, '--workspace', workspaceId)).stdout)));

    expect(results.map((result) => result.version).sort()).toEqual([1, 2]);
  });

  it('gives a definition without id a new workflow each time', async () => {
    const { id: _id, ...withoutId } = definition('wf_unused');
    const file = await definitionFile(withoutId);

    const first = JSON.parse((await admin('workflows', 'publish', file, '--workspace', workspaceId)).stdout);
    const second = JSON.parse((await admin('workflows', 'publish', file, '--workspace', workspaceId)).stdout);

    expect(first).toEqual({ workflowId: expect.stringMatching(/^wf_[0-9A-Z]{26}$/), version: 1 });
    expect(second).toMatchObject({ version: 1 });
    expect(second.workflowId).not.toBe(first.workflowId);
  });

  it('lists all three problems of a broken definition on stderr, exits 1 and stores nothing', async () => {
    const broken = {
      id: 'wf_broken',
      name: 'Broken',
      steps: [
        { id: 'a', type: 'transform', with: {} },
        { id: 'a', type: 'delay', with: { seconds: 5 } },
        { id: 'b', type: 'transform', needs: ['x'], with: { value: '{{ body.( }}' } },
      ],
    };

    const refused = await failureOf(admin('workflows', 'publish', await definitionFile(broken), '--workspace', workspaceId));
    const listed = linesOf((await admin('workflows', 'list', '--workspace', workspaceId)).stdout);

    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('steps[1].id: duplicate step id "a" (also steps[0])');
    expect(refused.stderr).toContain('steps[2].needs[0]: unknown step "x"');
    expect(refused.stderr).toMatch(/steps\[2\]\.with\.value: expression does not compile/);
    expect(refused.stderr).toContain('The definition has 3 problem(s); nothing was published.');
    expect(listed.map((workflow) => workflow.id)).not.toContain('wf_broken');
  });

  it('refuses a for_each naming a workflow the workspace does not have', async () => {
    const fan = { id: 'wf_fan', name: 'Fan', steps: [{ id: 'each', type: 'for_each', with: { items: '{{ body.items }}', workflowId: 'wf_nowhere' } }] };

    const refused = await failureOf(admin('workflows', 'publish', await definitionFile(fan), '--workspace', workspaceId));

    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('steps[0].with.workflowId: workflow "wf_nowhere" is not published') });
  });

  it('tells every problem at once in plain words: allowed values, "required", bounds, and an unknown for_each workflow', async () => {
    const broken = {
      id: 'wf_unclear',
      steps: [
        { id: 'call', type: 'web_function', with: { url: 'https://api.example.com/hook', method: 'FETCH' } },
        { id: 'each', type: 'for_each', with: { items: '{{ body.items }}', workflowId: 'wf_nowhere', maxConcurrency: 0 } },
      ],
    };

    const refused = await failureOf(admin('workflows', 'publish', await definitionFile(broken), '--workspace', workspaceId));

    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      'name: is required',
      'steps[0].with.method: must be one of GET, HEAD, POST, PUT, PATCH, DELETE, or a "{{ expression }}"',
      'steps[1].with.maxConcurrency: must be at least 1',
      `steps[1].with.workflowId: workflow "wf_nowhere" is not published in workspace ${workspaceId}`,
      'paperflow-admin: The definition has 4 problem(s); nothing was published.',
    ]);
  });

  it('refuses a literal http or loopback URL by the stack\'s outbound rules (no local setting), as its runs would', async () => {
    const calls = {
      id: 'wf_private_calls',
      name: 'Private calls',
      steps: [
        { id: 'plain', type: 'web_function', with: { url: 'http://api.example.com/hook' } },
        { id: 'loopback', type: 'web_function', with: { url: 'https://127.0.0.1:8443/hook' } },
        { id: 'metadata', type: 'web_function', with: { url: 'https://169.254.169.254/latest/meta-data' } },
        { id: 'document', type: 'document_insights', with: { url: 'https://localhost/invoice.pdf' } },
        { id: 'evaluated', type: 'web_function', with: { url: '{{ body.callback }}' } },
      ],
    };

    const refused = await failureOf(admin('workflows', 'publish', await definitionFile(calls), '--workspace', workspaceId));

    expect(refused.stderr.trim().split('\n')).toEqual([
      'steps[0].with.url: must use https',
      'steps[1].with.url: must not point to a private, loopback or reserved address',
      'steps[2].with.url: must not point to a private, loopback or reserved address',
      'steps[3].with.url: must not point to a private, loopback or reserved address',
      'paperflow-admin: The definition has 4 problem(s); nothing was published.',
    ]);
  });
});

describe('workflows list, show, disable and enable', () => {
  beforeAll(async () => {
    await admin('workflows', 'publish', await definitionFile(definition('wf_toggle', 'Toggle')), '--workspace', workspaceId);
  });

  it('lists the workspace workflows with their latest version and status', async () => {
    const listed = linesOf((await admin('workflows', 'list', '--workspace', workspaceId)).stdout);

    expect(listed).toContainEqual(
      expect.objectContaining({ id: 'wf_toggle', workspaceId, name: 'Toggle', latestVersion: 1, status: 'enabled', createdAt: expect.any(String) }),
    );
  });

  it('shows the latest version of a definition', async () => {
    await admin('workflows', 'publish', await definitionFile(definition('wf_shown', 'Shown v1')), '--workspace', workspaceId);
    await admin('workflows', 'publish', await definitionFile(definition('wf_shown', 'Shown v2')), '--workspace', workspaceId);

    const shown = JSON.parse((await admin('workflows', 'show', 'wf_shown', '--workspace', workspaceId)).stdout);

    expect(shown).toMatchObject({ id: 'wf_shown', name: 'Shown v2', latestVersion: 2, version: 2, definition: { name: 'Shown v2', steps: [{ id: 'greet' }] } });
  });

  it('disables and enables a workflow', async () => {
    const disabled = JSON.parse((await admin('workflows', 'disable', 'wf_toggle', '--workspace', workspaceId)).stdout);
    const listedWhileDisabled = linesOf((await admin('workflows', 'list', '--workspace', workspaceId)).stdout);
    const enabled = JSON.parse((await admin('workflows', 'enable', 'wf_toggle', '--workspace', workspaceId)).stdout);

    expect(disabled).toMatchObject({ id: 'wf_toggle', status: 'disabled' });
    expect(listedWhileDisabled.find((workflow) => workflow.id === 'wf_toggle')).toMatchObject({ status: 'disabled' });
    expect(enabled).toMatchObject({ id: 'wf_toggle', status: 'enabled' });
  });

  it.each([['show'], ['disable'], ['enable']])('%s of an unknown workflow says so and exits 1', async (verb) => {
    const refused = await failureOf(admin('workflows', verb, 'wf_unknown', '--workspace', workspaceId));

    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining(`Workflow wf_unknown does not exist in workspace ${workspaceId}`) });
  });

  it.each([['list', []], ['show', ['wf_toggle']], ['publish', ['docs/workflow-example.yaml']]])('%s in an unknown workspace says so and exits 1', async (verb, args) => {
    const refused = await failureOf(admin('workflows', verb, ...args, '--workspace', 'ws_unknown'));

    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('Workspace ws_unknown does not exist') });
  });
});

describe('workflows list of a workspace without workflows, and workflows --help', () => {
  it('says there are none on stderr, leaving stdout empty, exit 0', async () => {
    await admin('workspaces', 'create', '--id', 'ws_no_workflows', '--name', 'No workflows');

    const listed = await admin('workflows', 'list', '--workspace', 'ws_no_workflows');

    expect(listed.stdout).toBe('');
    expect(listed.stderr).toContain('No workflows in workspace ws_no_workflows');
  });

  it.each([['--help'], ['-h']])('shows the usage of the workflows commands with workflows %s, on stdout, exit 0', async (flag) => {
    const help = await admin('workflows', flag);
    const leafHelp = await admin('workflows', 'list', flag);

    expect(help.stdout).toContain('workflows list --workspace <ws_id>');
    expect(help.stdout).toContain('workflows publish <file.yaml|file.json> --workspace <ws_id>');
    expect(help.stdout).not.toContain('keys create');
    expect(leafHelp.stdout).toBe(help.stdout);
  });
});
