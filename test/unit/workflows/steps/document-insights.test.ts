import { beforeEach, describe, expect, it } from 'vitest';
import type { ExtractionView } from '../../../../src/extractions/extraction.ts';
import type { CreateExtractionRequest } from '../../../../src/extractions/extraction-service.ts';
import { ValidationError } from '../../../../src/platform/errors.ts';
import { StepFailedError } from '../../../../src/workflows/step-failures.ts';
import type { DocumentInsightsWait } from '../../../../src/workflows/steps/document-insights-waits.ts';
import { startDocumentInsightsStep, type DocumentInsightsDependencies } from '../../../../src/workflows/steps/document-insights.ts';
import { documentInsightsResumer } from '../../../../src/workflows/steps/document-insights-resume.ts';
import type { CallbackOutcome, TaskCallbacks } from '../../../../src/workflows/task-callbacks.ts';
import { rejectionOf } from '../../../support/rejections.ts';

// The step's own decisions, with the extraction service, the waits table and Step Functions as
// in-test doubles (test/integration/document-insights-step.test.ts runs the real ones).

class RecordingCallbacks implements TaskCallbacks {
  readonly answers: { taskToken: string; success?: unknown; error?: string; cause?: unknown }[] = [];
  async succeed(taskToken: string, output: unknown): Promise<CallbackOutcome> {
    this.answers.push({ taskToken, success: output });
    return 'answered';
  }
  async fail(taskToken: string, error: string, cause: string): Promise<CallbackOutcome> {
    this.answers.push({ taskToken, error, cause: JSON.parse(cause) });
    return 'answered';
  }
}

class FakeExtractions {
  readonly created: CreateExtractionRequest[] = [];
  statusAfterCreate: ExtractionView['status'] = 'QUEUED';
  knownFiles = new Set(['file_known']);

  async createExtraction(_workspaceId: string, request: CreateExtractionRequest): Promise<ExtractionView> {
    if (request.document.fileId && !this.knownFiles.has(request.document.fileId)) {
      throw new ValidationError([{ field: 'document.fileId', issue: 'No such file in this workspace.' }]);
    }
    this.created.push(request);
    return this.view();
  }

  async getExtraction(): Promise<ExtractionView> {
    return this.view();
  }

  private view(): ExtractionView {
    const completed = this.statusAfterCreate === 'COMPLETED';
    return {
      id: 'ext_1',
      status: this.statusAfterCreate,
      outputAvailable: completed,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      labels: {},
      document: {},
      ...(completed ? { output: { fieldCount: 1, fields: [{ id: 'fld_1', name: 'total', type: 'amount', value: 12, metadata: { extracted: true } }] } } : {}),
    };
  }
}

let extractions: FakeExtractions;
let waits: Map<string, DocumentInsightsWait>;
let stepExtractions: Map<string, string>;
let callbacks: RecordingCallbacks;
let dependencies: DocumentInsightsDependencies;

beforeEach(() => {
  extractions = new FakeExtractions();
  waits = new Map();
  stepExtractions = new Map();
  callbacks = new RecordingCallbacks();
  dependencies = {
    extractions,
    callbacks,
    waits: {
      remember: async (wait) => void waits.set(`${wait.workspaceId}/${wait.extractionId}`, wait),
      get: async (workspaceId, extractionId) => waits.get(`${workspaceId}/${extractionId}`),
      forget: async (workspaceId, extractionId) => void waits.delete(`${workspaceId}/${extractionId}`),
      rememberStepExtraction: async (started) => void stepExtractions.set(`${started.workspaceId}/${started.runId}/${started.stepId}`, started.extractionId),
      extractionOfStep: async (workspaceId, runId, stepId) => stepExtractions.get(`${workspaceId}/${runId}/${stepId}`),
    },
  };
});

const start = (evaluatedWith: unknown, attempt: { stepId?: string; taskToken?: string; redriveCount?: number } = {}) =>
  startDocumentInsightsStep(
    { workspaceId: 'ws_1', runId: 'run_1', stepId: attempt.stepId ?? 'read', evaluatedWith, taskToken: attempt.taskToken ?? 'token-1', ...(attempt.redriveCount ? { redriveCount: attempt.redriveCount } : {}) },
    dependencies,
  );

const stepFailureOf = (promise: Promise<unknown>) => rejectionOf(promise, StepFailedError);

