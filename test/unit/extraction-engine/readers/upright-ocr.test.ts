import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { placementOnPageAsGiven, type TextLine } from '../../../../src/extraction-engine/document.ts';
import type { OcrImage, OcrLanguage, OcrPool, PageLayout } from '../../../../src/extraction-engine/readers/ocr-pool.ts';
import { ocrLanguages } from '../../../../src/extraction-engine/readers/ocr-pool.ts';
import { confidentWordCount, pageLayoutOf, linesRunDownOrUp, recognizeUpright, turnedRaster } from '../../../../src/extraction-engine/readers/upright-ocr.ts';

describe('placementOnPageAsGiven', () => {
  // A box near the top-left of the upright page, found after turning the given image.
  const uprightBox = { x: 0.1, y: 0.2, width: 0.3, height: 0.05 };
  const onGiven = (turn: 90 | 180 | 270) => Object.fromEntries(Object.entries(placementOnPageAsGiven(uprightBox, turn)).map(([key, value]) => [key, Math.round(value * 1e9) / 1e9]));

  it('maps back from a quarter turn clockwise (the given page lay on its left side)', () => {
    expect(onGiven(90)).toEqual({ x: 0.2, y: 0.6, width: 0.05, height: 0.3 });
  });

  it('maps back from three quarter turns clockwise (the given page lay on its right side)', () => {
    expect(onGiven(270)).toEqual({ x: 0.75, y: 0.1, width: 0.05, height: 0.3 });
  });

  it('maps back from a half turn (the given page was upside down)', () => {
    expect(onGiven(180)).toEqual({ x: 0.6, y: 0.75, width: 0.3, height: 0.05 });
  });
});

describe('confidentWordCount', () => {
  it('counts words tesseract is sure of that contain three letters in a row', () => {
    const words = [
      { text: 'Rechnung', confidence: 0.93 },
      { text: 'Nr.', confidence: 0.95 },
      { text: '4711', confidence: 0.96 },
      { text: 'Lieferant', confidence: 0.4 },
      { text: 'Betrag', confidence: 0.8 },
    ];

    expect(confidentWordCount([{ text: '', words }])).toBe(2);
  });
});

const linesOf = (texts: string[], confidence = 0.9): TextLine[] =>
  texts.map((text) => ({ text, words: text.split(' ').map((word) => ({ text: word, confidence })) }));

/** Stands in for tesseract: every reading is unsure fragments, as on a page read in the wrong orientation; records what was asked. */
interface Reading {
  width: number;
  languages?: readonly OcrLanguage[];
  layout?: PageLayout;
}

function unsureReader(options: { readingMs?: number } = {}): { ocr: OcrPool; readings: Reading[] } {
  const readings: Reading[] = [];
  const ocr = {
    languages: ocrLanguages,
    recognize: async (image: OcrImage, recognition: { languages?: readonly OcrLanguage[]; layout?: PageLayout } = {}) => {
      readings.push({ width: image.width, ...(recognition.languages ? { languages: recognition.languages } : {}), ...(recognition.layout ? { layout: recognition.layout } : {}) });
      if (options.readingMs) await new Promise((resolve) => setTimeout(resolve, options.readingMs));
      return linesOf(['ltr ouw ssne qrix lpmo zzet wvur'], 0.3);
    },
  } as unknown as OcrPool;
  return { ocr, readings };
}

async function whitePage(width: number, height: number, lineDirection?: 'across' | 'down'): Promise<OcrImage> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: '#ffffff' } }).greyscale().png().toBuffer();
  return { bytes, width, height, ...(lineDirection ? { lineDirection } : {}) };
}

/** Lines of three words each, the words placed one after another along `step` (x, y) from the top-left. */
function placedLines(count: number, step: { x: number; y: number }, lineStep: { x: number; y: number }): TextLine[] {
  return Array.from({ length: count }, (_, line) => {
    const words = ['TOTAL', 'RM', '14.40'].map((text, index) => ({
      text,
      confidence: 0.95,
      placement: { x: 0.1 + line * lineStep.x + index * step.x, y: 0.1 + line * lineStep.y + index * step.y, width: 0.04, height: 0.04 },
    }));
    return { text: words.map((word) => word.text).join(' '), words };
  });
}

