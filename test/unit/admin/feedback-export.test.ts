import { describe, expect, it } from 'vitest';
import { planLabelledSet } from '../../../src/admin/feedback-export.ts';
import type { ContentCorrection } from '../../../src/extractions/field-corrections.ts';

// The corrections of a workspace as the corpus's documents and labels files.

const sha = (letter: string) => letter.repeat(64);

function correction(overrides: Partial<ContentCorrection>): ContentCorrection {
  return {
    workspaceId: 'ws_a',
    sha256: sha('a'),
    docType: 'invoice',
    fieldName: 'invoice_number',
    fieldType: 'string',
    correctedValue: 'INV-1',
    correctedAt: '2026-11-27T10:00:00.000Z',
    correctedBy: 'key_1',
    feedbackId: 'fb_1',
    extractionId: 'ext_1',
    document: { fileId: 'file_1', fileName: 'ACME invoice (March).pdf', mimeType: 'application/pdf' },
    ...overrides,
  };
}

describe('planLabelledSet', () => {
  it('labels each document with its reviewed fields only, doc_type first, under a path unique per content', () => {
    const plan = planLabelledSet('ws_a', [
      correction({}),
      correction({ fieldName: 'total_amount', fieldType: 'amount', correctedValue: 119 }),
      correction({ fieldName: 'due_date', fieldType: 'date', correctedValue: null }),
    ]);

    expect(plan.skipped).toEqual([]);
    expect(plan.documents).toHaveLength(1);
    const [document] = plan.documents;
    expect(document!.path).toBe(`invoice/${'a'.repeat(12)}-ACME-invoice-March-.pdf`);
    expect(document!.labels).toMatchObject({
      document: `${'a'.repeat(12)}-ACME-invoice-March-.pdf`,
      fields: { doc_type: 'invoice', invoice_number: 'INV-1', total_amount: 119 },
      notes: [expect.any(String), 'Reviewed as not shown on the document: due_date.'],
    });
    expect(Object.keys(document!.labels.fields as object)).toEqual(['doc_type', 'invoice_number', 'total_amount']);
    expect(document!.rows).toBeUndefined();
  });

  it('writes corrected line items as a rows label and counts them, and names a file without a name by its media type', () => {
    const rows = [{ description: 'Chair', amount: 70 }, { description: 'Desk', amount: 200 }];
    const plan = planLabelledSet('ws_a', [correction({ sha256: sha('b'), fieldName: 'line_items', fieldType: 'table', correctedValue: rows, document: { fileId: 'file_2', mimeType: 'image/png' } })]);

    expect(plan.documents[0]).toMatchObject({
      path: `invoice/${'b'.repeat(12)}.png`,
      labels: { fields: { doc_type: 'invoice', line_item_count: 2 } },
      rows: { document: `invoice/${'b'.repeat(12)}.png`, rows },
    });
  });

  it('labels a document under the type of its latest correction, and skips one with no file', () => {
    const plan = planLabelledSet('ws_a', [
      correction({ docType: 'receipt', correctedAt: '2026-11-27T09:00:00.000Z' }),
      correction({ fieldName: 'total_amount', fieldType: 'amount', correctedValue: 5 }),
      correction({ sha256: sha('c'), document: {} }),
    ]);

    expect(plan.documents.map((document) => document.labels.fields)).toEqual([{ doc_type: 'invoice', total_amount: 5 }]);
    expect(plan.skipped).toEqual([{ sha256: sha('c'), reason: expect.stringContaining('no file') }]);
  });
});
