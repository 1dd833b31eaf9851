import { describe, expect, it } from 'vitest';
import { withLayout } from '../../../../src/extraction-engine/readers/ocr-pool.ts';

// tesseract's own default page segmentation is 6 (one block), not 3 (auto): a new worker must be told
// the layout of its first page too, or that page is read differently from the same page read later.

/** A stand-in for a tesseract.js worker that records the parameters it is given. */
function recordingWorker() {
  const given: Record<string, unknown>[] = [];
  return { given, setParameters: async (parameters: Record<string, unknown>) => (given.push(parameters), { jobId: '', data: undefined }) } as const;
}

describe('withLayout', () => {
  it('sets the block search (PSM 3) for the first page of a new worker, and again only when the layout changes', async () => {
    const worker = recordingWorker();

    await withLayout(worker as never, 'auto');
    await withLayout(worker as never, 'auto');
    await withLayout(worker as never, 'single-line');
    await withLayout(worker as never, 'auto');

    expect(worker.given.map((parameters) => parameters.tessedit_pageseg_mode)).toEqual(['3', '7', '3']);
  });
});