describe('linesRunDownOrUp', () => {
  it('tells a page whose lines run down or up the image (turned a quarter either way)', () => {
    expect(linesRunDownOrUp(placedLines(4, { x: 0, y: 0.1 }, { x: -0.05, y: 0 }))).toBe(true);
    expect(linesRunDownOrUp(placedLines(4, { x: 0, y: -0.1 }, { x: 0.05, y: 0 }))).toBe(true);
  });

  it('leaves a page whose lines run across, or one with too few lines of words to tell', () => {
    expect(linesRunDownOrUp(placedLines(6, { x: 0.1, y: 0.002 }, { x: 0, y: 0.05 }))).toBe(false);
    expect(linesRunDownOrUp(placedLines(2, { x: 0, y: 0.1 }, { x: -0.05, y: 0 }))).toBe(false);
  });

  it('leaves a page where only a few lines run down (a stamp or a margin note beside the text)', () => {
    const lines = [...placedLines(5, { x: 0.1, y: 0 }, { x: 0, y: 0.05 }), ...placedLines(2, { x: 0, y: 0.1 }, { x: 0.3, y: 0 })];
    expect(linesRunDownOrUp(lines)).toBe(false);
  });
});

describe('turnedRaster', () => {
  it('turns a straightened raster with its straightening, so its lines are placed on the upright page', async () => {
    const raster = { ...(await whitePage(300, 200)), deskew: { degrees: 2, givenWidth: 290, givenHeight: 190, turnedWidth: 300, turnedHeight: 200 } };

    const quarter = await turnedRaster(raster, 90);
    const half = await turnedRaster(raster, 180);

    expect(quarter).toMatchObject({ width: 200, height: 300, deskew: { degrees: 2, givenWidth: 190, givenHeight: 290, turnedWidth: 200, turnedHeight: 300 } });
    expect(half).toMatchObject({ width: 300, height: 200, deskew: raster.deskew });
  });
});

