import { describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration } from '../../../src/extraction-engine/index.ts';
import { correctedValueChecker } from '../../../src/extractions/corrected-value-check.ts';
import { ExtractionDocuments } from '../../../src/extractions/extraction-documents.ts';
import type { ExtractionOutput } from '../../../src/extractions/extraction.ts';
import type { ExtractionListQuery } from '../../../src/extractions/extraction-listing.ts';
import { ExtractionOutputStore } from '../../../src/extractions/extraction-output-store.ts';
import { ExtractionService } from '../../../src/extractions/extraction-service.ts';
import { ExtractionSettlement } from '../../../src/extractions/extraction-settlement.ts';
import { FileLookup } from '../../../src/files/file-lookup.ts';
import type { FileRecord } from '../../../src/files/file-records.ts';
import { newIdentifier } from '../../../src/infrastructure/identifiers.ts';
import { ConflictError, DownstreamError, NotFoundError, ValidationError } from '../../../src/platform/errors.ts';
import {
  InMemoryEventRecorder,
  InMemoryExtractionExecutions,
  InMemoryExtractionStore,
} from '../../support/memory/in-memory-extractions.ts';
import { InMemoryContentCorrections, InMemoryExtractionOutputRecords } from '../../support/memory/in-memory-extraction-outputs.ts';
import { InMemoryContentUrls, InMemoryFileBlobStore, InMemoryFileRecordStore } from '../../support/memory/in-memory-files.ts';

// The extraction service and its settlement over in-memory adapters: what a client and the event
// stream see of creates, reads, lists, feedback and deletes, with no emulator and no SDK mock.

const workspaceId = 'ws_unit';
const now = new Date('2026-11-21T08:00:00.000Z');

function anExtractionService() {
  const store = new InMemoryExtractionStore();
  const outputRecords = new InMemoryExtractionOutputRecords();
  const outputs = new ExtractionOutputStore(outputRecords, new InMemoryContentCorrections());
  const executions = new InMemoryExtractionExecutions();
  const events = new InMemoryEventRecorder();
  const files = new InMemoryFileRecordStore();
  const settlement = new ExtractionSettlement(store, outputs, events, () => now);
  const documents = new ExtractionDocuments(files, new InMemoryFileBlobStore(), new FileLookup(files, new InMemoryContentUrls(), () => now));
  const service = new ExtractionService({
    store,
    outputs,
    documents,
    executions,
    settlement,
    urlPolicy: () => ({ allowHttp: false, allowLoopback: false }),
    checkCorrectedValue: correctedValueChecker(async () => defaultExtractionConfiguration),
    now: () => now,
  });
  return { service, store, outputs, outputRecords, executions, events, files, settlement };
}

async function aReadyFile(files: InMemoryFileRecordStore, overrides: Partial<FileRecord> = {}): Promise<FileRecord> {
  const fileId = newIdentifier('file');
  const record: FileRecord = {
    fileId,
    workspaceId,
    fileName: 'invoice.pdf',
    mimeType: 'application/pdf',
    size: 24_000,
    sha256: 'ab'.repeat(32),
    status: 'ready',
    createdAt: now.toISOString(),
    objectKey: `workspaces/${workspaceId}/files/${fileId}`,
    ...overrides,
  };
  await files.create(record);
  return record;
}

const output: ExtractionOutput = {
  docType: 'invoice',
  fieldCount: 1,
  fields: [{ id: 'fld_01J9ZQ3V7M8N2P4R6T8V0X2Z4B', name: 'total', type: 'amount', value: 120, metadata: { extracted: true, confidence: 0.97 } }],
};

/** Processing as the state machine does it: the output, then the terminal transition and its event. */
async function completed(context: ReturnType<typeof anExtractionService>, extractionId: string) {
  await context.outputs.put({ id: extractionId, workspaceId, generation: 1 }, output);
  return context.settlement.finish(extractionId, 1, { status: 'COMPLETED', pageCount: 1 });
}

const listQuery = (overrides: Partial<ExtractionListQuery> = {}): ExtractionListQuery => ({ page: 0, size: 50, sortBy: 'createdAt', sort: 'desc', labels: {}, ...overrides });

