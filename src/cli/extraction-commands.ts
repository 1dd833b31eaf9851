import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { oneOf, parseDateTime, parseLabel, parseLabelFilter, parsePageNumber, parsePageSize } from './argument-parsing.ts';
import { UnsuccessfulOutcomeError, UsageError } from './cli-errors.ts';
import { pollUntilTerminal, type CommandContext } from './command-context.ts';
import { multipartBody } from './multipart-body.ts';
import { multipartRequest } from './api-client.ts';
import type { ListedItem, QueryOf, ResponseBody } from '../client/api-answers.ts';
import { UploadProgress } from './progress-display.ts';
import { cellText, regularNoun, type TableColumn } from './table-format.ts';

// `paperflow extract` and `paperflow extractions …`: the Extraction endpoints of the spec.

const extractionStatuses = ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'] as const;
const terminalStatuses = new Set(['COMPLETED', 'FAILED', 'REJECTED']);
const waitIntervalMs = 1000;

/** An extraction as GET /document-insights/extractions/{extractionId} answers it (the typed client's type). */
export type Extraction = ResponseBody<'/document-insights/extractions/{extractionId}', 'get'>;
type ExtractedField = NonNullable<Extraction['output']>['fields'][number];
type ListedExtraction = ListedItem<'/document-insights/extractions'>;
type TableRowValues = Record<string, unknown>;

/** What a reader of the output should use: a reviewer's corrected value where there is one. */
function valueInForce(field: ExtractedField): unknown {
  return 'correctedValue' in field ? field.correctedValue : field.value;
}

function isTableField(field: ExtractedField): field is ExtractedField & { value: TableRowValues[] } {
  return field.type === 'table' && Array.isArray(valueInForce(field));
}

function valueText(field: ExtractedField): unknown {
  const value = valueInForce(field);
  const shown = Array.isArray(value) ? `${value.length} row${value.length === 1 ? '' : 's'} (below)` : value;
  if (!('correctedValue' in field)) return shown;
  const read = Array.isArray(field.value) ? `${field.value.length} rows` : JSON.stringify(field.value ?? null);
  return `${value === null ? '(not on the document)' : cellText(shown)} (corrected; read ${read})`;
}

export const fieldColumns: TableColumn<ExtractedField>[] = [
  { header: 'FIELD', value: (field) => field.name },
  // A table's rows are printed under the fields, one table each.
  { header: 'VALUE', value: valueText },
  { header: 'TYPE', value: (field) => field.type },
  { header: 'CONFIDENCE', value: (field) => field.metadata?.confidence?.toFixed(2), alignRight: true },
  { header: 'PAGE', value: (field) => field.metadata?.page, alignRight: true },
  { header: 'FIELD ID', value: (field) => field.id },
];

const extractionColumns: TableColumn<ListedExtraction>[] = [
  { header: 'ID', value: (extraction) => extraction.id },
  { header: 'STATUS', value: (extraction) => extraction.status },
  { header: 'CREATED', value: (extraction) => extraction.createdAt },
  { header: 'FILE', value: (extraction) => extraction.document?.fileName },
  { header: 'REVIEW', value: (extraction) => (extraction.reviewRequired ? 'required' : '') },
  { header: 'LABELS', value: (extraction) => labelText(extraction.labels) },
];

