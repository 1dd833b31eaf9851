import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { apiKeyService, workspaceStore } from '../composition/auth.ts';
import { isWorkspaceId } from '../workspaces/workspace-store.ts';
import { usagePlanRegistryFromEnvironment } from '../auth/aws/api-gateway-usage-plan-registry.ts';
import { extractionConfigurationStore } from '../composition/extraction-configurations.ts';
import { contentCorrections, extractionDocuments, reprocessExtraction } from '../composition/extractions.ts';
import { planLabelledSet } from './feedback-export.ts';
import { newIdentifier } from '../infrastructure/identifiers.ts';
import { resources } from '../manifest/resources.ts';
import { theResource } from '../platform/resource-table.ts';
import { readLocalStackConnection, useLocalStackConnection } from '../local/local-stack-connection.ts';
import { isWorkflowId } from '../workflows/workflow-definition.ts';
import type { WorkflowStatus } from '../workflows/workflow-store.ts';
import { runService, workflowStore } from '../composition/workflows.ts';
import { publishWorkflowDefinition } from '../composition/workflow-publishing.ts';

export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

type Command = (args: string[], output: CommandOutput) => Promise<number>;

const usage = `Usage: paperflow-admin <command>

  workspaces create --name <name> [--id <ws_id>]
  workspaces list
  keys create --workspace <ws_id> --name <name> --scopes <scope,scope|*> [--rate <req/s> --burst <n>]
  keys list --workspace <ws_id>
  keys revoke <key_id>
  config apply <file.yaml|file.json> --workspace <ws_id>
  config show --workspace <ws_id>
  extractions reprocess <ext_id> [--workspace <ws_id>]
  feedback export --workspace <ws_id> --out <dir>
  workflows publish <file.yaml|file.json> --workspace <ws_id>
  workflows list --workspace <ws_id>
  workflows show <wf_id> --workspace <ws_id>
  workflows disable|enable <wf_id> --workspace <ws_id>
  runs close <run_id> --workspace <ws_id>

Resources: a deployed stack through PAPERFLOW_TABLE_NAME (and the other PAPERFLOW_* stack outputs,
including PAPERFLOW_USAGE_PLAN_ID, PAPERFLOW_REST_API_ID and PAPERFLOW_API_STAGE for per-key rate limits)
with your AWS credentials; otherwise the running local stack found in PAPERFLOW_DATA_DIR (default .paperflow).`;

