import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { TextLine } from '../../../../src/extraction-engine/document.ts';
import { isDoubtful, linesOnPage, planLineStacks, rereadDoubtfulLines } from '../../../../src/extraction-engine/readers/doubtful-lines.ts';
import type { OcrImage, OcrLanguage, OcrPool, PageLayout } from '../../../../src/extraction-engine/readers/ocr-pool.ts';

const line = (text: string, confidences: number[], y: number): TextLine => ({
  text,
  placement: { x: 0.1, y, width: 0.5, height: 0.02 },
  words: text.split(' ').map((word, index) => ({ text: word, confidence: confidences[index]!, placement: { x: 0.1 + index * 0.2, y, width: 0.15, height: 0.02 } })),
});

describe('isDoubtful', () => {
  it('is true when any word is below the confidence, false when all are at or above it', () => {
    expect(isDoubtful(line('TOTAL 12.50', [0.95, 0.6], 0.5), 0.8)).toBe(true);
    expect(isDoubtful(line('TOTAL 12.50', [0.95, 0.8], 0.5), 0.8)).toBe(false);
  });
});

describe('planLineStacks', () => {
  const page = { width: 1000, height: 2000 };
  // Six lines of the same height; the first two are twice as long as the other four.
  const boxes = [
    { left: 100, top: 100, width: 800, height: 40 },
    { left: 100, top: 200, width: 800, height: 40 },
    ...[300, 400, 500, 600].map((top) => ({ left: 100, top, width: 400, height: 40 })),
  ];

  it('shares the lines out in reading order by length, so each stack holds about the same text', () => {
    const stacks = planLineStacks(boxes, page, 2);

    expect(stacks.map((stack) => stack.crops.map((crop) => crop.line))).toEqual([
      [0, 1],
      [2, 3, 4, 5],
    ]);
  });

  it('pads each crop by a quarter of the line height above and below, and stacks crops a gap apart', () => {
    const [stack] = planLineStacks(boxes.slice(0, 2), page, 1);

    expect(stack!.crops.map((crop) => crop.source)).toEqual([
      { left: 80, top: 90, width: 840, height: 60 },
      { left: 80, top: 190, width: 840, height: 60 },
    ]);
    // Gap: half the tallest crop (30 px), above, between and below the crops and at their left.
    expect(stack!.crops.map((crop) => crop.top)).toEqual([30, 120]);
    expect(stack).toMatchObject({ width: 900, height: 210 });
    expect(stack!.crops.every((crop) => crop.left === 30)).toBe(true);
  });

  it('in place, leaves every crop where it is on a page-sized image', () => {
    const stacks = planLineStacks(boxes, page, 2, 'in-place');

    expect(stacks.map((stack) => [stack.width, stack.height])).toEqual([
      [1000, 2000],
      [1000, 2000],
    ]);
    expect(stacks.flatMap((stack) => stack.crops).every((crop) => crop.left === crop.source.left && crop.top === crop.source.top)).toBe(true);
  });

  it('makes no more stacks than lines', () => {
    expect(planLineStacks(boxes.slice(0, 1), page, 2)).toHaveLength(1);
  });
});

describe('linesOnPage', () => {
  it('gives each line read on the stack to the crop its middle lies in, placed back on the page; lines in a gap are dropped', () => {
    const page = { width: 1000, height: 2000 };
    const [stack] = planLineStacks(
      [
        { left: 100, top: 100, width: 800, height: 40 },
        { left: 200, top: 1500, width: 400, height: 40 },
      ],
      page,
      1,
    );
    // Read on the stack (900 x 210): the second crop's text at x 30..430, y 125..165; a speck in the bottom gap.
    const read: TextLine[] = [
      { text: 'RM 80.91', words: [{ text: 'RM', confidence: 0.9, placement: { x: 30 / 900, y: 125 / 210, width: 100 / 900, height: 40 / 210 } }], placement: { x: 30 / 900, y: 125 / 210, width: 400 / 900, height: 40 / 210 } },
      { text: '.', words: [{ text: '.', confidence: 0.5, placement: { x: 0.5, y: 195 / 210, width: 0.01, height: 5 / 210 } }], placement: { x: 0.5, y: 195 / 210, width: 0.01, height: 5 / 210 } },
    ];

    const placed = linesOnPage(read, stack!, page);

    expect([...placed.keys()]).toEqual([1]);
    const word = placed.get(1)![0]!.words[0]!.placement!;
    // The second crop starts at (180, 1490) on the page and at (30, 120) on the stack.
    expect(word.x).toBeCloseTo(180 / 1000);
    expect(word.y).toBeCloseTo(1495 / 2000);
  });
});

