import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { DocumentRejectedError, placementOnPageAsGiven, type DocumentPage } from '../../src/extraction-engine/document.ts';
import { OcrPool, readDocument } from '../../src/extraction-engine/read-document.ts';
import { OcrPoolTerminatedError } from '../../src/extraction-engine/readers/ocr-pool.ts';
import { prepareOcrRaster } from '../../src/extraction-engine/readers/ocr-raster.ts';
import { recognizeUpright } from '../../src/extraction-engine/readers/upright-ocr.ts';
import { TimeBudgetExceededError } from '../../src/extraction-engine/readers/time-budget.ts';
import { blankPng, pngDeclaringSize, scannedPdf, textPng } from '../support/document-builders.ts';

// OCR costs about a second per page on two cores: these tests share one pool and few images.

const ocr = new OcrPool({ size: 1, languages: ['eng', 'deu'] });
afterAll(() => ocr.terminate());

describe('OCR of images and scanned PDFs', () => {
  it('reads a PNG with OCR, placing lines and words on the image with confidences', async () => {
    const png = await textPng(['Rechnung Nr 4711', 'Gesamtbetrag 123,45 EUR']);

    const read = await readDocument(png, { ocr });

    expect(read.mediaType).toBe('image/png');
    expect(read.hasGeometry).toBe(true);
    expect(read.pages[0]!.source).toBe('ocr');
    const lines = read.pages[0]!.lines;
    expect(lines.map((line) => line.text)).toEqual(['Rechnung Nr 4711', 'Gesamtbetrag 123,45 EUR']);
    // The builder draws the baselines at 1/3 and 2/3 of the image height.
    expect(lines[0]!.placement!.y).toBeLessThan(1 / 3);
    expect(lines[1]!.placement!.y).toBeGreaterThan(1 / 3);
    expect(lines[1]!.placement!.y).toBeLessThan(2 / 3);
    expect(lines[0]!.words[0]!.confidence).toBeGreaterThan(0.8);
    expect(read.language).toBeUndefined(); // too few words to tell
  });

  it('reads a page scanned sideways turned upright, placing its words on the upright page and saying how it was turned', async () => {
    const upright = await textPng(['Rechnung Nr 4711 vom 12.03.2024', 'Lieferant Muster GmbH Hauptstrasse 5', 'Gesamtbetrag 123,45 EUR zahlbar bis']);
    const sideways = await sharp(upright).rotate(90).png().toBuffer();

    const read = await readDocument(sideways, { ocr });

    const page = read.pages[0]!;
    expect(page.lines.map((line) => line.text)).toEqual(['Rechnung Nr 4711 vom 12.03.2024', 'Lieferant Muster GmbH Hauptstrasse 5', 'Gesamtbetrag 123,45 EUR zahlbar bis']);
    // Scanned turned a quarter clockwise, it is set upright by three quarters more: its lines run across, top to bottom.
    expect(page.turn).toBe(270);
    const [first, last] = [page.lines[0]!.placement!, page.lines[2]!.placement!];
    expect(first.y).toBeLessThan(last.y);
    expect(first.width).toBeGreaterThan(first.height);
    // On the page as scanned the top is on the right: the first line is the rightmost and runs downwards.
    const [firstAsScanned, lastAsScanned] = [placementOnPageAsGiven(first, 270), placementOnPageAsGiven(last, 270)];
    expect(firstAsScanned.x).toBeGreaterThan(lastAsScanned.x);
    expect(firstAsScanned.height).toBeGreaterThan(firstAsScanned.width);
  });

  it('OCRs a scanned PDF page (an image and no text layer)', async () => {
    const pdf = await scannedPdf(await textPng(['INVOICE 2024-17', 'Total due 99.50 USD', 'Thank you for your order'], { width: 1240, fontSize: 36 }), {
      width: 595,
      height: 264,
    });

    const read = await readDocument(pdf, { ocr });

    expect(read.pages[0]!.source).toBe('ocr');
    expect(read.pages[0]!.lines.map((line) => line.text)).toEqual(['INVOICE 2024-17', 'Total due 99.50 USD', 'Thank you for your order']);
  });

  it('reads a scanned PDF page whose scan lies sideways turned upright, and says how it was turned', async () => {
    const upright = await textPng(['INVOICE 2024-17', 'Total due 99.50 USD', 'Thank you for your order'], { width: 1240, fontSize: 36 });
    const pdf = await scannedPdf(await sharp(upright).rotate(270).png().toBuffer(), { width: 264, height: 595 });

    const read = await readDocument(pdf, { ocr });

    const page = read.pages[0]!;
    expect(page.source).toBe('ocr');
    expect(page.turn).toBe(90);
    expect(page.lines.map((line) => line.text)).toEqual(['INVOICE 2024-17', 'Total due 99.50 USD', 'Thank you for your order']);
    expect(page.lines[0]!.placement!.y).toBeLessThan(page.lines[1]!.placement!.y);
  });

  it("gives a scanned PDF page and an image to the caller's arithmetic check, as read by OCR", async () => {
    const pdf = await scannedPdf(await textPng(['INVOICE 2024-17', 'Total due 99.50 USD'], { width: 1240, fontSize: 36 }), { width: 595, height: 200 });
    const checked: string[][] = [];
    const arithmeticCheck = {
      linesToReread: (page: DocumentPage) => (checked.push(page.lines.map((line) => line.text)), []),
      agrees: () => true,
    };

    await readDocument(pdf, { ocr, arithmeticCheck });
    await readDocument(await textPng(['Total due 12.00 USD']), { ocr, arithmeticCheck });

    expect(checked).toEqual([['INVOICE 2024-17', 'Total due 99.50 USD'], ['Total due 12.00 USD']]);
  });

  it('reads every page of a multi-page TIFF', async () => {
    const pages = await Promise.all([textPng(['First page of the fax']), textPng(['Second page of the fax'])]);
    const tiff = await sharp(pages, { join: { animated: true } }).tiff().toBuffer();

    const read = await readDocument(tiff, { ocr });

    expect(read.mediaType).toBe('image/tiff');
    expect(read.pageCount).toBe(2);
    expect(read.pages.map((page) => [page.pageNumber, page.lines.map((line) => line.text)])).toEqual([
      [1, ['First page of the fax']],
      [2, ['Second page of the fax']],
    ]);
  });

  it('rejects an image without any text as no-text, starting and stopping its own OCR worker when given none', async () => {
    const rejection = await readDocument(await blankPng()).catch((error: unknown) => error);

    expect(rejection).toBeInstanceOf(DocumentRejectedError);
    expect(rejection).toMatchObject({ reason: 'no-text' });
  });

  it('says which page ran out of time when nothing could be read in time', async () => {
    const png = await textPng(['Slow page']);

    const rejection = await readDocument(png, { ocr, pageTimeBudgetMs: 1 }).catch((error: unknown) => error);

    expect(rejection).toMatchObject({ reason: 'no-text', message: expect.stringMatching(/^No text could be read: page 1 took longer than/) });
  });

  it('abandons a page that exceeds its time budget, then keeps working with a fresh worker', async () => {
    const png = await textPng(['Budget test line']);
    const raster = await prepareOcrRaster({ input: png });

    const overBudget = await ocr.recognize(raster, { timeoutMs: 1 }).catch((error: unknown) => error);
    const afterRecycling = await ocr.recognize(raster, { timeoutMs: 30_000 });

    expect(overBudget).toBeInstanceOf(TimeBudgetExceededError);
    expect(afterRecycling.map((line) => line.text)).toEqual(['Budget test line']);
  });

  it('queues recognitions beyond the pool size', async () => {
    const raster = await prepareOcrRaster({ input: await textPng(['Queued page']) });
    const singleWorkerPool = new OcrPool({ size: 1, languages: ['eng'] });
    try {
      const results = await Promise.all([singleWorkerPool.recognize(raster), singleWorkerPool.recognize(raster)]);

      expect(results.map((lines) => lines.map((line) => line.text))).toEqual([['Queued page'], ['Queued page']]);
    } finally {
      await singleWorkerPool.terminate();
    }
  });

  it('reads one page on two workers at once, in two bands, placing every line on the whole page in order', async () => {
    const texts = ['Invoice 2024-0815', 'Seller Nordwind Trading Ltd', 'Buyer Harbour Tools', 'Net amount 100.00', 'Tax 20.00', 'Total due 120.00'];
    const raster = await prepareOcrRaster({ input: await textPng(texts) });
    const twoWorkerPool = new OcrPool({ size: 2, languages: ['eng'] });
    try {
      const lines = await twoWorkerPool.recognize(raster);

      expect(lines.map((line) => line.text)).toEqual(texts);
      // textPng draws line i's baseline at (i + 1) / 7 of the height: lines of the lower band stay low on the page.
      for (const [index, line] of lines.entries()) {
        expect(line.placement!.y).toBeGreaterThan(index / 7);
        expect(line.placement!.y).toBeLessThan((index + 1) / 7);
      }
    } finally {
      await twoWorkerPool.terminate();
    }
  });

  it('reads a page taken as one block (a till receipt) whole, on one worker, even when the pool has two', async () => {
    const texts = ['CORNER STORE SDN BHD', 'Bread 2.50', 'Milk 4.20', 'TOTAL 6.70'];
    const raster = await prepareOcrRaster({ input: await textPng(texts) });
    const twoWorkerPool = new OcrPool({ size: 2, languages: ['eng'] });
    try {
      const lines = await twoWorkerPool.recognize(raster, { layout: 'single-block' });

      expect(lines.map((line) => line.text)).toEqual(texts);
      expect(twoWorkerPool.workersStarted).toBe(1);
    } finally {
      await twoWorkerPool.terminate();
    }
  });

  it('reads a page taken as one block on both workers at once when the models are split between them, merging the readings', async () => {
    const texts = ['CORNER STORE SDN BHD', 'Bread 2.50', 'Milk 4.20', 'TOTAL 6.70'];
    const raster = await prepareOcrRaster({ input: await textPng(texts) });
    const splitPool = new OcrPool({ size: 2, languages: ['eng', 'deu'], ensembleSplit: [['eng'], ['deu']] });
    try {
      const lines = await splitPool.recognize(raster, { layout: 'single-block' });

      expect(lines.map((line) => line.text)).toEqual(texts);
      expect(splitPool.workersStarted).toBe(2);
    } finally {
      await splitPool.terminate();
    }
  });

  it('reads an image whole on one worker when asked to (a block cut from a text page), even when the pool has two', async () => {
    const texts = ['Invoice 2024-0815', 'Seller Nordwind Trading Ltd', 'Buyer Harbour Tools', 'Net amount 100.00', 'Tax 20.00', 'Total due 120.00'];
    const raster = await prepareOcrRaster({ input: await textPng(texts) });
    const twoWorkerPool = new OcrPool({ size: 2, languages: ['eng'] });
    try {
      const lines = await twoWorkerPool.recognize(raster, { whole: true });

      expect(lines.map((line) => line.text)).toEqual(texts);
      expect(twoWorkerPool.workersStarted).toBe(1);
    } finally {
      await twoWorkerPool.terminate();
    }
  });

  it('rejects running and queued recognitions at once when the pool is terminated', async () => {
    const raster = await prepareOcrRaster({ input: await textPng(['Never read']) });
    const singleWorkerPool = new OcrPool({ size: 1, languages: ['eng'] });

    const running = singleWorkerPool.recognize(raster).catch((error: unknown) => error);
    const queued = singleWorkerPool.recognize(raster).catch((error: unknown) => error);
    await singleWorkerPool.terminate();

    // A recognition left to finish would have resolved with the line: rejected, it was cut short.
    expect(await running).toBeInstanceOf(OcrPoolTerminatedError);
    expect(await queued).toBeInstanceOf(OcrPoolTerminatedError);
  });

  it.each(['tiff', 'webp', 'jpeg'] as const)('prepares a %s image for OCR as a greyscale PNG scaled up towards 300 dpi', async (format) => {
    const image = await sharp(await textPng(['Scan'], { width: 500, fontSize: 30 })).toFormat(format).toBuffer();

    const raster = await prepareOcrRaster({ input: image });
    const metadata = await sharp(raster.bytes).metadata();

    expect(metadata.format).toBe('png');
    expect(metadata.channels).toBe(1);
    expect(Math.max(raster.width, raster.height)).toBeGreaterThan(500);
    expect(raster.width).toBe(metadata.width);
  });

  it('refuses an image that declares more pixels than any scan, without decoding it', async () => {
    const rejection = await readDocument(pngDeclaringSize(60_000, 60_000), { ocr }).catch((error: unknown) => error);

    expect(rejection).toMatchObject({ reason: 'broken' });
    // The declared size refused it: decoding 3.6 billion pixels (of which the file holds none) would
    // have failed with the decoder's own error instead.
    expect((rejection as Error).message).toMatch(/more pixels/);
  });
});

describe('orientation trials within the page budget', () => {
  it('keeps the reading as given when the budget runs out while other orientations are tried', async () => {
    // Upside down, tesseract reads fragments it is unsure of, so the other orientations are tried.
    const upsideDown = await sharp(await textPng(['Rechnung Nr 4711 vom 12.03.2024', 'Lieferant Muster GmbH Hauptstrasse 5', 'Gesamtbetrag 123,45 EUR zahlbar bis'])).rotate(180).png().toBuffer();
    const raster = await prepareOcrRaster({ input: upsideDown });
    let recognitions = 0;
    // Plenty of time for the first reading, none left for the trials (a slow page on a loaded machine).
    const budgetMs = (): number => (recognitions++ === 0 ? 60_000 : 1);

    const { lines, turn } = await recognizeUpright(ocr, raster, budgetMs);

    expect(recognitions).toBeGreaterThan(1);
    expect(lines.length).toBeGreaterThan(0);
    expect(turn).toBeUndefined();
  });
});
