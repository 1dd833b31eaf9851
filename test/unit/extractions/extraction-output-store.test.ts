import { describe, expect, it } from 'vitest';
import type { ExtractionOutput } from '../../../src/extractions/extraction.ts';
import { ExtractionOutputStore } from '../../../src/extractions/extraction-output-store.ts';
import { InMemoryContentCorrections, InMemoryExtractionOutputRecords } from '../../support/memory/in-memory-extraction-outputs.ts';

// The output as clients read it: as extracted, with corrections beside the values, and carried to a
// later extraction of the same document.

const sha256 = 'a'.repeat(64);

function invoiceOutput(ids: { number: string; total: string }, values = { number: 'INV-1', total: 100 }): ExtractionOutput {
  return {
    docType: 'invoice',
    fieldCount: 2,
    fields: [
      { id: ids.number, name: 'invoice_number', type: 'string', value: values.number, metadata: { extracted: true, confidence: 0.7 } },
      { id: ids.total, name: 'total_amount', type: 'amount', value: values.total, metadata: { extracted: true, confidence: 0.95 } },
    ],
  };
}

function stores() {
  const outputs = new InMemoryExtractionOutputRecords();
  const corrections = new InMemoryContentCorrections();
  return { outputs, corrections, store: new ExtractionOutputStore(outputs, corrections) };
}

const correction = { correctedValue: 'INV-1-A', correctedAt: '2026-11-27T10:00:00.000Z', correctedBy: 'key_reviewer', feedbackId: 'fb_1', extractionId: 'ext_first' };
const first = { id: 'ext_first', workspaceId: 'ws_a', generation: 1, sha256, document: { fileId: 'file_1', fileName: 'a.pdf', mimeType: 'application/pdf' } };

describe('ExtractionOutputStore', () => {
  it('shows a correction beside the extracted value, and leaves the other fields as they were', async () => {
    const { store } = stores();
    const output = invoiceOutput({ number: 'fld_n1', total: 'fld_t1' });
    await store.put(first, output);

    await store.correct(first, output, output.fields[0]!, correction);
    const read = await store.get('ext_first');

    expect(read?.fields[0]).toEqual({
      ...output.fields[0],
      correctedValue: 'INV-1-A',
      correction: { correctedAt: correction.correctedAt, correctedBy: 'key_reviewer', feedbackId: 'fb_1', extractionId: 'ext_first' },
    });
    expect(read?.fields[1]).toEqual(output.fields[1]);
  });

  it('carries a correction to a later output of the same content, matched by document type, field name and type', async () => {
    const { store } = stores();
    const output = invoiceOutput({ number: 'fld_n1', total: 'fld_t1' });
    await store.put(first, output);
    await store.correct(first, output, output.fields[0]!, correction);

    await store.put({ id: 'ext_later', workspaceId: 'ws_a', generation: 1, sha256 }, invoiceOutput({ number: 'fld_n2', total: 'fld_t2' }));
    await store.put({ id: 'ext_other', workspaceId: 'ws_a', generation: 1, sha256: 'b'.repeat(64) }, invoiceOutput({ number: 'fld_n3', total: 'fld_t3' }));
    await store.put({ id: 'ext_elsewhere', workspaceId: 'ws_b', generation: 1, sha256 }, invoiceOutput({ number: 'fld_n4', total: 'fld_t4' }));
    const receipt = { ...invoiceOutput({ number: 'fld_n5', total: 'fld_t5' }), docType: 'receipt' };
    await store.put({ id: 'ext_receipt', workspaceId: 'ws_a', generation: 1, sha256 }, receipt);

    expect((await store.get('ext_later'))?.fields[0]).toMatchObject({ id: 'fld_n2', value: 'INV-1', correctedValue: 'INV-1-A', correction: { extractionId: 'ext_first' } });
    for (const id of ['ext_other', 'ext_elsewhere', 'ext_receipt']) expect((await store.get(id))?.fields[0], id).not.toHaveProperty('correctedValue');
  });

  it('remembers nothing for content it does not know (no hash yet), but still corrects the output', async () => {
    const { store, corrections } = stores();
    const output = invoiceOutput({ number: 'fld_n1', total: 'fld_t1' });
    const unhashed = { ...first, sha256: undefined };
    await store.put(unhashed, output);

    await store.correct(unhashed, output, output.fields[1]!, { ...correction, correctedValue: null });

    expect((await store.get('ext_first'))?.fields[1]).toMatchObject({ value: 100, correctedValue: null });
    expect(await corrections.ofWorkspace('ws_a')).toEqual([]);
  });
});