function labelText(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

/** An extraction as a person reads it: one status line, the error or the fields. */
export function printExtraction(context: CommandContext, extraction: Extraction): void {
  const file = extraction.document?.fileName ? `  ${extraction.document.fileName}` : '';
  const review = extraction.reviewRequired ? `  ${context.paint('yellow', 'review required')}` : '';
  context.out(`${context.paint('bold', extraction.id)}  ${context.status(extraction.status)}${file}${review}`);
  const labels = labelText(extraction.labels);
  if (labels) context.out(`labels: ${labels}`);
  if (extraction.error) context.out(`${context.paint('red', extraction.error.code)}: ${extraction.error.message}`);
  if (extraction.output) {
    if (extraction.output.fields.length === 0) context.out('No fields.');
    else context.table(fieldColumns, extraction.output.fields);
    for (const field of extraction.output.fields.filter(isTableField)) printTableField(context, field);
  }
}

/** A table field's rows as a table of their own: the columns any row has, then each row's confidence and page. */
function printTableField(context: CommandContext, table: ExtractedField): void {
  const field = { ...table, value: valueInForce(table) as TableRowValues[] };
  context.out('');
  context.out(context.paint('bold', `${field.name} (${field.value.length} row${field.value.length === 1 ? '' : 's'})`));
  if (field.value.length === 0) return;
  const names = [...new Set(field.value.flatMap((row) => Object.keys(row)))];
  const rows = field.value.map((values, index) => ({ values, metadata: field.metadata?.rows?.[index] }));
  const columns: TableColumn<(typeof rows)[number]>[] = [
    ...names.map((name) => ({ header: name.toUpperCase(), value: (row: (typeof rows)[number]) => row.values[name], alignRight: field.value.some((values) => typeof values[name] === 'number') })),
    { header: 'CONFIDENCE', value: (row) => row.metadata?.confidence?.toFixed(2), alignRight: true },
    { header: 'PAGE', value: (row) => row.metadata?.page, alignRight: true },
  ];
  context.table(columns, rows);
}

async function readExtraction(context: CommandContext, extractionId: string): Promise<Extraction> {
  return (await context.client()).call((api) => api.GET('/document-insights/extractions/{extractionId}', { params: { path: { extractionId } } }));
}

/** Polls the extraction until COMPLETED, FAILED or REJECTED, with a spinner on a terminal. */
export function waitForExtraction(context: CommandContext, extractionId: string): Promise<Extraction> {
  return pollUntilTerminal(context, () => readExtraction(context, extractionId), (status) => terminalStatuses.has(status), (current) => `Waiting for ${current.id} (${current.status})`, waitIntervalMs);
}

/**
 * The id of the field `--field` names: a field id as `extractions get` prints it, or a field's name.
 * A name two fields share (a repeated field) is refused with their ids, so feedback never lands on a guess.
 */
export function fieldIdNamed(extraction: { id: string; output?: { fields: { id: string; name: string }[] } }, nameOrId: string): string {
  const fields = extraction.output?.fields ?? [];
  if (fields.some((field) => field.id === nameOrId)) return nameOrId;
  const named = fields.filter((field) => field.name === nameOrId);
  if (named.length === 1) return named[0]!.id;
  if (named.length > 1) throw new UsageError(`${extraction.id} has ${named.length} fields named ${nameOrId}; give one of their ids: ${named.map((field) => field.id).join(', ')}.`);
  const known = [...new Set(fields.map((field) => field.name))];
  const listing = known.length > 0 ? `its fields are ${known.join(', ')}` : 'it has no fields';
  throw new UsageError(`${extraction.id} has no field named or with the id ${nameOrId}: ${listing}.`);
}

const numericFieldTypes = new Set(['amount', 'number', 'integer']);

/**
 * The value `--value` gives, typed as the field's type says, since the shell hands every argument over
 * as text: a number for amount, number and integer fields, true/false for a boolean, a JSON list of rows
 * for a table; any other type as the text itself. Text that does not read as the type is sent as it is,
 * so the API's 422 names what is wrong with it rather than the CLI guessing.
 */
export function correctedValueFromText(field: { name: string; type: string }, text: string): unknown {
  if (numericFieldTypes.has(field.type)) {
    const number = Number(text.trim());
    return text.trim() !== '' && Number.isFinite(number) ? number : text;
  }
  if (field.type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (field.type === 'table') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new UsageError(`${field.name} is a table: give --value as a JSON list of rows, e.g. '[{"description":"Paper","amount":12.5}]'.`);
    }
  }
  return text;
}

/** The field `--field` names, with its type: the extraction's output has both. */
function fieldNamed(extraction: Extraction, nameOrId: string): ExtractedField {
  const id = fieldIdNamed(extraction, nameOrId);
  return extraction.output!.fields.find((field) => field.id === id)!;
}

const isUrl = (source: string) => /^https?:\/\//i.test(source);

async function startExtraction(context: CommandContext, source: string, labels: Record<string, string> | undefined) {
  const client = await context.client();
  if (isUrl(source)) {
    return client.create((api, headers) => api.POST('/document-insights/extractions', { body: { document: { url: source }, ...(labels ? { labels } : {}) }, params: { header: headers } }));
  }
  const file = await stat(source).catch(() => undefined);
  if (!file?.isFile()) throw new UsageError(`No file at ${source} (give a file path or an http(s) URL).`);
  const body = multipartBody([
    { name: 'file', filePath: source, fileName: basename(source), size: file.size },
    ...(labels ? [{ name: 'labels', text: JSON.stringify(labels), contentType: 'application/json' }] : []),
  ]);
  const progress = new UploadProgress(context.io.stderr, `Uploading ${basename(source)}`);
  try {
    return await client.create((api, headers) =>
      api.POST('/document-insights/extractions/upload', { ...multipartRequest(body, (sent, total) => progress.update(sent, total)), params: { header: headers } }),
    );
  } finally {
    progress.done();
  }
}