const commands: Record<string, Command> = {
  'workspaces create': async (args, output) => {
    const { values } = parseArgs({ args, options: { name: { type: 'string' }, id: { type: 'string' } } });
    if (!values.name) return fail(output, '--name is required.');
    if (values.id !== undefined && !isWorkspaceId(values.id)) {
      return fail(output, `--id ${JSON.stringify(values.id)} is not a workspace id: ws_ and then 1 to 64 of A-Z a-z 0-9 _ -.`);
    }
    // Creating again with the same name is a no-op success, so scripts can run it on every deploy.
    const workspace = await workspaceStore().ensure({
      id: values.id ?? newIdentifier('ws'),
      name: values.name,
      createdAt: new Date().toISOString(),
    });
    if (workspace.name !== values.name) {
      return fail(output, `Workspace ${workspace.id} already exists, named ${JSON.stringify(workspace.name)}; nothing was changed.`);
    }
    output.out(JSON.stringify(workspace));
    return 0;
  },
  'workspaces list': async (_args, output) => {
    for (const workspace of await workspaceStore().list()) output.out(JSON.stringify(workspace));
    return 0;
  },
  'keys create': async (args, output) => {
    const { values } = parseArgs({
      args,
      options: {
        workspace: { type: 'string' },
        name: { type: 'string' },
        scopes: { type: 'string' },
        rate: { type: 'string' },
        burst: { type: 'string' },
      },
    });
    if (!values.workspace || !values.name || !values.scopes) return fail(output, '--workspace, --name and --scopes are required.');
    const rateLimit = parseRateLimit(values.rate, values.burst);
    if (rateLimit === 'invalid') return fail(output, '--rate and --burst go together, as positive whole numbers.');
    const { secret, record } = await apiKeyService(usagePlanRegistryFromEnvironment(process.env)).create({
      workspaceId: values.workspace,
      name: values.name,
      scopes: values.scopes.split(',').map((scope) => scope.trim()).filter(Boolean),
      ...(rateLimit ? { rateLimit } : {}),
    });
    output.out(JSON.stringify({ ...record, apiKey: secret }));
    output.err('Store the apiKey now: it is shown only this once.');
    return 0;
  },
  'keys list': async (args, output) => {
    const { values } = parseArgs({ args, options: { workspace: { type: 'string' } } });
    if (!values.workspace) return fail(output, '--workspace is required.');
    if (!(await workspaceExists(values.workspace))) return failNoWorkspace(output, values.workspace);
    for (const key of await apiKeyService().list(values.workspace)) output.out(JSON.stringify(key));
    return 0;
  },
  'keys revoke': async (args, output) => {
    const { positionals } = parseArgs({ args, allowPositionals: true });
    const keyId = positionals[0];
    if (!keyId) return fail(output, 'Name the key id: keys revoke <key_id>.');
    if (!(await apiKeyService().revoke(keyId))) return fail(output, `No key ${keyId} exists.`);
    output.out(JSON.stringify({ keyId, revoked: true }));
    return 0;
  },
  'config apply': async (args, output) => {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
    const file = positionals[0];
    if (!file || !values.workspace) return fail(output, 'Usage: config apply <file> --workspace <ws_id>.');
    if (!(await workspaceExists(values.workspace))) return failNoWorkspace(output, values.workspace);
    const format = extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
    const result = await extractionConfigurationStore().apply(values.workspace, await readFile(file, 'utf8'), format);
    if (!result.ok) {
      // Every problem, so the operator fixes the file in one go; the stored configuration is unchanged.
      for (const problem of result.problems) output.err(`${problem.path || '(document)'}: ${problem.message}`);
      return fail(output, `The configuration has ${result.problems.length} problem(s); nothing was applied.`);
    }
    output.out(JSON.stringify({ workspaceId: values.workspace, appliedAt: result.stored.appliedAt, documentTypes: result.stored.configuration.documentTypes.length }));
    return 0;
  },
  'config show': async (args, output) => {
    const { values } = parseArgs({ args, options: { workspace: { type: 'string' } } });
    if (!values.workspace) return fail(output, '--workspace is required.');
    if (!(await workspaceExists(values.workspace))) return failNoWorkspace(output, values.workspace);
    const stored = await extractionConfigurationStore().get(values.workspace);
    if (stored.isDefault) output.err('No configuration applied: the default (prebuilt invoice and receipt) is in force.');
    output.out(stored.source ?? JSON.stringify(stored.configuration, null, 2));
    return 0;
  },
  'extractions reprocess': async (args, output) => {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
    const extractionId = positionals[0];
    if (!extractionId) return fail(output, 'Name the extraction: extractions reprocess <ext_id>.');
    output.out(JSON.stringify(await reprocessExtraction(values.workspace, extractionId)));
    return 0;
  },
  // The corrected documents as a labelled set in the corpus format (feedback-export.ts).
  'feedback export': async (args, output) => {
    const { values } = parseArgs({ args, options: { workspace: { type: 'string' }, out: { type: 'string' } } });
    if (!values.workspace || !values.out) return fail(output, 'Usage: feedback export --workspace <ws_id> --out <dir>.');
    if (!(await workspaceExists(values.workspace))) return failNoWorkspace(output, values.workspace);
    const plan = planLabelledSet(values.workspace, await contentCorrections().ofWorkspace(values.workspace));
    const documents = extractionDocuments();
    const out = resolve(values.out);
    let written = 0;
    for (const document of plan.documents) {
      const file = await documents.find(values.workspace, document.fileId);
      if (!file || file.status !== 'ready') {
        plan.skipped.push({ sha256: document.sha256, reason: `its file ${document.fileId} is gone (files are staged for 30 days)` });
        continue;
      }
      const path = join(out, document.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, await documents.read(file));
      await writeFile(`${path}.expected.json`, `${JSON.stringify(document.labels, null, 1)}\n`);
      if (document.rows) await writeFile(`${path}.rows.json`, `${JSON.stringify(document.rows, null, 1)}\n`);
      written += 1;
    }
    for (const skipped of plan.skipped) output.err(`skipped document ${skipped.sha256}: ${skipped.reason}`);
    if (written === 0) output.err(`No corrected documents to export in workspace ${values.workspace}.`);
    else output.err(`Measure the engine on them: PAPERFLOW_CORPUS_DIR=${out} npm run eval:corpus -- --no-scans`);
    output.out(JSON.stringify({ workspaceId: values.workspace, out, documents: written, skipped: plan.skipped.length }));
    return 0;
  },
  'workflows publish': async (args, output) => {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
    const file = positionals[0];
    if (!file || !values.workspace) return fail(output, 'Usage: workflows publish <file> --workspace <ws_id>.');
    if (!(await workspaceExists(values.workspace))) return failNoWorkspace(output, values.workspace);
    const format = extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
    const result = await publishWorkflowDefinition(values.workspace, await readFile(file, 'utf8'), format);
    if (!result.ok) {
      for (const problem of result.problems) output.err(`${problem.path || '(document)'}: ${problem.message}`);
      return fail(output, `The definition has ${result.problems.length} problem(s); nothing was published.`);
    }
    output.out(JSON.stringify({ workflowId: result.workflowId, version: result.version }));
    return 0;
  },
  'workflows list': async (args, output) => {
    const { values } = parseArgs({ args, options: { workspace: { type: 'string' } } });
    if (!values.workspace) return fail(output, '--workspace is required.');
    if (!(await workspaceExists(values.workspace))) return failNoWorkspace(output, values.workspace);
    const workflows = await workflowStore().list(values.workspace);
    // On stderr, so stdout stays one JSON line per workflow (none) for scripts.
    if (workflows.length === 0) output.err(`No workflows in workspace ${values.workspace} (paperflow-admin workflows publish <file> --workspace ${values.workspace} adds one).`);
    for (const workflow of workflows) output.out(JSON.stringify(workflow));
    return 0;
  },
  'workflows show': async (args, output) => {
    const target = await workflowTarget(args, output, 'show');
    if (typeof target === 'number') return target;
    const store = workflowStore();
    const [workflow, latest] = await Promise.all([store.get(target.workspaceId, target.workflowId), store.latestVersion(target.workspaceId, target.workflowId)]);
    if (!workflow || !latest) return failNoWorkflow(output, target);
    output.out(JSON.stringify({ ...workflow, version: latest.version, publishedAt: latest.publishedAt, definition: latest.definition }, null, 2));
    return 0;
  },
  'workflows disable': (args, output) => setWorkflowStatus(args, output, 'disabled'),
  'workflows enable': (args, output) => setWorkflowStatus(args, output, 'enabled'),
  // Stops the execution: the run (and its nested runs in flight) ends CLOSED, with workflow.run.failed.
  'runs close': async (args, output) => {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
    const runId = positionals[0];
    if (!runId || !values.workspace) return fail(output, 'Usage: runs close <run_id> --workspace <ws_id>.');
    if (!(await workspaceExists(values.workspace))) return failNoWorkspace(output, values.workspace);
    output.out(JSON.stringify(await runService().closeRun(values.workspace, runId)));
    return 0;
  },
};