describe('recognizeUpright', () => {
  it('tries only the half turn when the lines run across, and only the quarter turns when they run down', async () => {
    const across = unsureReader();
    await recognizeUpright(across.ocr, await whitePage(1600, 2000, 'across'), () => 60_000);
    const down = unsureReader();
    await recognizeUpright(down.ocr, await whitePage(1600, 2000, 'down'), () => 60_000);

    // The reading as given, then the small copies (long side 1200): as given and each turn tried; turned a quarter, a copy is wider than high.
    // The trials run at once, so they may reach the pool in any order.
    const inTrialOrder = (widths: number[]): number[] => [widths[0]!, ...widths.slice(1).sort((a, b) => a - b)];
    expect(inTrialOrder(across.readings.map((reading) => reading.width))).toEqual([1600, 960, 960]);
    expect(inTrialOrder(down.readings.map((reading) => reading.width))).toEqual([1600, 960, 1200, 1200]);
  });

  it('reads a till-receipt-shaped page as one column of lines, an A4 page with the block search, turned copies by their own shape', async () => {
    const receipt = unsureReader();
    await recognizeUpright(receipt.ocr, await whitePage(600, 1500, 'down'), () => 60_000);
    const a4 = unsureReader();
    await recognizeUpright(a4.ocr, await whitePage(1240, 1754), () => 60_000);

    // The reading as given, then the trials (at once, in any order): the small copy as given, and two quarter turns.
    expect(receipt.readings[0]!.layout).toBe('single-block');
    expect(receipt.readings.slice(1).map((reading) => reading.layout).sort()).toEqual(['auto', 'auto', 'single-block']);
    expect(a4.readings.every((reading) => reading.layout === 'auto')).toBe(true);
    expect(pageLayoutOf({ width: 800, height: 2000 })).toBe('single-block');
    expect(pageLayoutOf({ width: 2480, height: 3508 })).toBe('auto');
  });

  /**
   * A page read with lines running down the image, with a dark corner at its top left or right, and a
   * reader that finds a page upright where the corner is at the bottom left, sideways (lines running
   * down, read surely) where it is on the top or bottom right, and fragments otherwise.
   */
  async function sidewaysReading(corner: 'left' | 'right') {
    const width = 1600;
    const height = 1000;
    const pixels = Buffer.alloc(width * height, 255);
    const left = corner === 'left' ? 0 : width - 100;
    for (let y = 0; y < 100; y += 1) pixels.fill(0, y * width + left, y * width + left + 100);
    const page: OcrImage = { bytes: await sharp(pixels, { raw: { width, height, channels: 1 } }).png().toBuffer(), width, height };
    const readings: { width: number; height: number; upright: boolean }[] = [];
    const ocr = {
      languages: ocrLanguages,
      recognize: async (image: OcrImage) => {
        const { data, info } = await sharp(image.bytes).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
        const dark = (x: number, y: number): boolean => data[y * info.width + x]! < 128;
        const upright = dark(0, info.height - 1);
        const sideways = dark(info.width - 1, 0) || dark(info.width - 1, info.height - 1);
        readings.push({ width: image.width, height: image.height, upright });
        if (readings.length === 1) return placedLines(5, { x: 0, y: 0.1 }, { x: -0.05, y: 0 });
        if (upright) return placedLines(8, { x: 0.1, y: 0 }, { x: 0, y: 0.05 });
        // Text left sideways is read as surely as upright text, but its lines run down.
        return sideways ? placedLines(8, { x: 0, y: 0.1 }, { x: -0.05, y: 0 }) : linesOf(['ltr ouw ssne qrix lpmo zzet wvur'], 0.3);
      },
    } as unknown as OcrPool;
    return { reading: await recognizeUpright(ocr, page, () => 60_000), readings };
  }

  it('tries every turn of a page tesseract read sideways, surely, and reads it again in the one whose lines run across', async () => {
    const { reading, readings } = await sidewaysReading('left');

    // As given, then a quarter, a half and three quarters turned (small copies, at once), then the page turned three quarters.
    const sizes = readings.map((read) => `${read.width}x${read.height}`);
    expect([sizes[0], ...sizes.slice(1, 4).sort(), sizes[4]]).toEqual(['1600x1000', '1200x750', '750x1200', '750x1200', '1000x1600']);
    expect(readings.at(-1)!.upright).toBe(true);
    expect(reading.turn).toBe(270);
    expect(reading.raster).toMatchObject({ width: 1000, height: 1600 });
    expect(linesRunDownOrUp(reading.lines)).toBe(false);
  });

  it('turns a page by a half where its reading ran down but it was upside down', async () => {
    const { reading, readings } = await sidewaysReading('right');

    expect(reading.turn).toBe(180);
    expect(readings.at(-1)).toEqual({ width: 1600, height: 1000, upright: true });
  });

  it('reads an upright page once and hands on the raster as given', async () => {
    let readings = 0;
    const ocr = {
      languages: ocrLanguages,
      recognize: async () => {
        readings += 1;
        return placedLines(5, { x: 0.1, y: 0 }, { x: 0, y: 0.05 });
      },
    } as unknown as OcrPool;
    const page = await whitePage(600, 1500);

    const reading = await recognizeUpright(ocr, page, () => 60_000);

    expect(readings).toBe(1);
    expect(reading.turn).toBeUndefined();
    expect(reading.raster).toBe(page);
  });

  it('hands the orientation trials to the pool at once', async () => {
    // A pool that answers no trial until all three (as given, a quarter turn either way) wait at once:
    // trials read one after another never get past the first.
    const waiting: (() => void)[] = [];
    let trialsAtOnce = 0;
    const ocr = {
      languages: ocrLanguages,
      recognize: async (image: OcrImage) => {
        if (image.width !== 1600) {
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            trialsAtOnce = Math.max(trialsAtOnce, waiting.length);
            if (waiting.length === 3) for (const release of waiting.splice(0)) release();
          });
        }
        return linesOf(['ltr ouw ssne qrix lpmo zzet wvur'], 0.3);
      },
    } as unknown as OcrPool;

    const { lines } = await recognizeUpright(ocr, await whitePage(1600, 2000, 'down'), () => 60_000);

    expect(trialsAtOnce).toBe(3);
    expect(lines).toHaveLength(1);
  }, 5_000);

  it('keeps the first reading when the budget left cannot pay for the orientation trials', async () => {
    const { ocr, readings } = unsureReader({ readingMs: 200 });
    const deadline = Date.now() + 350;

    const { lines } = await recognizeUpright(ocr, await whitePage(1600, 2000), () => Math.max(0, deadline - Date.now()));

    // No small trial copies (960 wide): only the page as given.
    expect(readings.map((reading) => reading.width)).toEqual([1600]);
    expect(lines).toHaveLength(1);
  });

  it('reads a till receipt with English first and only its doubtful lines again with every model when asked; an A4 page, and any page by default, with every model at once', async () => {
    const readings: Reading[] = [];
    const ocr = {
      size: 2,
      languages: ocrLanguages,
      recognize: async (image: OcrImage, recognition: { languages?: readonly OcrLanguage[]; layout?: PageLayout } = {}) => {
        readings.push({ width: image.width, ...(recognition.languages ? { languages: recognition.languages } : {}) });
        // Two sure lines and one doubtful line, placed one under another.
        return [0.9, 0.9, 0.4].map((confidence, index) => ({
          text: `Kedai Runcit ${index}`,
          placement: { x: 0.1, y: 0.1 + index * 0.1, width: 0.5, height: 0.02 },
          words: ['Kedai', 'Runcit'].map((text, word) => ({ text, confidence, placement: { x: 0.1 + word * 0.3, y: 0.1 + index * 0.1, width: 0.2, height: 0.02 } })),
        }));
      },
    } as unknown as OcrPool;

    await recognizeUpright(ocr, await whitePage(600, 1500), () => 60_000, { englishFirst: 'receipts' });
    const receiptReadings = readings.splice(0);
    await recognizeUpright(ocr, await whitePage(1240, 1754), () => 60_000, { englishFirst: 'receipts' });
    const a4Readings = readings.splice(0);
    await recognizeUpright(ocr, await whitePage(600, 1500), () => 60_000);

    // The receipt: the page with English, then one stack of the one doubtful line (far narrower than the page) with all five.
    expect(receiptReadings.map((reading) => reading.languages)).toEqual([['eng'], ocrLanguages]);
    expect(receiptReadings[1]!.width).toBeLessThan(600);
    expect(a4Readings).toEqual([{ width: 1240, languages: ocrLanguages }]);
    expect(readings).toEqual([{ width: 600, languages: ocrLanguages }]);
  });
});

