import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import type { TextLine } from '../../src/extraction-engine/document.ts';
import { readImage } from '../../src/extraction-engine/readers/image-reader.ts';
import { OcrPool } from '../../src/extraction-engine/readers/ocr-pool.ts';
import { prepareOcrRaster } from '../../src/extraction-engine/readers/ocr-raster.ts';
import { recognizeUpright } from '../../src/extraction-engine/readers/upright-ocr.ts';

// The second look with tesseract itself (test/unit/extraction-engine/readers/line-second-look.test.ts
// has its rules on given readings): a page it misreads, read again line by line.

describe('second look through the image reader', () => {
  const ocr = new OcrPool({ size: 1 });
  afterAll(() => ocr.terminate());

  /**
   * A till slip printed small on a large page and saved as a coarse JPEG: read with the whole page,
   * tesseract misreads letters of the name and its legal form and a digit of the total.
   */
  async function smallPrintSlip(fontSize: number): Promise<Buffer> {
    const lines = ['KEDAI RUNCIT MAWAR HIJAU SDN BHD', 'No 12, Jalan Cempaka 3', '41200 Klang, Selangor', 'Date: 14/03/2019  10:42', 'Teh Tarik        2   5.00', 'Roti Canai       3   4.50', 'Nasi Lemak       1   6.90', 'TOTAL               16.40', 'CASH                20.00', 'CHANGE               3.60', 'Thank you, come again'];
    const lineHeight = Math.round(fontSize * 2.2);
    const texts = lines
      .map((line, index) => `<text x="60" y="${200 + lineHeight * (index + 1)}" font-family="DejaVu Sans Mono, monospace" font-size="${fontSize}" xml:space="preserve">${line}</text>`)
      .join('');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1100" height="2400"><rect width="100%" height="100%" fill="white"/>${texts}</svg>`;
    return sharp(Buffer.from(svg)).greyscale().jpeg({ quality: 40 }).toBuffer();
  }

  const textOf = (lines: TextLine[]): string => lines.map((line) => line.text).join('\n');
  const context = { ocr: async () => ocr, pageTimeBudgetMs: 120_000, deadline: Date.now() + 600_000, pagesOverBudget: [] };

  it('reads again the name and total lines the page reading got wrong, and gets them right', async () => {
    const slip = await smallPrintSlip(10);
    const firstReading = textOf((await recognizeUpright(ocr, await prepareOcrRaster({ input: slip }), () => 120_000)).lines);
    const read = textOf((await readImage(slip, context)).pages[0]!.lines);

    // Without the second look (the page reading alone) both lines are misread.
    expect(firstReading).not.toMatch(/^KEDAI\b.*\bBHD$/mu);
    expect(firstReading).not.toMatch(/^16\.40$/mu);
    expect(read).toMatch(/^KEDAI RUNCIT MAWAR \S+ \S+ BHD$/mu);
    expect(read).toMatch(/^16\.40$/mu);
  }, 120_000);
});
