import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { eventTypes, type EventType } from '../events/event-envelope.ts';
import { parseJsonArgument } from './argument-parsing.ts';
import { UnsuccessfulOutcomeError, UsageError } from './cli-errors.ts';
import type { CommandContext } from './command-context.ts';
import { waitForExtraction, type Extraction } from './extraction-commands.ts';
import { multipartRequest } from './api-client.ts';
import { multipartBody } from './multipart-body.ts';
import { waitForRun, type WorkflowRun } from './run-commands.ts';

// `paperflow trigger <eventType>`, as Stripe's CLI has it: causes a real event of that type in the
// workspace of the key, through the public API only, so that `paperflow listen` (or a subscription)
// sees it arrive. Extraction events come from the samples in trigger-samples/, uploaded as any
// client uploads a file; run events from a run of the workflow named with --workflow.

type ExtractionEventType = Extract<EventType, `document-insights.${string}`>;
type RunEventType = Extract<EventType, `workflow.${string}`>;

interface ExtractionSample {
  fileName: string;
  contentType: string;
  /** What the sample is, said in --help and in the answer. */
  description: string;
  /**
   * Made unique for each trigger (a line added at the end), so that a workspace whose document type
   * rejects duplicate content still completes it.
   */
  unique: boolean;
}

const extractionSamples: Record<ExtractionEventType, ExtractionSample> = {
  'document-insights.extraction.completed': { fileName: 'invoice.txt', contentType: 'text/plain', description: 'a small invoice as plain text', unique: true },
  'document-insights.extraction.failed': {
    fileName: 'not-a-business-document.txt',
    contentType: 'text/plain',
    description: 'a poem no document type matches (DOCUMENT_NOT_ROUTED)',
    unique: false,
  },
  'document-insights.extraction.rejected': { fileName: 'cut-off.pdf', contentType: 'application/pdf', description: 'a PDF cut off after its first bytes (DOCUMENT_REJECTED)', unique: false },
};

const samplesFolder = new URL('./trigger-samples/', import.meta.url);

/** The event an extraction's terminal status records (spec, Event types). */
const extractionEventOfStatus: Record<string, ExtractionEventType> = {
  COMPLETED: 'document-insights.extraction.completed',
  FAILED: 'document-insights.extraction.failed',
  REJECTED: 'document-insights.extraction.rejected',
};

const runEventOfStatus = (status: string): RunEventType => (status === 'COMPLETED' ? 'workflow.run.completed' : 'workflow.run.failed');

const isRunEvent = (eventType: EventType): eventType is RunEventType => eventType.startsWith('workflow.');

/** The event type named: as the spec spells it, or an extraction event without `document-insights.`. */
export function triggeredEventType(name: string): EventType {
  const named = [name, `document-insights.${name}`].find((candidate) => (eventTypes as readonly string[]).includes(candidate));
  if (!named) throw new UsageError(`Unknown event type ${name}; the types are ${eventTypes.join(', ')}.`);
  return named as EventType;
}

async function sampleContent(sample: ExtractionSample): Promise<Uint8Array> {
  const bytes = await readFile(new URL(sample.fileName, samplesFolder));
  if (!sample.unique) return bytes;
  return Buffer.concat([bytes, Buffer.from(`\nSent by paperflow trigger ${randomUUID()}\n`)]);
}

/** Uploads the event type's sample with POST /document-insights/extractions/upload and waits for its end. */
async function triggerExtractionEvent(context: CommandContext, eventType: ExtractionEventType): Promise<Extraction> {
  const sample = extractionSamples[eventType];
  const body = multipartBody([
    // Labels first, so that the file is stored while it arrives (docs/extractions.md).
    { name: 'labels', text: JSON.stringify({ paperflowTrigger: eventType }), contentType: 'application/json' },
    { name: 'file', fileName: sample.fileName, content: await sampleContent(sample), contentType: sample.contentType },
  ]);
  const started = await (await context.client()).create((api, header) => api.POST('/document-insights/extractions/upload', { ...multipartRequest(body), params: { header } }));
  return waitForExtraction(context, started.id);
}

/** Starts a run of the workflow with POST /workflows/{workflowId}/runs and waits for its end. */
async function triggerRunEvent(context: CommandContext, workflowId: string, data: unknown): Promise<WorkflowRun> {
  const started = await (await context.client()).create((api, header) => api.POST('/workflows/{workflowId}/runs', { params: { path: { workflowId }, header }, body: data }));
  return waitForRun(context, started.id);
}

const triggerHelp = `
How each event is caused: a real extraction of a bundled sample (uploaded), or a real run, in the
workspace of the key, through the public API:
${Object.entries(extractionSamples)
  .map(([eventType, sample]) => `  ${eventType.padEnd(40)} ${sample.fileName}: ${sample.description}`)
  .join('\n')}
  ${'workflow.run.completed'.padEnd(40)} a run of --workflow (--data: its input); which
  ${'workflow.run.failed'.padEnd(40)} of the two it records depends on how the run ends
Extraction events may also be named without "document-insights." (extraction.completed).
It waits until the extraction or run has ended, prints it, and exits 1 when it ended otherwise than
the event type asks (the event recorded is then the other one). The key needs extractions:write and
extractions:read, or workflows:run and workflows:read. With \`paperflow listen\` running, the event
is forwarded within listen's --interval.`;

export function addTriggerCommand(program: Command, context: CommandContext): void {
  program
    .command('trigger')
    .description('Cause a real event of a type in the workspace (an extraction of a bundled sample, or a run), as `stripe trigger` does.')
    .argument('<eventType>', `one of ${eventTypes.join(', ')}`)
    .option('--workflow <workflowId>', 'for workflow.run.* events: the published workflow to run')
    .option('--data <json>', 'for workflow.run.* events: the run input (body in the workflow), any JSON', parseJsonArgument)
    .option('--json', 'print the extraction or run as JSON')
    .addHelpText('after', triggerHelp)
    .action(async (name: string, options: { workflow?: string; data?: unknown; json?: boolean }) => {
      const eventType = triggeredEventType(name);
      let resource: { id: string; status: string };
      let recorded: EventType;
      if (isRunEvent(eventType)) {
        if (!options.workflow) throw new UsageError(`${eventType} needs --workflow <workflowId>: the published workflow whose run records it.`);
        resource = await triggerRunEvent(context, options.workflow, options.data);
        recorded = runEventOfStatus(resource.status);
      } else {
        if (options.workflow !== undefined || options.data !== undefined) throw new UsageError(`--workflow and --data are for workflow.run.* events; ${eventType} uploads a bundled sample.`);
        resource = await triggerExtractionEvent(context, eventType);
        recorded = extractionEventOfStatus[resource.status]!;
      }
      const noun = isRunEvent(eventType) ? 'run' : 'extraction';
      if (options.json) context.json(resource);
      else context.out(`${context.paint('bold', recorded)}: ${noun} ${resource.id} ended ${context.status(resource.status)}.`);
      if (recorded !== eventType) throw new UnsuccessfulOutcomeError(`The ${noun} ended ${resource.status}, which records ${recorded}, not ${eventType}.`);
    });
}
