import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { readDocument } from '../../../../src/extraction-engine/read-document.ts';
import { paintedImageRegions } from '../../../../src/extraction-engine/readers/pdf-image-regions.ts';
import { linesFromTextItems, readableCharacterCount } from '../../../../src/extraction-engine/readers/pdf-text-layer.ts';
import { blankPng, pdfWithImage, textPdf } from '../../../support/document-builders.ts';

// Letter-size pages: 612 x 792 points. Helvetica draws a line box of ~0.22 em below and ~0.78 em above
// the baseline in the reader's model, so a word's top is at (792 - baseline - 0.78 * size) / 792.
const pageWidth = 612;
const pageHeight = 792;
const tolerance = 0.004;

function expectedTop(baseline: number, size: number): number {
  return (pageHeight - baseline - 0.78 * size) / pageHeight;
}

describe('PDF text layer', () => {
  it('places words as fractions of the page from the top-left corner', async () => {
    const pdf = await textPdf([[{ text: 'Invoice 2024-001', x: 72, y: 720, size: 12 }]]);

    const read = await readDocument(pdf);

    expect(read.mediaType).toBe('application/pdf');
    expect(read.hasGeometry).toBe(true);
    const [line] = read.pages[0]!.lines;
    expect(line!.text).toBe('Invoice 2024-001');
    const [invoiceWord, numberWord] = line!.words;
    expect(invoiceWord!.text).toBe('Invoice');
    expect(invoiceWord!.placement!.x).toBeCloseTo(72 / pageWidth, 3);
    expect(Math.abs(invoiceWord!.placement!.y - expectedTop(720, 12))).toBeLessThan(tolerance);
    expect(Math.abs(invoiceWord!.placement!.height - 12 / pageHeight)).toBeLessThan(tolerance);
    expect(numberWord!.placement!.x).toBeGreaterThan(invoiceWord!.placement!.x + invoiceWord!.placement!.width);
    expect(line!.placement!.x + line!.placement!.width).toBeLessThanOrEqual(1);
    expect(invoiceWord!.confidence).toBeUndefined();
  });

  it('orders lines top to bottom and, within a row, left to right, whatever the drawing order', async () => {
    const pdf = await textPdf([
      [
        { text: 'Total due', x: 72, y: 200, size: 11 },
        { text: '119.00 EUR', x: 450, y: 200, size: 11 },
        { text: 'ACME GmbH', x: 72, y: 740, size: 14 },
        { text: 'Invoice number: 42', x: 72, y: 600, size: 11 },
      ],
    ]);

    const read = await readDocument(pdf);

    expect(read.pages[0]!.lines.map((line) => line.text)).toEqual(['ACME GmbH', 'Invoice number: 42', 'Total due', '119.00 EUR']);
  });

  it('splits a row at a wide gap into separate lines that share the row', async () => {
    const pdf = await textPdf([
      [
        { text: 'Bill to', x: 72, y: 650, size: 10 },
        { text: 'Ship to', x: 340, y: 650, size: 10 },
      ],
    ]);

    const read = await readDocument(pdf);

    const lines = read.pages[0]!.lines;
    expect(lines.map((line) => line.text)).toEqual(['Bill to', 'Ship to']);
    expect(lines[0]!.placement!.y).toBeCloseTo(lines[1]!.placement!.y, 3);
  });

  it('joins runs of one word that touch and separates runs with a gap', () => {
    // pdf.js reports kerned or re-encoded words as several items; the reader joins them back.
    const viewport = { transform: [1, 0, 0, -1, 0, pageHeight], width: pageWidth, height: pageHeight };
    const run = (str: string, x: number, width: number) => ({ str, transform: [10, 0, 0, 10, x, 500], width });

    const touching = linesFromTextItems([run('Rech', 100, 23.34), run('nung', 123.4, 22.24)], viewport);
    const apart = linesFromTextItems([run('Netto', 100, 25.0), run('100,00', 128, 30.0)], viewport);

    expect(touching.map((line) => line.words.map((word) => word.text))).toEqual([['Rechnung']]);
    expect(apart.map((line) => line.words.map((word) => word.text))).toEqual([['Netto', '100,00']]);
  });

  it('keeps placements inside the page on a page rotated by 90 degrees', async () => {
    const pdf = await textPdf([[{ text: 'Rotated page text', x: 72, y: 720, size: 12 }]], { rotation: 90 });

    const read = await readDocument(pdf);

    const word = read.pages[0]!.lines[0]!.words[0]!;
    // Rotated 90 degrees clockwise, the text that started near the top-left now runs down the right edge.
    expect(word.placement!.x).toBeGreaterThan(0.8);
    for (const value of Object.values(word.placement!)) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
  });

  it('reads every page in order', async () => {
    const pdf = await textPdf([[{ text: 'First page text', x: 72, y: 700, size: 12 }], [{ text: 'Second page text', x: 72, y: 700, size: 12 }]]);

    const read = await readDocument(pdf);

    expect(read.pageCount).toBe(2);
    expect(read.pages.map((page) => [page.pageNumber, page.source, page.lines[0]?.text])).toEqual([
      [1, 'text-layer', 'First page text'],
      [2, 'text-layer', 'Second page text'],
    ]);
  });
});

describe('readableCharacterCount', () => {
  it('counts letters, digits and punctuation but not unmapped glyphs or whitespace', () => {
    const line = (text: string) => ({ text, words: [] });

    expect(readableCharacterCount([line('Total: 12,50 €'), line('Seite 1')])).toBe(18);
    expect(readableCharacterCount([line('\uE001\uE002 \uE003\uFFFD\uFFFD')])).toBe(0);
  });

  it('stops counting at the number asked about', () => {
    const line = (text: string) => ({ text, words: [] });

    expect(readableCharacterCount([line('Total: 12,50 €'), line('Seite 1')], 5)).toBe(5);
    expect(readableCharacterCount([line('Total: 12,50 €'), line('Seite 1')], 40)).toBe(18);
  });
});

describe('PDF page limit', () => {
  it('reads at most 50 pages of a longer PDF but reports its real page count', async () => {
    const pages = Array.from({ length: 60 }, (_, index) => [{ text: `Page ${index + 1} of the statement`, x: 72, y: 700, size: 12 }]);

    const read = await readDocument(await textPdf(pages));

    expect(read.pageCount).toBe(60);
    expect(read.pages).toHaveLength(50);
    expect(read.pages.at(-1)!.lines[0]!.text).toBe('Page 50 of the statement');
  });
});

describe('paintedImageRegions', () => {
  it('finds where an image is painted, in page points from the top-left', async () => {
    const pdf = await pdfWithImage(await blankPng(400, 100), { x: 100, y: 50, width: 300, height: 75 }, []);
    const loadingTask = pdfjs.getDocument({ data: pdf, verbosity: 0 });
    try {
      const page = await (await loadingTask.promise).getPage(1);

      const regions = paintedImageRegions(await page.getOperatorList(), pdfjs.OPS, page.getViewport({ scale: 1 }));

      expect(regions).toHaveLength(1);
      expect(regions[0]).toMatchObject({ pixelWidth: 400, pixelHeight: 100 });
      expect(regions[0]!.left).toBeCloseTo(100, 3);
      expect(regions[0]!.right).toBeCloseTo(400, 3);
      expect(regions[0]!.top).toBeCloseTo(pageHeight - 125, 3);
      expect(regions[0]!.bottom).toBeCloseTo(pageHeight - 50, 3);
    } finally {
      await loadingTask.destroy();
    }
  });
});