describe('startDocumentInsightsStep', () => {
  it('starts an extraction of the one file a multipart part gives, with the user labels first and the run label', async () => {
    const result = await start({ file: [{ fileId: 'file_known', fileName: 'a.pdf', mimeType: 'application/pdf', size: 10 }], labels: { docType: 'invoice' } });

    expect(result).toEqual({ extractionId: 'ext_1' });
    expect(extractions.created).toEqual([{ document: { fileId: 'file_known' }, labels: { docType: 'invoice', workflowRunId: 'run_1' } }]);
    expect(waits.get('ws_1/ext_1')).toMatchObject({ runId: 'run_1', stepId: 'read', taskToken: 'token-1' });
    expect(callbacks.answers).toEqual([]);
  });

  it('takes a file node, a fileId or a url, and keeps a user label of the same name', async () => {
    await start({ file: { fileId: 'file_known' } }, { stepId: 'by-node' });
    await start({ fileId: 'file_known', labels: { workflowRunId: 'mine' } }, { stepId: 'by-id' });
    await start({ url: 'https://docs.example.com/a.pdf' }, { stepId: 'by-url' });

    expect(extractions.created.map((request) => request.document)).toEqual([{ fileId: 'file_known' }, { fileId: 'file_known' }, { url: 'https://docs.example.com/a.pdf' }]);
    expect(extractions.created[1]!.labels).toEqual({ workflowRunId: 'mine' });
  });

  it('waits on the extraction the step started when its start runs again (a retried Task, an execution run again after a restart), with the new token', async () => {
    await start({ fileId: 'file_known' }, { taskToken: 'token-1' });

    const again = await start({ fileId: 'file_known' }, { taskToken: 'token-2' });

    expect(again).toEqual({ extractionId: 'ext_1' });
    expect(extractions.created).toHaveLength(1);
    expect(waits.get('ws_1/ext_1')).toMatchObject({ stepId: 'read', taskToken: 'token-2' });
  });

  it('starts a new extraction under a redrive of the run, and waits on that one when the redrive\'s start runs again', async () => {
    await start({ fileId: 'file_known' }, { taskToken: 'token-1' });

    await start({ fileId: 'file_known' }, { taskToken: 'token-2', redriveCount: 1 });
    await start({ fileId: 'file_known' }, { taskToken: 'token-3', redriveCount: 1 });

    expect(extractions.created).toHaveLength(2);
    expect([...stepExtractions.keys()]).toEqual(['ws_1/run_1/read', 'ws_1/run_1/read#r1']);
    expect(waits.get('ws_1/ext_1')).toMatchObject({ stepId: 'read', taskToken: 'token-3' });
  });

  it('resumes the new token at once when the step\'s extraction ended before its start ran again', async () => {
    await start({ fileId: 'file_known' }, { taskToken: 'token-1' });
    extractions.statusAfterCreate = 'COMPLETED';

    await start({ fileId: 'file_known' }, { taskToken: 'token-2' });

    expect(extractions.created).toHaveLength(1);
    expect(callbacks.answers).toEqual([{ taskToken: 'token-2', success: expect.objectContaining({ extractionId: 'ext_1', status: 'COMPLETED' }) }]);
  });

  it('fails at once, leaving no token waiting, when the extraction is refused (unknown or foreign file)', async () => {
    const failure = await stepFailureOf(start({ fileId: 'file_of_another_workspace' }));

    expect(failure.message).toBe('document_insights could not start an extraction: document.fileId: No such file in this workspace.');
    expect(waits.size).toBe(0);
  });

  it('fails on an evaluated with that names no single document', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /exactly one of with\.file, with\.fileId and with\.url \(got 0\)/],
      [{ fileId: 'file_known', url: 'https://x.example/a.pdf' }, /\(got 2\)/],
      [{ file: [] }, /holds 0 files/],
      [{ file: [{ fileId: 'a' }, { fileId: 'b' }] }, /holds 2 files; a step extracts one/],
      [{ file: 'file_known' }, /with\.file must be a file node/],
      [{ fileId: 'file_known', labels: { a: 1 } }, /with\.labels\.a label values must be strings/],
      [null, /document_insights input is invalid/],
    ];
    for (const [evaluatedWith, message] of cases) expect((await stepFailureOf(start(evaluatedWith))).message).toMatch(message);
    expect(extractions.created).toEqual([]);
  });

  it('resumes at once an extraction that was already terminal when its wait was written', async () => {
    extractions.statusAfterCreate = 'COMPLETED';

    await start({ fileId: 'file_known' });

    expect(callbacks.answers).toEqual([
      { taskToken: 'token-1', success: { extractionId: 'ext_1', status: 'COMPLETED', fields: [expect.objectContaining({ name: 'total', value: 12 })], values: { total: 12 } } },
    ]);
    expect(waits.size).toBe(0);
  });
});