describe('creating an extraction', () => {
  it('stores a QUEUED extraction of a ready file, counts it and starts its first generation', async () => {
    const context = anExtractionService();
    const file = await aReadyFile(context.files);

    const view = await context.service.createExtraction(workspaceId, { document: { fileId: file.fileId }, labels: { customer: 'acme' } });

    expect(view).toMatchObject({ status: 'QUEUED', outputAvailable: false, labels: { customer: 'acme' }, document: { fileId: file.fileId, fileName: 'invoice.pdf', size: 24_000 } });
    expect(context.executions.started).toEqual([{ workspaceId, extractionId: view.id, generation: 1 }]);
    expect(context.store.countsOf(workspaceId)).toMatchObject({ total: 1, QUEUED: 1 });
    expect(await context.store.indexItems.hasEarlierWithContentHash({ workspaceId, id: 'ext_~' }, file.sha256!)).toBe(true);
  });

  it('answers 422 on document.fileId for a file that is unknown, another workspace\'s or not ready, storing nothing', async () => {
    const context = anExtractionService();
    const pending = await aReadyFile(context.files, { status: 'pending_upload' });
    const elsewhere = await aReadyFile(context.files, { workspaceId: 'ws_other' });

    for (const fileId of [newIdentifier('file'), elsewhere.fileId, pending.fileId]) {
      const refused = context.service.createExtraction(workspaceId, { document: { fileId } });
      await expect(refused).rejects.toBeInstanceOf(ValidationError);
      await expect(refused).rejects.toMatchObject({ details: [{ field: 'document.fileId' }] });
    }
    expect(context.store.records.size).toBe(0);
    expect(context.executions.started).toEqual([]);
  });

  it('ends the extraction FAILED, with its event, when processing cannot start, and answers a retryable 502', async () => {
    const context = anExtractionService();
    const file = await aReadyFile(context.files);
    context.executions.failure = new Error('state machine unavailable');

    await expect(context.service.createExtraction(workspaceId, { document: { fileId: file.fileId } })).rejects.toBeInstanceOf(DownstreamError);

    const [stored] = [...context.store.records.values()];
    expect(stored).toMatchObject({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED' }, countedAs: 'FAILED' });
    expect(context.events.events.map((recorded) => recorded.event.eventType)).toEqual(['document-insights.extraction.failed']);
    expect(context.store.countsOf(workspaceId)).toMatchObject({ total: 1, QUEUED: 0, FAILED: 1 });
  });
});

describe('reading and listing', () => {
  it('shows a completed extraction with its output and a download link of its document', async () => {
    const context = anExtractionService();
    const file = await aReadyFile(context.files);
    const created = await context.service.createExtraction(workspaceId, { document: { fileId: file.fileId } });
    await completed(context, created.id);

    const view = await context.service.getExtraction(workspaceId, created.id);

    expect(view).toMatchObject({ status: 'COMPLETED', outputAvailable: true, completedAt: now.toISOString(), output, document: { pageCount: 1 } });
    expect(view.document.contentUrl).toMatch(new RegExp(`^memory://files/${file.objectKey}`));
  });

  it('answers 404 for another workspace\'s extraction and for an id the service never mints', async () => {
    const context = anExtractionService();
    const created = await context.service.createExtraction(workspaceId, { document: { fileId: (await aReadyFile(context.files)).fileId } });

    await expect(context.service.getExtraction('ws_other', created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(context.service.getExtraction(workspaceId, 'ext_' + 'x'.repeat(3_000))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists the workspace\'s extractions by label and status with exact totals', async () => {
    const context = anExtractionService();
    const file = await aReadyFile(context.files);
    const acme = await context.service.createExtraction(workspaceId, { document: { fileId: file.fileId }, labels: { customer: 'acme' } });
    await context.service.createExtraction(workspaceId, { document: { fileId: file.fileId }, labels: { customer: 'globex' } });
    await completed(context, acme.id);

    const byLabel = await context.service.listExtractions(workspaceId, listQuery({ labels: { customer: 'acme' } }));
    const queued = await context.service.listExtractions(workspaceId, listQuery({ status: 'QUEUED' }));
    const elsewhere = await context.service.listExtractions('ws_other', listQuery());

    expect(byLabel).toMatchObject({ totalItems: 1, data: [{ id: acme.id, status: 'COMPLETED' }] });
    expect(queued.data.map((view) => view.labels.customer)).toEqual(['globex']);
    expect(elsewhere).toEqual({ data: [], totalItems: 0 });
  });
});

describe('feedback', () => {
  it('marks the extraction for review on ERROR feedback and keeps the feedback', async () => {
    const context = anExtractionService();
    const created = await context.service.createExtraction(workspaceId, { document: { fileId: (await aReadyFile(context.files)).fileId } });
    await completed(context, created.id);

    const feedback = await context.service.addFeedback(workspaceId, created.id, { message: 'Total is 121', fieldId: output.fields[0]!.id });

    expect(feedback).toMatchObject({ extractionId: created.id, type: 'ERROR', fieldId: output.fields[0]!.id, createdAt: now.toISOString() });
    expect(context.store.feedback.feedback).toEqual([feedback]);
    expect((await context.service.getExtraction(workspaceId, created.id)).reviewRequired).toBe(true);
  });

  it('refuses a fieldId that names no field of the output, keeping nothing', async () => {
    const context = anExtractionService();
    const created = await context.service.createExtraction(workspaceId, { document: { fileId: (await aReadyFile(context.files)).fileId } });
    await completed(context, created.id);

    await expect(context.service.addFeedback(workspaceId, created.id, { message: 'x', fieldId: 'fld_01J9ZQ3V7M8N2P4R6T8V0X2Z4C' })).rejects.toMatchObject({ details: [{ field: 'fieldId' }] });
    expect(context.store.feedback.feedback).toEqual([]);
  });
});

describe('deleting', () => {
  it('refuses an extraction in flight with 409', async () => {
    const context = anExtractionService();
    const created = await context.service.createExtraction(workspaceId, { document: { fileId: (await aReadyFile(context.files)).fileId } });

    await expect(context.service.deleteExtraction(workspaceId, created.id)).rejects.toBeInstanceOf(ConflictError);
    expect(context.store.records.has(created.id)).toBe(true);
  });

  it('removes a terminal extraction with its output and feedback, uncounts it, and keeps its one event', async () => {
    const context = anExtractionService();
    const created = await context.service.createExtraction(workspaceId, { document: { fileId: (await aReadyFile(context.files)).fileId } });
    await completed(context, created.id);
    await context.service.addFeedback(workspaceId, created.id, { message: 'fine', type: 'INFO' });

    await context.service.deleteExtraction(workspaceId, created.id);

    await expect(context.service.getExtraction(workspaceId, created.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(context.store.records.size).toBe(0);
    expect(context.outputRecords.stored.size).toBe(0);
    expect(context.store.feedback.feedback).toEqual([]);
    expect(context.store.countsOf(workspaceId)).toMatchObject({ total: 0, COMPLETED: 0 });
    expect(context.events.events.map((recorded) => recorded.event.eventType)).toEqual(['document-insights.extraction.completed']);
  });
});

describe('settlement', () => {
  it('records one event per generation however often the terminal step repeats', async () => {
    const context = anExtractionService();
    const created = await context.service.createExtraction(workspaceId, { document: { fileId: (await aReadyFile(context.files)).fileId } });

    await completed(context, created.id);
    await completed(context, created.id);

    expect(context.events.events).toHaveLength(1);
    expect(context.store.countsOf(workspaceId)).toMatchObject({ total: 1, COMPLETED: 1, QUEUED: 0 });
    expect(context.store.records.get(created.id)).not.toHaveProperty('eventPending');
  });

  it('sweeps an extraction stuck in flight to FAILED with its event, and leaves fresh ones alone', async () => {
    const context = anExtractionService();
    const file = await aReadyFile(context.files);
    const stuck = await context.service.createExtraction(workspaceId, { document: { fileId: file.fileId } });
    const fresh = await context.service.createExtraction(workspaceId, { document: { fileId: file.fileId } });
    context.store.records.get(stuck.id)!.updatedAt = '2026-11-21T07:00:00.000Z';
    context.store.records.get(fresh.id)!.updatedAt = '2026-11-21T07:59:00.000Z';

    const report = await context.settlement.sweep(20 * 60 * 1000);

    expect(report).toMatchObject({ failedStuck: 1, skipped: 0 });
    expect(context.store.records.get(stuck.id)).toMatchObject({ status: 'FAILED', countedAs: 'FAILED' });
    expect(context.store.records.get(fresh.id)!.status).toBe('QUEUED');
    expect(context.events.events.map((recorded) => recorded.event.data)).toEqual([expect.objectContaining({ extractionId: stuck.id })]);
  });
});
