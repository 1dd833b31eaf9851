import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { TextLine } from '../../../../src/extraction-engine/document.ts';
import { maxRegionsPerPage, readMissedLines, uncoveredTextRegions } from '../../../../src/extraction-engine/readers/missed-lines.ts';
import type { OcrPool } from '../../../../src/extraction-engine/readers/ocr-pool.ts';
import type { GreyRaster } from '../../../../src/extraction-engine/readers/ocr-bands.ts';
import type { PixelBox } from '../../../../src/extraction-engine/readers/raster-crops.ts';

/** A white raster with black rectangles painted on it. */
function rasterWith(width: number, height: number, marks: PixelBox[]): GreyRaster {
  const data = new Uint8Array(width * height).fill(255);
  for (const mark of marks) {
    for (let y = mark.top; y < mark.top + mark.height; y += 1) data.fill(0, y * width + mark.left, y * width + mark.left + mark.width);
  }
  return { data, width, height };
}

/** A line of text-like ink: letters 3 px wide and 20 px high, 4 px apart, words 14 px apart; and each word's box. */
function textLine(left: number, top: number, words: number[]): { marks: PixelBox[]; wordBoxes: PixelBox[] } {
  const marks: PixelBox[] = [];
  const wordBoxes: PixelBox[] = [];
  let x = left;
  for (const letters of words) {
    const start = x;
    for (let letter = 0; letter < letters; letter += 1) {
      marks.push({ left: x, top, width: 3, height: 20 });
      x += 7;
    }
    wordBoxes.push({ left: start, top, width: x - start - 4, height: 20 });
    x += 14;
  }
  return { marks, wordBoxes };
}

describe('uncoveredTextRegions', () => {
  const lineHeight = 20;
  const first = textLine(60, 40, [5, 8, 4]);
  const second = textLine(60, 100, [7, 6, 9]);
  const third = textLine(60, 160, [4, 4, 10]);

  it('finds a line of ink that no word read covers, and none where the words cover the ink', () => {
    const raster = rasterWith(600, 260, [...first.marks, ...second.marks, ...third.marks]);

    const regions = uncoveredTextRegions(raster, [...first.wordBoxes, ...third.wordBoxes], lineHeight);

    expect(regions).toHaveLength(1);
    const [region] = regions;
    // The whole second line, in the grid's cells (a sixth of a line high) around it.
    expect(region!.top).toBeLessThanOrEqual(100);
    expect(region!.top + region!.height).toBeGreaterThanOrEqual(120);
    expect(region!.top + region!.height).toBeLessThan(160);
    expect(region!.left).toBeLessThanOrEqual(60);
    expect(region!.left + region!.width).toBeGreaterThanOrEqual(second.wordBoxes.at(-1)!.left + second.wordBoxes.at(-1)!.width);
    expect(uncoveredTextRegions(raster, [...first.wordBoxes, ...second.wordBoxes, ...third.wordBoxes], lineHeight)).toEqual([]);
  });

  it('leaves out what is not shaped like text: a rule, a filled box, a speck, ink along the edge', () => {
    const rule = { left: 40, top: 140, width: 500, height: 2 };
    // A rule a little askew, as on a scan straightened to the nearest degree: as tall as a line, but no letters.
    const askewRule = Array.from({ length: 8 }, (_, step) => ({ left: 40 + step * 60, top: 196 + step * 3, width: 64, height: 4 }));
    const filledBox = { left: 300, top: 20, width: 120, height: 50 };
    const speck = { left: 560, top: 100, width: 6, height: 6 };
    const edge = { left: 0, top: 0, width: 4, height: 260 };
    const raster = rasterWith(600, 260, [...first.marks, rule, ...askewRule, filledBox, speck, edge]);

    expect(uncoveredTextRegions(raster, first.wordBoxes, lineHeight)).toEqual([]);
  });

  it('orders the regions by their ink, most first', () => {
    const short = textLine(60, 40, [6]);
    const long = textLine(60, 160, [9, 9, 9]);
    const raster = rasterWith(600, 260, [...short.marks, ...long.marks]);

    const regions = uncoveredTextRegions(raster, [], lineHeight);

    expect(regions.map((region) => region.top < 100)).toEqual([false, true]);
  });
});

describe('readMissedLines, in batches', () => {
  // A page whose reading holds its first line only, with eight more lines of ink no word covers, each
  // shorter than the one above (so the regions come in page order, largest ink first).
  const width = 600;
  const height = 640;
  const read = textLine(60, 20, [5, 5, 5, 5, 5]);
  const unread = Array.from({ length: 8 }, (_, index) => textLine(60, 80 + index * 60, [12 - index, 6]));
  const readingOf = (boxes: PixelBox[]): TextLine[] => {
    const words = boxes.map((box) => ({ text: 'word', confidence: 0.95, placement: { x: box.left / width, y: box.top / height, width: box.width / width, height: box.height / height } }));
    return [{ text: words.map((word) => word.text).join(' '), words, placement: { x: 0.1, y: 20 / height, width: 0.8, height: 20 / height } }];
  };
  const rasterOfPage = async () => {
    const { data } = rasterWith(width, height, [...read.marks, ...unread.flatMap((line) => line.marks)]);
    return { bytes: await sharp(Buffer.from(data), { raw: { width, height, channels: 1 } }).png().toBuffer(), width, height };
  };
  /** A pool that reads every crop as one line of one word across its middle, read with `confidence`. */
  const poolReading = (confidence: number) => {
    const pool = {
      calls: 0,
      recognize: async (): Promise<TextLine[]> => {
        pool.calls += 1;
        const word = { text: `line${pool.calls}`, confidence, placement: { x: 0.1, y: 0.3, width: 0.8, height: 0.4 } };
        return [{ text: word.text, words: [word], placement: word.placement }];
      },
    };
    return pool;
  };

  it('reads the next regions where the first batch brought back lines the page reading dropped', async () => {
    const pool = poolReading(0.95);
    const lines = await readMissedLines(pool as unknown as OcrPool, await rasterOfPage(), readingOf(read.wordBoxes), () => 60_000);
    expect(pool.calls).toBe(unread.length);
    expect(unread.length).toBeGreaterThan(maxRegionsPerPage);
    expect(lines).toHaveLength(1 + unread.length);
  });

  it('reads no more where the first batch held nothing read with confidence (specks, a picture)', async () => {
    const pool = poolReading(0.3);
    const reading = readingOf(read.wordBoxes);
    expect(await readMissedLines(pool as unknown as OcrPool, await rasterOfPage(), reading, () => 60_000)).toBe(reading);
    expect(pool.calls).toBe(maxRegionsPerPage);
  });
});