describe('the resumer on extraction terminal events', () => {
  const resumer = () => documentInsightsResumer(() => dependencies);
  const eventOf = (data: Record<string, unknown>) => ({
    workspaceId: 'ws_1',
    envelope: { eventId: 'evt_1', eventType: 'document-insights.extraction.failed' as const, occurredAt: '2026-01-01T00:00:00.000Z', apiVersion: 'v1' as const, data },
  });

  it('fails the waiting step with StepFailedError and the extraction in the cause, then forgets the wait', async () => {
    await start({ fileId: 'file_known' });

    await resumer().onEventRecorded(eventOf({ extractionId: 'ext_1', status: 'REJECTED', error: { code: 'DOCUMENT_REJECTED', message: 'The PDF is encrypted.' } }));

    expect(callbacks.answers).toEqual([
      {
        taskToken: 'token-1',
        error: 'StepFailedError',
        cause: { message: 'Extraction ext_1 ended REJECTED (DOCUMENT_REJECTED: The PDF is encrypted.).', output: { extractionId: 'ext_1', status: 'REJECTED' } },
      },
    ]);
    expect(waits.size).toBe(0);
  });

  it('ignores extractions no step waits for, and a second event for one already resumed', async () => {
    await resumer().onEventRecorded(eventOf({ extractionId: 'ext_unrelated', status: 'COMPLETED', output: { fields: [] } }));
    await start({ fileId: 'file_known' });
    const completed = eventOf({ extractionId: 'ext_1', status: 'COMPLETED', output: { fieldCount: 0, fields: [] } });
    await resumer().onEventRecorded(completed);
    await resumer().onEventRecorded(completed);

    expect(callbacks.answers).toEqual([{ taskToken: 'token-1', success: { extractionId: 'ext_1', status: 'COMPLETED', fields: [], values: {} } }]);
  });

  it('carries each field\'s value by name beside the list, whatever its type, a table\'s rows included', async () => {
    await start({ fileId: 'file_known' });
    const rows = [{ description: 'Desk', amount: 200 }, { description: 'Chair', amount: 62.9 }];
    const fields = [
      { id: 'fld_1', name: 'invoice_number', type: 'string', value: 'INV/2023/03/0008', metadata: { extracted: true } },
      { id: 'fld_2', name: 'total_amount', type: 'amount', value: 279.84, metadata: { extracted: true } },
      { id: 'fld_3', name: 'due_date', type: 'date', value: null, metadata: { extracted: false } },
      { id: 'fld_4', name: 'line_items', type: 'table', value: rows, metadata: { extracted: true } },
      { id: 'fld_5', name: '__proto__', type: 'string', value: 'kept as a name', metadata: { extracted: true } },
    ];

    await resumer().onEventRecorded(eventOf({ extractionId: 'ext_1', status: 'COMPLETED', output: { fieldCount: fields.length, fields } }));

    const values = (callbacks.answers[0] as { success: { values: Record<string, unknown> } }).success.values;
    expect(JSON.stringify(values)).toBe(
      `{"invoice_number":"INV/2023/03/0008","total_amount":279.84,"due_date":null,"line_items":${JSON.stringify(rows)},"__proto__":"kept as a name"}`,
    );
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
  });

  it('fails the step rather than sending an output Step Functions would refuse', async () => {
    await start({ fileId: 'file_known' });
    const fields = [{ id: 'fld_1', name: 'notes', type: 'string', value: 'x'.repeat(300 * 1024), metadata: { extracted: true } }];

    await resumer().onEventRecorded(eventOf({ extractionId: 'ext_1', status: 'COMPLETED', output: { fieldCount: 1, fields } }));

    expect(callbacks.answers[0]).toMatchObject({ error: 'StepFailedError', cause: { message: expect.stringContaining('exceed what a step output can carry') } });
  });
});
