import type { Block, Line, Word } from 'tesseract.js';
import { describe, expect, it } from 'vitest';
import { chooseWords, mergeReadings } from '../../../../src/extraction-engine/readers/ensemble-merge.ts';

// Synthetic readings: words as [text, confidence, left, right] on a line at a given height.

type W = [text: string, confidence: number, left: number, right: number];

function word([text, confidence, x0, x1]: W, y0 = 100, y1 = 130): Word {
  return { text, confidence, bbox: { x0, y0, x1, y1 }, symbols: [], choices: [], font_name: '' };
}

function line(words: W[], y0 = 100, y1 = 130): Line {
  const placed = words.map((entry) => word(entry, y0, y1));
  return {
    words: placed,
    text: placed.map((entry) => entry.text).join(' '),
    confidence: 90,
    bbox: { x0: Math.min(...placed.map((entry) => entry.bbox.x0)), y0, x1: Math.max(...placed.map((entry) => entry.bbox.x1)), y1 },
  } as Line;
}

function reading(...lines: Line[]): Block[] {
  return [{ paragraphs: [{ lines, text: '', confidence: 90, bbox: { x0: 0, y0: 0, x1: 1000, y1: 1000 }, is_ltr: true }], text: '', confidence: 90, bbox: { x0: 0, y0: 0, x1: 1000, y1: 1000 } } as unknown as Block];
}

const texts = (words: Word[]): string[] => words.map((entry) => entry.text);
const lineTexts = (blocks: Block[]): string[] => blocks.flatMap((block) => block.paragraphs.flatMap((paragraph) => paragraph.lines.map((entry) => entry.text)));

describe('chooseWords', () => {
  it('takes each word from the reading that is surer of it, word by word', () => {
    const base = [word(['TOTAL', 95, 0, 100]), word(['8O.90', 60, 120, 200])];
    const other = [word(['TOTAI', 70, 0, 100]), word(['80.90', 91, 120, 200])];
    expect(texts(chooseWords(base, other))).toEqual(['TOTAL', '80.90']);
  });

  it('keeps the base reading on a tie, as tesseract keeps the language it tried first', () => {
    expect(texts(chooseWords([word(['CASH', 80, 0, 90])], [word(['CAŚH', 80, 0, 90])]))).toEqual(['CASH']);
  });

  it('compares one word of a reading with the two words the other split it into, by their least sure word', () => {
    const base = [word(['SDNBHD', 70, 0, 200]), word(['KL', 90, 220, 260])];
    // "SDN BHD" ends where "SDNBHD" ends: one group against one word; its least sure word (75) beats 70.
    const other = [word(['SDN', 95, 0, 90]), word(['BHD', 75, 110, 200]), word(['KI', 60, 220, 260])];
    expect(texts(chooseWords(base, other))).toEqual(['SDN', 'BHD', 'KL']);
    // One doubtful half makes the pair lose: the group is as sure as its least sure word.
    const doubtful = [word(['SDN', 95, 0, 90]), word(['8HD', 65, 110, 200])];
    expect(texts(chooseWords(base, doubtful))).toEqual(['SDNBHD', 'KL']);
  });

  it('keeps the base word when the other is surer of its least sure character but doubts more of them (a higher rating)', () => {
    const withSymbols = (entry: W, symbolConfidences: number[]): Word => ({
      ...word(entry),
      symbols: symbolConfidences.map((confidence, index) => ({ text: entry[0][index] ?? '', confidence }) as Word['symbols'][number]),
    });
    const base = [withSymbols(['TOTAL', 80, 0, 100], [80, 99, 99, 99, 99])];
    const other = [withSymbols(['T0TAL', 85, 0, 100], [99, 85, 85, 85, 85])];
    expect(texts(chooseWords(base, other))).toEqual(['TOTAL']);
    const surerThroughout = [withSymbols(['T0TAL', 85, 0, 100], [99, 85, 99, 99, 99])];
    expect(texts(chooseWords(base, surerThroughout))).toEqual(['T0TAL']);
  });

  it('takes a word only the other reading found with the group it falls in, when that group is surer', () => {
    const base = [word(['NO', 90, 0, 50]), word(['123', 90, 300, 360])];
    const surer = [word(['NO', 85, 0, 50]), word(['INV', 95, 100, 200]), word(['123', 96, 300, 360])];
    expect(texts(chooseWords(base, surer))).toEqual(['NO', 'INV', '123']);
    const lessSure = [word(['NO', 85, 0, 50]), word(['INV', 95, 100, 200]), word(['l23', 70, 300, 360])];
    expect(texts(chooseWords(base, lessSure))).toEqual(['NO', '123']);
  });

  it('keeps the words past the end of the other reading of the line, on either side', () => {
    const short = [word(['NO', 85, 0, 50])];
    const long = [word(['NO', 90, 0, 50]), word(['123', 40, 300, 360])];
    expect(texts(chooseWords(long, short))).toEqual(['NO', '123']);
    expect(texts(chooseWords(short, long))).toEqual(['NO', '123']);
  });
});

describe('mergeReadings', () => {
  it('pairs lines by their height and merges each pair, keeping lines only one reading found', () => {
    const first = reading(line([['GARDENIA', 92, 0, 150], ['BAKERIES', 55, 170, 320]], 100, 130), line([['TOTAL', 90, 0, 90], ['12.00', 90, 300, 380]], 400, 430));
    const second = reading(
      line([['GARDENIA', 90, 0, 150], ['BAKERIES', 88, 170, 320]], 102, 131),
      line([['Thank', 80, 0, 90], ['you', 80, 100, 150]], 600, 630),
    );
    const merged = mergeReadings([first, second]);
    expect(lineTexts(merged)).toEqual(['GARDENIA BAKERIES', 'TOTAL 12.00', 'Thank you']);
    const firstLine = merged[0]!.paragraphs[0]!.lines[0]!;
    expect(firstLine.words.map((entry) => entry.confidence)).toEqual([92, 88]);
    expect(firstLine.confidence).toBe(90);
  });

  it('does not pair lines at different heights, so a line is never merged with its neighbour', () => {
    const first = reading(line([['DATE', 90, 0, 80]], 100, 130));
    const second = reading(line([['TIME', 99, 0, 80]], 140, 170));
    expect(lineTexts(mergeReadings([first, second]))).toEqual(['DATE', 'TIME']);
  });

  it('returns a single reading as it is', () => {
    const only = reading(line([['A', 90, 0, 10]]));
    expect(mergeReadings([only])).toBe(only);
  });
});
