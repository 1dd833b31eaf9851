import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { oneOf, parseDateTime, parseFileArgument, parseJsonArgument, parsePageNumber, parsePageSize, type FileArgument } from './argument-parsing.ts';
import { UnsuccessfulOutcomeError, UsageError } from './cli-errors.ts';
import { pollUntilTerminal, type CommandContext } from './command-context.ts';
import { multipartBody, type MultipartPart } from './multipart-body.ts';
import { multipartRequest } from './api-client.ts';
import type { ListedItem, QueryOf, ResponseBody } from '../client/api-answers.ts';
import { UploadProgress } from './progress-display.ts';
import { regularNoun, type TableColumn } from './table-format.ts';

// `paperflow runs …`: start a published workflow (paperflow-admin workflows publish) and follow its runs.

const runStatuses = ['PROCESSING', 'COMPLETED', 'FAILED', 'CLOSED'] as const;
const terminalStatuses = new Set(['COMPLETED', 'FAILED', 'CLOSED']);
const waitIntervalMs = 1000;

/** A run as GET /workflow-runs/{runId} answers it (the typed client's type). */
export type WorkflowRun = ResponseBody<'/workflow-runs/{runId}', 'get'>;
type RunStep = NonNullable<WorkflowRun['steps']>[number];
type ListedRun = ListedItem<'/workflow-runs'>;

const stepColumns: TableColumn<RunStep>[] = [
  { header: 'STEP', value: (step) => step.id },
  { header: 'TYPE', value: (step) => step.type },
  { header: 'STATUS', value: (step) => step.status },
  { header: 'NESTED', value: (step) => step.nestedRuns?.count, alignRight: true },
  { header: 'OUTPUT / MESSAGE', value: (step) => step.message ?? step.output },
];

const runColumns: TableColumn<ListedRun>[] = [
  { header: 'ID', value: (run) => run.id },
  { header: 'STATUS', value: (run) => run.status },
  { header: 'WORKFLOW', value: (run) => run.workflow.id },
  { header: 'CREATED', value: (run) => run.createdAt },
  { header: 'STEPS', value: (run) => (run.progress ? `${run.progress.stepsCompleted}/${run.progress.stepsTotal}` : ''), alignRight: true },
  { header: 'DURATION', value: (run) => (run.durationMs === undefined ? '' : `${run.durationMs} ms`), alignRight: true },
];

function printRun(context: CommandContext, run: WorkflowRun): void {
  const duration = run.durationMs === undefined ? '' : `  ${run.durationMs} ms`;
  const redriven = run.redriveCount ? `  redriven ${run.redriveCount}×` : '';
  context.out(`${context.paint('bold', run.id)}  ${context.status(run.status)}  ${run.workflow.name} (${run.workflow.id})${duration}${redriven}`);
  if (run.error) context.out(`${context.paint('red', run.error.code)}: ${run.error.message}`);
  if (run.steps && run.steps.length > 0) context.table(stepColumns, run.steps);
}

/** A run just started or redriven: printed as it is, or (--wait) once it has ended, exit 1 unless COMPLETED. */
async function showRun(context: CommandContext, started: WorkflowRun, options: { wait?: boolean; json?: boolean }): Promise<void> {
  const run = options.wait ? await waitForRun(context, started.id) : started;
  if (options.json) context.json(run);
  else printRun(context, run);
  if (options.wait && run.status !== 'COMPLETED') throw new UnsuccessfulOutcomeError(`The run ended ${run.status}.`);
}

async function readRun(context: CommandContext, runId: string): Promise<WorkflowRun> {
  return (await context.client()).call((api) => api.GET('/workflow-runs/{runId}', { params: { path: { runId } } }));
}

/** Polls the run until COMPLETED, FAILED or CLOSED, with a spinner on a terminal. */
export function waitForRun(context: CommandContext, runId: string): Promise<WorkflowRun> {
  return pollUntilTerminal(context, () => readRun(context, runId), (status) => terminalStatuses.has(status), (current) => `Waiting for ${current.id} (${current.status})`, waitIntervalMs);
}

/**
 * The run input: `--data` alone is the JSON body. With `--file`, the request is multipart: each file a
 * file part, and `--data` (then a JSON object) one JSON part per property, so that `body.<name>` holds
 * the same value either way.
 */