export function addExtractionCommands(program: Command, context: CommandContext): void {
  program
    .command('extract')
    .description('Extract the fields of a document: a local file (uploaded) or an http(s) URL the service downloads.')
    .argument('<file|url>', 'a file path, or a URL')
    .option('--label <key=value>', 'a label of the extraction (repeatable); docType=<type> forces the document type', parseLabel)
    .option('--wait', 'wait until the extraction ends and print its fields')
    .option('--json', 'print the extraction as JSON')
    .addHelpText('after', '\nWithout --wait it prints the new extraction (QUEUED); with --wait it exits 1 when the extraction ends FAILED or REJECTED.')
    .action(async (source: string, options: { label?: Record<string, string>; wait?: boolean; json?: boolean }) => {
      const started = await startExtraction(context, source, options.label);
      const extraction = options.wait ? await waitForExtraction(context, started.id) : started;
      if (options.json) context.json(extraction);
      else printExtraction(context, extraction);
      if (options.wait && extraction.status !== 'COMPLETED') throw new UnsuccessfulOutcomeError(`The extraction ended ${extraction.status}.`);
    });

  const extractions = program.command('extractions').description('List, read, give feedback on and delete extractions.');

  extractions
    .command('list')
    .description('List extractions, newest first (no fields: get one for those).')
    .option('--status <status>', `only this status: ${extractionStatuses.join(', ')}`, oneOf(extractionStatuses))
    .option('--label <key=value>', 'only those with this label (repeatable, all must match; key= matches any value)', parseLabelFilter)
    .option('--from <datetime>', 'created at or after (ISO 8601)', parseDateTime)
    .option('--to <datetime>', 'created at or before (ISO 8601)', parseDateTime)
    .option('--sort-by <field>', 'createdAt, updatedAt or completedAt', oneOf(['createdAt', 'updatedAt', 'completedAt']))
    .option('--sort <order>', 'asc or desc', oneOf(['asc', 'desc']))
    .option('--page <n>', 'page number, from 0', parsePageNumber)
    .option('--size <n>', 'items per page, 1 to 100', parsePageSize)
    .option('--json', 'print the API answer as JSON')
    .action(async (options: Omit<QueryOf<'/document-insights/extractions'>, 'labels'> & { label?: Record<string, string>; json?: boolean }) => {
      const { status, from, to, sortBy, sort, page, size } = options;
      const query = { status, from, to, sortBy, sort, page, size, labels: options.label };
      const body = await (await context.client()).call((api) => api.GET('/document-insights/extractions', { params: { query } }));
      if (options.json) context.json(body);
      else context.list(body, extractionColumns, regularNoun('extraction'));
    });

  extractions
    .command('get')
    .description('Show an extraction and its fields.')
    .argument('<extractionId>')
    .option('--json', 'print the extraction as JSON')
    .action(async (extractionId: string, options: { json?: boolean }) => {
      const extraction = await readExtraction(context, extractionId);
      if (options.json) context.json(extraction);
      else printExtraction(context, extraction);
    });

  extractions
    .command('feedback')
    .description('Give feedback on an extraction or one of its fields; ERROR marks it for review.')
    .argument('<extractionId>')
    .requiredOption('--message <text>', 'the feedback, at most 1024 characters')
    .option('--type <type>', 'ERROR (default: needs correction and review) or INFO (a note)', oneOf(['ERROR', 'INFO']))
    .option('--field <name|fieldId>', 'the field it is about: its name (total_amount) or its FIELD ID of `extractions get`; omit for the whole document')
    .option('--value <value>', 'with --field: the right value, typed as the field (279.84, 2024-03-15, EUR; a table as a JSON list of rows); the output then shows it as correctedValue')
    .option('--clear-value', 'with --field: the document does not show this field (corrects it to null)')
    .option('--json', 'print the feedback as JSON')
    .addHelpText('after', '\nExample: paperflow extractions feedback ext_… --field total_amount --value 279.84 --message "total misread"')
    .action(async (extractionId: string, options: { message: string; type?: 'ERROR' | 'INFO'; field?: string; value?: string; clearValue?: boolean; json?: boolean }) => {
      const correcting = options.value !== undefined || options.clearValue === true;
      if (correcting && options.field === undefined) throw new UsageError('--value and --clear-value correct one field: name it with --field.');
      if (options.value !== undefined && options.clearValue) throw new UsageError('Give either --value or --clear-value, not both.');
      const field = options.field === undefined ? undefined : fieldNamed(await readExtraction(context, extractionId), options.field);
      const correctedValue = !field || !correcting ? undefined : options.clearValue ? null : correctedValueFromText(field, options.value!);
      const body = await (await context.client()).call((api) =>
        api.POST('/document-insights/extractions/{extractionId}/feedback', {
          params: { path: { extractionId } },
          body: { message: options.message, ...(options.type ? { type: options.type } : {}), ...(field ? { fieldId: field.id } : {}), ...(correcting ? { correctedValue } : {}) },
        }),
      );
      if (options.json) context.json(body);
      else context.out(`Feedback ${body.id} (${body.type}) recorded on ${extractionId}${body.fieldId ? `, field ${body.fieldId}` : ''}${correcting ? `, corrected to ${JSON.stringify(correctedValue)}` : ''}.`);
    });

  extractions
    .command('delete')
    .description('Delete a finished extraction and its stored output, permanently.')
    .argument('<extractionId>')
    .action(async (extractionId: string) => {
      await (await context.client()).call((api) => api.DELETE('/document-insights/extractions/{extractionId}', { params: { path: { extractionId } } }));
      context.out(`Deleted ${extractionId}.`);
    });
}