describe('rereadDoubtfulLines', () => {
  it('reads only the doubtful lines again, with the languages asked for, and keeps the sure ones as read', async () => {
    const image: OcrImage = { bytes: await sharp({ create: { width: 1000, height: 1000, channels: 3, background: '#ffffff' } }).greyscale().png().toBuffer(), width: 1000, height: 1000 };
    const asked: { width: number; height: number; languages?: readonly OcrLanguage[]; layout?: PageLayout }[] = [];
    const ocr = {
      size: 1,
      recognize: async (stack: OcrImage, options: { languages?: readonly OcrLanguage[]; layout?: PageLayout }) => {
        asked.push({ width: stack.width, height: stack.height, ...options });
        // The ensemble reads the first crop (rows 15-45 of the stack) as "TOTAL 12.50", the second as nothing.
        const y = 20 / stack.height;
        return [{ text: 'TOTAL 12.50', placement: { x: 0.1, y, width: 0.5, height: 20 / stack.height }, words: [{ text: 'TOTAL', confidence: 0.9, placement: { x: 0.1, y, width: 0.2, height: 20 / stack.height } }, { text: '12.50', confidence: 0.9, placement: { x: 0.4, y, width: 0.2, height: 20 / stack.height } }] }];
      },
    } as unknown as OcrPool;
    const lines = [line('SHOP SDN BHD', [0.95, 0.9, 0.92], 0.1), line('TOTAL 1Z.5O', [0.95, 0.3], 0.5), line('THANK YOU', [0.9, 0.1], 0.8)];

    const result = await rereadDoubtfulLines(ocr, image, lines, { languages: ['eng', 'deu'], doubtfulWordConfidence: 0.8, timeoutMs: () => 1000 });

    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ languages: ['eng', 'deu'], layout: 'single-block' });
    // Two doubtful lines of 20 px (crops 30 px high, gaps 15 px) in one stack.
    expect(asked[0]!.height).toBe(15 + 30 + 15 + 30 + 15);
    // The sure line stays; the first doubtful line is replaced and placed back where it was read; the
    // second, which the ensemble found nothing in, keeps its own words above the noise level.
    expect(result.map((each) => each.text)).toEqual(['SHOP SDN BHD', 'TOTAL 12.50', 'THANK']);
    expect(result[1]!.placement!.y).toBeCloseTo(0.5, 2);
  });

  it('reads doubtful pieces of one row (a line cut at a wide gap) again as one crop', async () => {
    const image: OcrImage = { bytes: await sharp({ create: { width: 1000, height: 1000, channels: 3, background: '#ffffff' } }).greyscale().png().toBuffer(), width: 1000, height: 1000 };
    const heights: number[] = [];
    const ocr = {
      size: 2,
      recognize: async (stack: OcrImage) => {
        heights.push(stack.height);
        return [];
      },
    } as unknown as OcrPool;
    const number: TextLine = { ...line('CS00031665', [0.5], 0.3), placement: { x: 0.05, y: 0.3, width: 0.3, height: 0.02 } };
    const date: TextLine = { ...line('Date 25/12/2018', [0.9, 0.5], 0.3), placement: { x: 0.6, y: 0.3, width: 0.35, height: 0.02 } };

    await rereadDoubtfulLines(ocr, image, [number, date], { languages: ['eng'], doubtfulWordConfidence: 0.8, timeoutMs: () => 1000 });

    // One crop of 30 px (20 px row, 5 px above and below) between gaps of 15 px, on one worker although two are free.
    expect(heights).toEqual([15 + 30 + 15]);
  });
});
