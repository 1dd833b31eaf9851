import { afterAll, describe, expect, it } from 'vitest';
import { readDocument } from '../../src/extraction-engine/read-document.ts';
import { OcrPool } from '../../src/extraction-engine/readers/ocr-pool.ts';
import { photographed, textPng, tillSlip } from '../support/document-builders.ts';

// The preprocessing of a phone photo with tesseract reading the result (the measurements and pixel
// operations alone: test/unit/extraction-engine/readers/ocr-preprocessing.test.ts).

describe('OCR of a slanted phone photo with a shadow', () => {
  const ocr = new OcrPool({ size: 1 });
  afterAll(() => ocr.terminate());

  it('reads every line of the slip, the words of each row placed in one row of the straightened page', async () => {
    const photo = await photographed(await textPng(tillSlip, { width: 1100, fontSize: 34 }), { slantDegrees: 7, shadow: true });

    const document = await readDocument(photo, { ocr });
    const lines = document.pages[0]!.lines;

    expect(lines.map((line) => line.text)).toEqual(tillSlip.map((line) => line.replace(/\s+/gu, ' ')));
    // On the photo the row falls to the right by 7°; straightened, its first and last words share a height.
    const firstLine = lines[0]!.words;
    expect(Math.abs(firstLine[0]!.placement!.y - firstLine.at(-1)!.placement!.y)).toBeLessThan(0.01);
    // The total's amount is right of its label and lower down the slip than the shop's name.
    const total = lines.find((line) => line.text.startsWith('Summe'))!;
    expect(total.words.at(-1)!.placement!.x).toBeGreaterThan(total.words[0]!.placement!.x + 0.1);
    expect(total.placement!.y).toBeGreaterThan(lines[0]!.placement!.y + 0.3);
    expect(total.words.at(-1)!.confidence).toBeGreaterThan(0.8);
  });
});
