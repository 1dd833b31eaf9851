import { afterAll, describe, expect, it } from 'vitest';
import { secondLookAtTheHead } from '../../src/extraction-engine/readers/line-second-look.ts';
import { OcrPool } from '../../src/extraction-engine/readers/ocr-pool.ts';
import { prepareOcrRaster } from '../../src/extraction-engine/readers/ocr-raster.ts';
import { textPng } from '../support/document-builders.ts';

// The head of a receipt read again with tesseract itself (the band, the doubt and the merge on
// synthetic layouts: test/unit/extraction-engine/readers/head-second-look.test.ts).

describe('secondLookAtTheHead', () => {
  const ocr = new OcrPool({ size: 1 });
  afterAll(() => ocr.terminate());
  const printed = ['KEDAI MELATI SDN BHD', 'No 8, Jalan Desa Tun Razak', 'Tel : 03-9201 6281', 'Teh Tarik 2.50', 'Roti Canai 1.50', 'TOTAL 4.00'];
  const budget = () => 60_000;

  it('brings back the name line the page reading left out above the address', async () => {
    const raster = await prepareOcrRaster({ input: await textPng(printed, { width: 900 }) });
    const reading = await ocr.recognize(raster, { layout: 'single-block' });
    expect(reading.map((line) => line.text)).toEqual(printed);

    // As the page reading does with a name printed large or faint: the head holds no line at all.
    const withoutName = reading.slice(1);
    const completed = await secondLookAtTheHead(ocr, raster, withoutName, budget);

    expect(completed.map((line) => line.text)).toEqual(printed);
    expect(completed[0]!.placement!.y).toBeCloseTo(reading[0]!.placement!.y, 2);
  }, 60_000);

  it('leaves a head read whole as it is, and a page whose budget is spent', async () => {
    const raster = await prepareOcrRaster({ input: await textPng(printed, { width: 900 }) });
    const reading = await ocr.recognize(raster, { layout: 'single-block' });

    expect(await secondLookAtTheHead(ocr, raster, reading, budget)).toEqual(reading);
    expect(await secondLookAtTheHead(ocr, raster, reading.slice(1), () => 500)).toEqual(reading.slice(1));
  }, 60_000);
});
