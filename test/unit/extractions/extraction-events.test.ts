import { decodeTime } from 'ulidx';
import { describe, expect, it } from 'vitest';
import type { ExtractionRecord } from '../../../src/extractions/extraction.ts';
import { extractionEventId, extractionEventOf } from '../../../src/extractions/extraction-events.ts';

const completed: ExtractionRecord = {
  id: 'ext_01JZ0000000000000000000000',
  workspaceId: 'ws_a',
  status: 'COMPLETED',
  generation: 1,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:05.000Z',
  completedAt: '2026-01-01T10:00:05.000Z',
  labels: { customer: 'acme' },
  document: { fileId: 'file_1', fileName: 'a.pdf', mimeType: 'application/pdf', size: 10 },
  outputAvailable: true,
};

describe('extractionEventId', () => {
  it('is the same for the same generation, different for another, and sorts by the terminal time', () => {
    const first = extractionEventId(completed);

    expect(extractionEventId({ ...completed })).toBe(first);
    expect(extractionEventId({ ...completed, generation: 2 })).not.toBe(first);
    expect(extractionEventId({ ...completed, id: 'ext_01JZ0000000000000000000001' })).not.toBe(first);
    expect(first).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(decodeTime(first.slice(4))).toBe(Date.parse(completed.completedAt!));
  });
});

describe('extractionEventOf', () => {
  it('builds the completed envelope with output and extractionId in place of id', () => {
    const output = { fieldCount: 0, fields: [] };

    const event = extractionEventOf(completed, output);

    expect(event).toEqual({
      eventId: extractionEventId(completed),
      eventType: 'document-insights.extraction.completed',
      occurredAt: completed.completedAt,
      apiVersion: 'v1',
      data: {
        extractionId: completed.id,
        status: 'COMPLETED',
        outputAvailable: true,
        createdAt: completed.createdAt,
        updatedAt: completed.updatedAt,
        completedAt: completed.completedAt,
        labels: { customer: 'acme' },
        document: { fileId: 'file_1', fileName: 'a.pdf', mimeType: 'application/pdf', size: 10, pageCount: null },
        output,
      },
    });
  });

  it('builds failed and rejected envelopes with error and no output', () => {
    const failed = extractionEventOf({ ...completed, status: 'FAILED', outputAvailable: false, error: { code: 'DOCUMENT_NOT_ROUTED', message: 'no type' } }, undefined);
    const rejected = extractionEventOf({ ...completed, status: 'REJECTED', outputAvailable: false, error: { code: 'DOCUMENT_REJECTED', message: 'encrypted' } }, undefined);

    expect(failed.eventType).toBe('document-insights.extraction.failed');
    expect(failed.data).toMatchObject({ error: { code: 'DOCUMENT_NOT_ROUTED' } });
    expect(failed.data).not.toHaveProperty('output');
    expect(rejected.eventType).toBe('document-insights.extraction.rejected');
  });

  it('refuses a record that is not terminal', () => {
    const { completedAt: _completedAt, ...rest } = completed;

    expect(() => extractionEventOf({ ...rest, status: 'PROCESSING' }, undefined)).toThrow(/not terminal/);
  });
});
