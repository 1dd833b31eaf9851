import { describe, expect, it } from 'vitest';
import { endWorker, OcrPoolTerminatedError, recognizeWithLayout, withLayout } from '../../../../src/extraction-engine/readers/ocr-pool.ts';

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

describe('recognizeWithLayout', () => {
  // tesseract.js delivers a reply its worker sent before it was terminated; a job started from that reply
  // posts to a worker it has let go of, an unhandled rejection that ends the process (seen when an OCR
  // budget ran out while the layout was being set).
  function workerAnsweringLate() {
    let answer: () => void = () => undefined;
    const recognized: unknown[] = [];
    const worker = {
      setParameters: () => new Promise<{ jobId: string; data: undefined }>((resolve) => (answer = () => resolve({ jobId: '', data: undefined }))),
      recognize: async (image: unknown) => (recognized.push(image), { jobId: '', data: { blocks: [] } }),
      terminate: async () => ({ jobId: '', data: undefined }),
    };
    return { worker, recognized, answer: () => answer() };
  }

  it('starts no recognition on a worker the pool ended while its layout was being set', async () => {
    const late = workerAnsweringLate();
    const recognition = recognizeWithLayout(late.worker as never, 'single-block', Buffer.from('page'));

    await endWorker(late.worker as never);
    late.answer();

    await expect(recognition).rejects.toBeInstanceOf(OcrPoolTerminatedError);
    expect(late.recognized).toEqual([]);
  });

  it('recognises on a live worker once its layout is set', async () => {
    const late = workerAnsweringLate();
    const recognition = recognizeWithLayout(late.worker as never, 'auto', Buffer.from('page'));

    late.answer();

    await expect(recognition).resolves.toMatchObject({ data: { blocks: [] } });
    expect(late.recognized).toHaveLength(1);
  });
});