describe('recognizeUpright on a photo whose dark surroundings leave tesseract nothing to read', () => {
  /** A white page with a dark strip along its top edge (a table under the receipt) and one dark "word" inside. */
  async function pageWithDarkEdge(): Promise<OcrImage> {
    const width = 200;
    const height = 300;
    const pixels = Buffer.alloc(width * height, 250);
    for (let y = 0; y < 20; y += 1) pixels.fill(10, y * width, (y + 1) * width);
    for (let y = 140; y < 150; y += 1) pixels.fill(30, y * width + 80, y * width + 120);
    const bytes = await sharp(pixels, { raw: { width, height, channels: 1 } }).png().toBuffer();
    return { bytes, width, height };
  }

  /** Stands in for tesseract: no words while any pixel of the image's top row is dark, a receipt's lines otherwise. */
  function readerBlindedByDarkEdges(): { ocr: OcrPool; count: () => number } {
    let readings = 0;
    const ocr = {
      languages: ocrLanguages,
      recognize: async (image: OcrImage) => {
        readings += 1;
        const { data } = await sharp(image.bytes).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
        const topRowDark = data.subarray(0, image.width).some((level) => level < 100);
        return topRowDark ? [] : linesOf(['SPEED MART SDN BHD', 'TOTAL RM 14.40', 'THANK YOU PLEASE COME AGAIN']);
      },
    } as unknown as OcrPool;
    return { ocr, count: () => readings };
  }

  it('reads the page again with the dark areas that reach its edges painted as paper', async () => {
    const { ocr } = readerBlindedByDarkEdges();

    const { lines } = await recognizeUpright(ocr, await pageWithDarkEdge(), () => 60_000);

    expect(lines.map((line) => line.text)).toEqual(['SPEED MART SDN BHD', 'TOTAL RM 14.40', 'THANK YOU PLEASE COME AGAIN']);
  });

  it('reads a page that gave its words once only', async () => {
    const reader = readerBlindedByDarkEdges();
    const width = 200;
    const height = 300;
    const bytes = await sharp(Buffer.alloc(width * height, 250), { raw: { width, height, channels: 1 } }).png().toBuffer();

    await recognizeUpright(reader.ocr, { bytes, width, height }, () => 60_000);

    expect(reader.count()).toBe(1);
  });
});
