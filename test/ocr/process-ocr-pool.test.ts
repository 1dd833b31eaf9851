import { afterAll, describe, expect, it } from 'vitest';
import { processOcrPool, terminateProcessOcrPool } from '../../src/extractions/process-ocr-pool.ts';
import { readDocumentOnDemand } from '../../src/composition/extraction-processing.ts';
import { textPng } from '../support/document-builders.ts';

// The extract task reads document after document in one process (a warm Lambda, the local stack):
// the OCR workers start with the first scanned page and serve the next documents too.

afterAll(() => terminateProcessOcrPool());

describe('the process-wide OCR pool of the extraction wiring', () => {
  it('starts its workers for the first document that needs OCR only', async () => {
    const first = await readDocumentOnDemand(await textPng(['Rechnung Nr 4711', 'Gesamtbetrag 123,45 EUR']), {});
    const pool = await processOcrPool();
    const startedForFirst = pool.workersStarted;
    const second = await readDocumentOnDemand(await textPng(['Invoice 2024-17', 'Total due 99.50 USD']), {});

    expect(first.pages[0]!.lines.map((line) => line.text)).toEqual(['Rechnung Nr 4711', 'Gesamtbetrag 123,45 EUR']);
    expect(second.pages[0]!.lines.map((line) => line.text)).toEqual(['Invoice 2024-17', 'Total due 99.50 USD']);
    expect(startedForFirst).toBeGreaterThan(0);
    expect(pool.workersStarted).toBe(startedForFirst);
    expect(pool.liveWorkers).toBeGreaterThan(0);
  });

  it('gives a new pool after the process pool was terminated (local stack shutdown)', async () => {
    const before = await processOcrPool();
    await terminateProcessOcrPool();

    const after = await processOcrPool();

    expect(after).not.toBe(before);
    expect(after.workersStarted).toBe(0);
  });
});