async function setWorkflowStatus(args: string[], output: CommandOutput, status: WorkflowStatus): Promise<number> {
  const target = await workflowTarget(args, output, status === 'enabled' ? 'enable' : 'disable');
  if (typeof target === 'number') return target;
  const workflow = await workflowStore().setStatus(target.workspaceId, target.workflowId, status);
  if (!workflow) return failNoWorkflow(output, target);
  output.out(JSON.stringify(workflow));
  return 0;
}

/** `<wf_id> --workspace <ws_id>`, both checked; an exit code when they name nothing. */
async function workflowTarget(args: string[], output: CommandOutput, verb: string): Promise<{ workspaceId: string; workflowId: string } | number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
  const workflowId = positionals[0];
  if (!workflowId || !values.workspace) return fail(output, `Usage: workflows ${verb} <wf_id> --workspace <ws_id>.`);
  if (!(await workspaceExists(values.workspace))) return failNoWorkspace(output, values.workspace);
  // A malformed id names no workflow, and is never sent to the store (key length limits).
  if (!isWorkflowId(workflowId)) return failNoWorkflow(output, { workspaceId: values.workspace, workflowId });
  return { workspaceId: values.workspace, workflowId };
}

function failNoWorkflow(output: CommandOutput, target: { workspaceId: string; workflowId: string }): number {
  return fail(output, `Workflow ${target.workflowId} does not exist in workspace ${target.workspaceId} (paperflow-admin workflows list shows those that do).`);
}

