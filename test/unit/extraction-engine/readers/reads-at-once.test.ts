import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PositionedWord, TextLine } from '../../../../src/extraction-engine/document.ts';
import { secondLookAtDecidingLines, secondLookAtTheHead } from '../../../../src/extraction-engine/readers/line-second-look.ts';
import type { OcrPool } from '../../../../src/extraction-engine/readers/ocr-pool.ts';
import { readAtOnce } from '../../../../src/extraction-engine/readers/reads-at-once.ts';
import { TimeBudgetExceededError } from '../../../../src/extraction-engine/readers/time-budget.ts';

/** A promise and the function that settles it, for reads the test finishes in an order of its choosing. */
function gate<T>(): { promise: Promise<T>; open: (value: T) => void } {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

describe('readAtOnce', () => {
  it('starts every read before any has finished and returns the results in the order given', async () => {
    const gates = [gate<string>(), gate<string>(), gate<string>()];
    let started = 0;
    const results = readAtOnce(gates.map((reading) => () => ((started += 1), reading.promise)));

    // All three are running while none has finished; they finish last to first.
    expect(started).toBe(3);
    gates[2]!.open('third');
    gates[1]!.open('second');
    gates[0]!.open('first');

    expect(await results).toEqual(['first', 'second', 'third']);
  });

  it('gives undefined for a read that ran out of the page budget and keeps the others', async () => {
    const results = await readAtOnce([async () => 'read in time', () => Promise.reject(new TimeBudgetExceededError('OCR of one page', 10)), async () => 'also in time']);

    expect(results).toEqual(['read in time', undefined, 'also in time']);
  });

  it('throws any other failure once every read has settled', async () => {
    let lastFinished = false;
    const outcome = readAtOnce([
      () => Promise.reject(new Error('OCR failed: worker crashed')),
      async () => {
        await new Promise((resolve) => setImmediate(resolve));
        lastFinished = true;
        return 'late';
      },
    ]);

    await expect(outcome).rejects.toThrow('worker crashed');
    expect(lastFinished).toBe(true);
  });
});

/** Words side by side from x = 0.1 on one line at `y`. */
function lineOf(words: [string, number][], y: number): TextLine {
  let x = 0.1;
  const placed: PositionedWord[] = words.map(([text, confidence]) => {
    const word = { text, confidence, placement: { x, y, width: 0.03 * text.length, height: 0.02 } };
    x += 0.03 * text.length + 0.02;
    return word;
  });
  const last = placed.at(-1)!.placement!;
  return { text: words.map(([text]) => text).join(' '), words: placed, placement: { x: 0.1, y, width: last.x + last.width - 0.1, height: 0.02 } };
}

/**
 * A stand-in for the OCR pool that holds every recognition until `expected` are waiting at once, then
 * answers them all with `reading`: a second look that reads one crop after another never gets past the
 * first (the test then times out), one that hands them to the pool at once does.
 */
function poolAnsweringOnce(expected: number, reading: TextLine[]): { pool: OcrPool; mostAtOnce: () => number } {
  const waiting: (() => void)[] = [];
  let mostAtOnce = 0;
  const pool = {
    recognize: async () => {
      const held = gate<void>();
      waiting.push(() => held.open());
      mostAtOnce = Math.max(mostAtOnce, waiting.length);
      if (waiting.length >= expected) for (const release of waiting.splice(0)) release();
      await held.promise;
      return reading;
    },
  };
  return { pool: pool as unknown as OcrPool, mostAtOnce: () => mostAtOnce };
}

describe('second looks on both workers', () => {
  let raster: { bytes: Buffer; width: number; height: number };
  const rasterOf = async () => (raster ??= { bytes: await sharp({ create: { width: 400, height: 800, channels: 3, background: 'white' } }).png().toBuffer(), width: 400, height: 800 });

  it('hands the deciding lines to the pool at once and keeps each first reading where the re-reads agree with it', async () => {
    const seller = lineOf([['KEDAI', 0.95], ['MELATL', 0.7], ['SDN', 0.95], ['BHD', 0.95]], 0.05);
    const date = lineOf([['Date:', 0.95], ['12/03/2018', 0.8]], 0.3);
    const total = lineOf([['TOTAL', 0.6], ['12.50', 0.95]], 0.6);
    const lines = [seller, date, total];
    // Each crop is read back as nothing: no word to repair, so each line needs one re-read only.
    const { pool, mostAtOnce } = poolAnsweringOnce(3, []);

    const read = await secondLookAtDecidingLines(pool, await rasterOf(), lines, () => 60_000);

    expect(mostAtOnce()).toBe(3);
    expect(read).toEqual(lines);
  }, 5_000);

  it('reads the head band at both sizes at once', async () => {
    const head = lineOf([['KEDAI', 0.95], ['MELATL', 0.62], ['SDN', 0.95], ['BHD', 0.95]], 0.05);
    const address = lineOf([['Jalan', 0.95], ['Ampang', 0.95]], 0.1);
    const lines = [head, address, lineOf([['TOTAL', 0.95], ['12.50', 0.95]], 0.6)];
    const { pool, mostAtOnce } = poolAnsweringOnce(2, []);

    const read = await secondLookAtTheHead(pool, await rasterOf(), lines, () => 60_000);

    expect(mostAtOnce()).toBe(2);
    expect(read).toEqual(lines);
  }, 5_000);
});
