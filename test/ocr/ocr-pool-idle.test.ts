import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { OcrPool, OcrUnavailableError } from '../../src/extraction-engine/readers/ocr-pool.ts';
import { TimeBudgetExceededError } from '../../src/extraction-engine/readers/time-budget.ts';
import { textPng } from '../support/document-builders.ts';

// A long-lived pool (one per process in the extraction wiring) keeps its workers between documents and
// lets them go after an idle period.

const image = async (lines: string[]) => {
  const bytes = await textPng(lines);
  return { bytes, width: 1400, height: 80 * (lines.length + 1) };
};

// First in this file: the language data directory is prepared once per module, on the first start.
describe('an OCR pool whose workers could not start', () => {
  it('tries again on the next recognition instead of failing every later document', async () => {
    const pool = new OcrPool({ size: 1, languages: ['eng'], idleTimeoutMs: 400 });
    const page = await image(['Invoice 4711']);
    // The models are copied under the temporary directory: a file in its place makes the start fail.
    const notADirectory = path.join(tmpdir(), `paperflow-not-a-directory-${process.pid}`);
    await writeFile(notADirectory, '');
    const temporaryDirectory = process.env.TMPDIR;
    process.env.TMPDIR = notADirectory;
    try {
      await expect(pool.recognize(page)).rejects.toBeInstanceOf(OcrUnavailableError);
    } finally {
      if (temporaryDirectory === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = temporaryDirectory;
      await rm(notADirectory, { force: true });
    }

    try {
      expect((await pool.recognize(page)).map((line) => line.text)).toEqual(['Invoice 4711']);
      expect(pool.workersStarted).toBe(1);
    } finally {
      await pool.terminate();
    }
  });
});

describe('an OCR pool with an idle timeout', () => {
  const pool = new OcrPool({ size: 1, languages: ['eng'], idleTimeoutMs: 400 });
  afterAll(() => pool.terminate());

  it('reuses its worker while busy, terminates it once idle for the timeout, and starts a new one for the next page', async () => {
    const page = await image(['Invoice 4711', 'Total 12.50']);

    expect((await pool.recognize(page)).map((line) => line.text)).toEqual(['Invoice 4711', 'Total 12.50']);
    await pool.recognize(page);
    expect(pool.workersStarted).toBe(1);
    expect(pool.liveWorkers).toBe(1);

    await vi.waitFor(() => expect(pool.liveWorkers).toBe(0), { timeout: 10_000, interval: 20 });

    expect((await pool.recognize(page)).map((line) => line.text)).toEqual(['Invoice 4711', 'Total 12.50']);
    expect(pool.workersStarted).toBe(2);
  });

  it('keeps a worker that is used again within the timeout', async () => {
    const page = await image(['Order 99']);
    await pool.recognize(page);
    const started = pool.workersStarted;

    // A gap well inside the 400 ms timeout, so that the idle timer is running when the page comes.
    await sleep(100);
    await pool.recognize(page);

    expect(pool.workersStarted).toBe(started);
  });

  it('keeps working after a page ran over its budget and its worker was replaced', async () => {
    const page = await image(['Invoice 4711', 'Total 12.50']);
    await expect(pool.recognize(page, { timeoutMs: 1 })).rejects.toBeInstanceOf(TimeBudgetExceededError);
    expect(pool.liveWorkers).toBe(0);

    expect((await pool.recognize(page)).map((line) => line.text)).toEqual(['Invoice 4711', 'Total 12.50']);
  });
});
