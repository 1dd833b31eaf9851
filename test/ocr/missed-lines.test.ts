import { afterAll, describe, expect, it } from 'vitest';
import { maxRegionsPerPage, readMissedLines } from '../../src/extraction-engine/readers/missed-lines.ts';
import { OcrPool } from '../../src/extraction-engine/readers/ocr-pool.ts';
import { prepareOcrRaster } from '../../src/extraction-engine/readers/ocr-raster.ts';
import { textPng } from '../support/document-builders.ts';

// Reading the lines tesseract's page reading left out, with tesseract itself (where the ink no word
// covers is found: test/unit/extraction-engine/readers/missed-lines.test.ts).

describe('readMissedLines', () => {
  const ocr = new OcrPool({ size: 1 });
  afterAll(() => ocr.terminate());
  const printed = ['Invoice number 4711 of 3 March', 'Payable to Example Trading Ltd', 'IBAN DE02120300000000202051', 'Thank you for your order'];

  it('reads a line the page reading left out and adds it in its place; a page read whole is left as it is', async () => {
    const raster = await prepareOcrRaster({ input: await textPng(printed) });
    const reading = await ocr.recognize(raster, { layout: 'auto' });
    expect(reading.map((line) => line.text)).toEqual(printed);
    const budget = () => 60_000;

    // As tesseract's layout analysis sometimes does: the third line is not in the reading.
    const withLineLeftOut = reading.filter((_, index) => index !== 2);
    const completed = await readMissedLines(ocr, raster, withLineLeftOut, budget);

    expect(completed.map((line) => line.text)).toEqual(printed);
    expect(completed[2]!.placement!.y).toBeCloseTo(reading[2]!.placement!.y, 2);
    expect(await readMissedLines(ocr, raster, reading, budget)).toBe(reading);
  }, 60_000);

  it('reads a second batch of regions where the first brought lines back: more lines left out than one batch reads', async () => {
    const many = ['Invoice number 4711', 'Order 0815 of 3 March', 'Customer 20417', 'Payable to Example Trading Ltd', 'IBAN DE02120300000000202051', 'Net amount 100.00', 'VAT 19 percent 19.00', 'Total amount 119.00', 'Due within 14 days', 'Thank you for your order'];
    const raster = await prepareOcrRaster({ input: await textPng(many) });
    const reading = await ocr.recognize(raster, { layout: 'auto' });
    expect(reading.map((line) => line.text)).toEqual(many);

    // All but the first and last lines left out: eight regions, more than one batch of six.
    const keptOnly = [reading[0]!, reading.at(-1)!];
    expect(many.length - keptOnly.length).toBeGreaterThan(maxRegionsPerPage);
    const completed = await readMissedLines(ocr, raster, keptOnly, () => 120_000);

    expect(completed.map((line) => line.text)).toEqual(many);
  }, 120_000);

  it('adds nothing when the budget left cannot pay for it', async () => {
    const raster = await prepareOcrRaster({ input: await textPng(printed) });
    const reading = (await ocr.recognize(raster, { layout: 'auto' })).slice(0, 2);

    expect(await readMissedLines(ocr, raster, reading, () => 500)).toBe(reading);
  }, 60_000);
});