async function runInputParts(data: unknown, files: FileArgument[]): Promise<MultipartPart[]> {
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data))) {
    throw new UsageError('With --file, --data must be a JSON object: each property is sent as a JSON part of that name.');
  }
  const fileParts = await Promise.all(
    files.map(async (file) => {
      const found = await stat(file.path).catch(() => undefined);
      if (!found?.isFile()) throw new UsageError(`No file at ${file.path} (--file ${file.name}=@${file.path}).`);
      return { name: file.name, filePath: file.path, fileName: basename(file.path), size: found.size };
    }),
  );
  const jsonParts = Object.entries((data ?? {}) as Record<string, unknown>).map(([name, value]) => ({ name, text: JSON.stringify(value), contentType: 'application/json' }));
  return [...jsonParts, ...fileParts];
}

export function addRunCommands(program: Command, context: CommandContext): void {
  const runs = program.command('runs').description('Start workflow runs and follow them.');

  runs
    .command('start')
    .description('Start a run of a published workflow.')
    .argument('<workflowId>', 'the workflow, wf_…')
    .option('--data <json>', 'the run input (body in the workflow), any JSON', parseJsonArgument)
    .option('--file <name=@path>', 'a file part: body.<name> in the workflow is a list of file nodes (repeatable)', parseFileArgument)
    .option('--wait', 'wait until the run ends and print its steps')
    .option('--json', 'print the run as JSON')
    .addHelpText('after', '\nWith --wait it exits 1 when the run ends FAILED or CLOSED.')
    .action(async (workflowId: string, options: { data?: unknown; file?: FileArgument[]; wait?: boolean; json?: boolean }) => {
      const client = await context.client();
      const path = { workflowId };
      let run: WorkflowRun;
      if (options.file && options.file.length > 0) {
        const body = multipartBody(await runInputParts(options.data, options.file));
        const progress = new UploadProgress(context.io.stderr, 'Uploading');
        try {
          run = await client.create((api, header) =>
            api.POST('/workflows/{workflowId}/runs', { ...multipartRequest(body, (sent, total) => progress.update(sent, total)), params: { path, header } }),
          );
        } finally {
          progress.done();
        }
      } else {
        run = await client.create((api, header) => api.POST('/workflows/{workflowId}/runs', { body: options.data, params: { path, header } }));
      }
      await showRun(context, run, options);
    });

  runs
    .command('redrive')
    .description('Run a FAILED run again from where it failed: failed and skipped steps run again, completed ones keep their outputs (an extension of the API).')
    .argument('<runId>')
    .option('--wait', 'wait until the run ends again and print its steps')
    .option('--json', 'print the run as JSON')
    .addHelpText('after', '\nOnly a FAILED top-level run can be redriven (the API answers 409 CONFLICT otherwise). With --wait it exits 1 when the run ends FAILED or CLOSED again.')
    .action(async (runId: string, options: { wait?: boolean; json?: boolean }) => {
      const run = await (await context.client()).call((api) => api.POST('/workflow-runs/{runId}/redrive', { params: { path: { runId } } }));
      await showRun(context, run, options);
    });

  runs
    .command('get')
    .description('Show a run (or a nested run) with its steps.')
    .argument('<runId>')
    .option('--json', 'print the run as JSON, with every step output and nested run')
    .action(async (runId: string, options: { json?: boolean }) => {
      const run = await readRun(context, runId);
      if (options.json) context.json(run);
      else printRun(context, run);
    });

  runs
    .command('list')
    .description('List workflow runs, newest first.')
    .option('--status <status>', `only this status: ${runStatuses.join(', ')}`, oneOf(runStatuses))
    .option('--workflow <workflowId>', 'only runs of this workflow')
    .option('--from <datetime>', 'created at or after (ISO 8601)', parseDateTime)
    .option('--to <datetime>', 'created at or before (ISO 8601)', parseDateTime)
    .option('--sort-by <field>', 'createdAt, updatedAt or completedAt', oneOf(['createdAt', 'updatedAt', 'completedAt']))
    .option('--sort <order>', 'asc or desc', oneOf(['asc', 'desc']))
    .option('--page <n>', 'page number, from 0', parsePageNumber)
    .option('--size <n>', 'items per page, 1 to 100', parsePageSize)
    .option('--json', 'print the API answer as JSON')
    .action(async (options: Omit<QueryOf<'/workflow-runs'>, 'workflowId'> & { workflow?: string; json?: boolean }) => {
      const { status, from, to, sortBy, sort, page, size } = options;
      const query = { status, workflowId: options.workflow, from, to, sortBy, sort, page, size };
      const body = await (await context.client()).call((api) => api.GET('/workflow-runs', { params: { query } }));
      if (options.json) context.json(body);
      else context.list(body, runColumns, regularNoun('run'));
    });
}