/** `--help` or `-h` anywhere: the usage of the group named first (`workflows --help`), or all of it. */
export function wantsHelp(argv: string[]): boolean {
  return argv.length === 0 || argv.includes('--help') || argv.includes('-h');
}

function usageOf(group: string | undefined): string {
  const lines = usage.split('\n');
  const groupLines = lines.filter((line) => line.startsWith(`  ${group} `));
  return groupLines.length === 0 ? usage : ['Usage: paperflow-admin <command>', '', ...groupLines].join('\n');
}

/** Runs one admin command; returns the process exit code. Errors become a message, never a stack. */
export async function runAdminCommand(argv: string[], output: CommandOutput): Promise<number> {
  if (argv.length > 0 && wantsHelp(argv)) {
    output.out(usageOf(argv[0]));
    return 0;
  }
  const name = argv.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) {
    output.err(usage);
    return argv.length === 0 || argv[0] === '--help' ? 0 : 2;
  }
  try {
    return await command(argv.slice(2), output);
  } catch (error) {
    return fail(output, (error as Error).message);
  }
}

/** Deployed resources when their variables are set; otherwise the running local stack's. */
export async function connectToResources(output: CommandOutput): Promise<boolean> {
  if (process.env[theResource(resources, 'table').environmentVariable]) return true;
  const dataDir = resolve(process.env.PAPERFLOW_DATA_DIR ?? '.paperflow');
  const connection = await readLocalStackConnection(dataDir);
  if (!connection) {
    output.err(`No running local stack in ${dataDir} (start it with npm start), and ${theResource(resources, 'table').environmentVariable} is not set for a deployed one.`);
    return false;
  }
  useLocalStackConnection(connection);
  return true;
}

function parseRateLimit(rate: string | undefined, burst: string | undefined) {
  if (rate === undefined && burst === undefined) return undefined;
  const requestsPerSecond = Number(rate);
  const burstSize = Number(burst);
  if (!Number.isInteger(requestsPerSecond) || !Number.isInteger(burstSize) || requestsPerSecond < 1 || burstSize < 1) return 'invalid' as const;
  return { requestsPerSecond, burst: burstSize };
}

/** A malformed id names no workspace either, and is never sent to the store (key length limits). */
async function workspaceExists(workspaceId: string): Promise<boolean> {
  return isWorkspaceId(workspaceId) && (await workspaceStore().get(workspaceId)) !== undefined;
}

function failNoWorkspace(output: CommandOutput, workspaceId: string): number {
  return fail(output, `Workspace ${workspaceId} does not exist (paperflow-admin workspaces list shows those that do).`);
}

function fail(output: CommandOutput, message: string): number {
  output.err(`paperflow-admin: ${message}`);
  return 1;
}
