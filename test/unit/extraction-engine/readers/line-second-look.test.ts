import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PositionedWord, TextLine } from '../../../../src/extraction-engine/document.ts';
import type { DocumentPage, PageArithmeticCheck } from '../../../../src/extraction-engine/document.ts';
import {
  chooseLineWords,
  decidingLines,
  repairedLineReadings,
  rereadMayRepair,
  rereadWhereArithmeticFails,
} from '../../../../src/extraction-engine/readers/line-second-look.ts';
import type { OcrPool } from '../../../../src/extraction-engine/readers/ocr-pool.ts';

/** Words laid side by side from x = 0.1, each 0.02 wide per character with a 0.02 gap, on one line at `y`. */
function placedWords(words: [string, number][], y = 0.1): PositionedWord[] {
  let x = 0.1;
  return words.map(([text, confidence]) => {
    const word = { text, confidence, placement: { x, y, width: 0.02 * text.length, height: 0.02 } };
    x += 0.02 * text.length + 0.02;
    return word;
  });
}

function lineOf(words: [string, number][], y = 0.1): TextLine {
  const placed = placedWords(words, y);
  const last = placed.at(-1)!.placement!;
  return { text: placed.map((word) => word.text).join(' '), words: placed, placement: { x: 0.1, y, width: last.x + last.width - 0.1, height: 0.02 } };
}

/** A re-read of `line` that spells the words as given, each in the same place as the first reading's word. */
function rereadOf(line: TextLine, texts: string[], confidence = 0.85): PositionedWord[] {
  return line.words.map((word, index) => ({ ...word, text: texts[index]!, confidence }));
}

describe('chooseLineWords', () => {
  const head = lineOf([['KEDAI', 0.95], ['MELATL', 0.72], ['SDN', 0.94], ['BHD', 0.95]]);

  it('replaces a word where both re-reads agree on another spelling, at the lower of their confidences', () => {
    const chosen = chooseLineWords(head, [rereadOf(head, ['KEDAI', 'MELATI', 'SDN', 'BHD'], 0.88), rereadOf(head, ['KEDAI', 'MELATI', 'SDN', 'BHD'], 0.8)]);

    expect(chosen.replaced).toBe(1);
    expect(chosen.line.text).toBe('KEDAI MELATI SDN BHD');
    expect(chosen.line.words[1]).toMatchObject({ text: 'MELATI', confidence: 0.8 });
    // The words the re-reads confirm keep their first reading and confidence.
    expect(chosen.line.words[0]).toEqual(head.words[0]);
  });

  it('keeps the first reading where the re-reads disagree, or one of them is unsure', () => {
    expect(chooseLineWords(head, [rereadOf(head, ['KEDAI', 'MELATI', 'SDN', 'BHD']), rereadOf(head, ['KEDAI', 'MELAT1', 'SDN', 'BHD'])]).line).toBe(head);
    const unsure = rereadOf(head, ['KEDAI', 'MELATI', 'SDN', 'BHD']).map((word) => ({ ...word, confidence: 0.3 }));
    expect(chooseLineWords(head, [rereadOf(head, ['KEDAI', 'MELATI', 'SDN', 'BHD']), unsure]).line).toBe(head);
    // One re-read alone never decides.
    expect(chooseLineWords(head, [rereadOf(head, ['KEDAI', 'MELATI', 'SDN', 'BHD'])]).line).toBe(head);
  });

  it('changes misread digits of an amount only in place: never its digit count or its decimal point', () => {
    const total = lineOf([['TOTAL', 0.95], ['1.40', 0.8]]);

    expect(chooseLineWords(total, [rereadOf(total, ['TOTAL', '7.40']), rereadOf(total, ['TOTAL', '7.40'])]).line.text).toBe('TOTAL 7.40');
    expect(chooseLineWords(total, [rereadOf(total, ['TOTAL', '140']), rereadOf(total, ['TOTAL', '140'])]).line).toBe(total);
    // Digits read surely and wrongly are repaired too, in place.
    const sure = lineOf([['TOTAL', 0.95], ['16.49', 0.93]]);
    expect(chooseLineWords(sure, [rereadOf(sure, ['TOTAL', '16.40']), rereadOf(sure, ['TOTAL', '16.40'])]).line.text).toBe('TOTAL 16.40');
    expect(chooseLineWords(total, [rereadOf(total, ['TOTAL', '71.40']), rereadOf(total, ['TOTAL', '71.40'])]).line).toBe(total);
  });

  it('repairs a few letters of a word, never turns it into another word', () => {
    const line = lineOf([['MR.', 0.92], ['DULY.', 0.4], ['(M)', 0.95], ['SDN', 0.9], ['BHO', 0.55]]);

    const chosen = chooseLineWords(line, [rereadOf(line, ['MR.', 'D.I.Y.', '(M)', 'SDN', 'WO']), rereadOf(line, ['MR.', 'D.I.Y.', '(M)', 'SDN', 'WO'])]);

    expect(chosen.line.text).toBe('MR. D.I.Y. (M) SDN BHO');
  });

  it('keeps words tesseract was sure of, and dates or amounts a re-read would make invalid', () => {
    const line = lineOf([['99', 0.96], ['SPEED', 0.92], ['MART', 0.95], ['17-06-13', 0.77]]);

    expect(chooseLineWords(line, [rereadOf(line, ['99', 'SPEED', 'HART', '17-66-13']), rereadOf(line, ['99', 'SPEED', 'HART', '17-66-13'])]).line).toBe(line);
  });

  it('never lets a repair cost the line its legal form, and may restore one', () => {
    const named = lineOf([['ROTI', 0.87], ['BAKERIES', 0.9], ['SDN', 0.73], ['BHD', 0.95]]);
    const misread = lineOf([['ROTI', 0.87], ['BAKERIES', 0.9], ['SON', 0.73], ['BHD', 0.95]]);

    expect(chooseLineWords(named, [rereadOf(named, ['ROTI', 'BAKERIES', 'SON', 'BHD']), rereadOf(named, ['ROTI', 'BAKERIES', 'SON', 'BHD'])]).line).toBe(named);
    expect(chooseLineWords(misread, [rereadOf(misread, ['ROTI', 'BAKERIES', 'SDN', 'BHD']), rereadOf(misread, ['ROTI', 'BAKERIES', 'SDN', 'BHD'])]).line.text).toBe('ROTI BAKERIES SDN BHD');
  });

  it('asks for a second re-read only when the first would repair a word', () => {
    expect(rereadMayRepair(head, rereadOf(head, ['KEDAI', 'MELATL', 'SDN', 'BHD']))).toBe(false);
    expect(rereadMayRepair(head, rereadOf(head, ['KEDAI', 'MELATI', 'SDN', 'BHD']))).toBe(true);
    expect(rereadMayRepair(head, rereadOf(head, ['KEDAI', 'MELATI', 'SDN', 'BHD']).slice(1))).toBe(false);
  });

  it('leaves a word alone where a re-read splits it in two or joins it with its neighbour', () => {
    const line = lineOf([['MR.', 0.5], ['DULY.', 0.4], ['(M)', 0.95]]);
    const [mr, duly, m] = line.words as [PositionedWord, PositionedWord, PositionedWord];
    const joined: PositionedWord = { text: 'MR.D.I.Y.', confidence: 0.9, placement: { ...mr.placement!, width: duly.placement!.x + duly.placement!.width - mr.placement!.x } };
    const chosen = chooseLineWords(line, [[joined, { ...m, confidence: 0.9 }], rereadOf(line, ['MR.', 'D.I.Y.', '(M)'])]);

    expect(chosen.line).toBe(line);
  });

  describe('a word the page reading left out between two of its words', () => {
    // "(TH)" faint between the name and its legal form: the page went from "BROTHERS" straight to "SDN".
    const line = lineOf([['SENTOSA', 0.87], ['BROTHERS', 0.95], ['SDN', 0.96], ['BHD', 0.96]]);
    const reread = (texts: [string, number][]): PositionedWord[] => placedWords(texts);

    it('is added where both re-reads read it between the same neighbours, even when they split another word differently', () => {
      const chosen = chooseLineWords(line, [
        reread([['SENTOSA', 0.9], ['BROTHERS', 0.95], ['(TH)', 0.86], ['SDN', 0.95], ['BHD', 0.95]]),
        reread([['SENTOSA', 0.9], ['BROTHERS', 0.95], ['(TH)', 0.81], ['SDN', 0.94], ['BH', 0.9], ['D', 0.9]]),
      ]);

      expect(chosen.line.text).toBe('SENTOSA BROTHERS (TH) SDN BHD');
      expect(chosen.replaced).toBe(1);
      expect(chosen.line.words[2]).toMatchObject({ text: '(TH)', confidence: 0.81 });
    });

    it('asks for the second re-read when the first holds such a word', () => {
      expect(rereadMayRepair(line, reread([['SENTOSA', 0.9], ['BROTHERS', 0.95], ['(TH)', 0.86], ['SDN', 0.95], ['BHD', 0.95]]))).toBe(true);
    });

    it('is not added when one re-read lacks it, reads it otherwise, or reads it unsurely', () => {
      const withIt = reread([['SENTOSA', 0.9], ['BROTHERS', 0.95], ['(TH)', 0.86], ['SDN', 0.95], ['BHD', 0.95]]);
      expect(chooseLineWords(line, [withIt, rereadOf(line, ['SENTOSA', 'BROTHERS', 'SDN', 'BHD'], 0.95)]).line).toBe(line);
      expect(chooseLineWords(line, [withIt, reread([['SENTOSA', 0.9], ['BROTHERS', 0.95], ['(T4)', 0.86], ['SDN', 0.95], ['BHD', 0.95]])]).line).toBe(line);
      expect(chooseLineWords(line, [withIt, reread([['SENTOSA', 0.9], ['BROTHERS', 0.95], ['(TH)', 0.3], ['SDN', 0.95], ['BHD', 0.95]])]).line).toBe(line);
    });

    it('needs two neighbours of more than one character: a speck anchors nothing, and a word read twice is a stutter', () => {
      const specked = lineOf([['SENTOSA', 0.87], ['|', 0.6], ['SDN', 0.96], ['BHD', 0.96]]);
      const speckRead = placedWords([['SENTOSA', 0.9], ['|', 0.9], ['HOME', 0.9], ['SDN', 0.95], ['BHD', 0.95]]);
      expect(chooseLineWords(specked, [speckRead, speckRead]).line).toBe(specked);
      const stutter = reread([['SENTOSA', 0.9], ['BROTHERS', 0.95], ['BROTHERS', 0.9], ['SDN', 0.95], ['BHD', 0.95]]);
      expect(chooseLineWords(line, [stutter, stutter]).line).toBe(line);
    });
  });
});

describe('repairedLineReadings', () => {
  const total = lineOf([['1.40', 0.93]]);
  const word = (text: string, confidence = 0.85): PositionedWord => ({ text, confidence });

  it('offers the spelling both re-reads agree on first, then each re-read alone, pairing digits by their place on the line', () => {
    // "7 .40" is split differently from "1.40" but has its characters in the same places.
    expect(repairedLineReadings(total, [[word('7'), word('.40')], [word('7.40')]]).map((line) => line.text)).toEqual(['7.40']);
    expect(repairedLineReadings(total, [[word('1.40')], [word('7.40')]]).map((line) => line.text)).toEqual(['7.40']);
    expect(repairedLineReadings(total, [[word('8.40')], [word('7.40')]]).map((line) => line.text)).toEqual(['8.40', '7.40']);
    expect(repairedLineReadings(total, [[word('7.40', 0.7)], [word('7.40', 0.8)]])[0]!.words[0]).toMatchObject({ text: '7.40', confidence: 0.7 });
  });

  it('offers no reading that moves a decimal point, changes the digit count, or touches a word without digits', () => {
    expect(repairedLineReadings(total, [[word('14.0')], [word('140')]])).toEqual([]);
    expect(repairedLineReadings(total, [[word('71.40')], [word('1.40')]])).toEqual([]);
    const labelled = lineOf([['TOTAL', 0.7], ['1.40', 0.93]]);
    expect(repairedLineReadings(labelled, [[word('TOTAI'), word('1.40')], [word('TOTAI'), word('1.40')]])).toEqual([]);
  });
});

describe('rereadWhereArithmeticFails', () => {
  const page: DocumentPage = { pageNumber: 1, source: 'ocr', lines: [lineOf([['TOTAL', 0.95]], 0.1), lineOf([['1.40', 0.93]], 0.2), lineOf([['7.40', 0.9]], 0.3)] };
  // The arithmetic of a page whose total (line 1) must equal the tendered amount (line 2).
  const check: PageArithmeticCheck = {
    linesToReread: (read) => (read.lines[1]!.text === read.lines[2]!.text ? [] : [1, 2]),
    agrees: (read) => read.lines[1]!.text === read.lines[2]!.text,
  };
  /**
   * A stand-in for the OCR pool that reads each crop of line 1 as the next of `line1` and each of line
   * 2 as the next of `line2`. The lines' crops are read at once, so they reach the pool in any order:
   * line 2's crop is told apart by the dark bar the raster has on that line only.
   */
  const poolReading = (line1: string[], line2: string[]) =>
    ({
      recognize: async (image: { bytes: Buffer }) => {
        const { channels } = await sharp(image.bytes).stats();
        const text = (channels[0]!.min < 128 ? line2 : line1).shift()!;
        return [{ text, words: [{ text, confidence: 0.85 }] }];
      },
    }) as unknown as OcrPool;
  let raster: { bytes: Buffer; width: number; height: number };
  const rasterOf = async () =>
    (raster ??= {
      bytes: await sharp({ create: { width: 400, height: 400, channels: 3, background: 'white' } })
        .composite([{ input: { create: { width: 20, height: 4, channels: 3, background: 'black' } }, left: 45, top: 122 }])
        .png()
        .toBuffer(),
      width: 400,
      height: 400,
    });

  it('keeps a re-read digit where the page then agrees', async () => {
    // Line 1 read again as 1.40 and 7.40, line 2 as 7.40 twice: one re-read alone repairs the total, and the page adds up.
    const reread = await rereadWhereArithmeticFails(poolReading(['1.40', '7.40'], ['7.40', '7.40']), await rasterOf(), page, check, () => 60_000);
    expect(reread.lines.map((line) => line.text)).toEqual(['TOTAL', '7.40', '7.40']);
  });

  it('keeps the first reading where no re-read makes the page agree', async () => {
    const reread = await rereadWhereArithmeticFails(poolReading(['8.40', '8.40'], ['7.40', '7.40']), await rasterOf(), page, check, () => 60_000);
    expect(reread).toBe(page);
  });
});

describe('decidingLines', () => {
  it('picks the head name with its legal form, the date and the total amount (on the label line or the line under it) where a word is doubted', () => {
    const lines = [
      lineOf([['KEDAI', 0.95], ['MELATL', 0.72], ['SDN', 0.94], ['BHD', 0.95]], 0.05),
      lineOf([['Jalan', 0.95], ['Ampang', 0.95]], 0.08),
      lineOf([['Date:', 0.95], ['03/11/2019', 0.85]], 0.2),
      lineOf([['Teh', 0.8], ['Tarik', 0.7], ['2.50', 0.9]], 0.3),
      lineOf([['TOTAL', 0.95]], 0.5),
      lineOf([['RM', 0.9], ['12.50', 0.86]], 0.53),
      lineOf([['Thank', 0.6], ['you', 0.7]], 0.9),
    ];

    expect(decidingLines(lines)).toEqual([0, 2, 5]);
  });

  it('takes the first line of words at the head when no legal form was read, a total under an unsure label, and only dates with one kind of separator', () => {
    const lines = [
      lineOf([['|', 0.5]], 0.02),
      lineOf([['KEDAI', 0.95], ['MELATL', 0.72], ['SON', 0.6], ['BHO', 0.55]], 0.05),
      lineOf([['MI11/3-21', 0.7], ['-', 0.8], ['12/480', 0.85]], 0.3),
      lineOf([['TOTAL', 0.62]], 0.5),
      lineOf([['16.49', 0.93]], 0.53),
    ];

    expect(decidingLines(lines)).toEqual([1, 4]);
  });

  it('leaves lines every word of which tesseract was sure of', () => {
    const lines = [lineOf([['KEDAI', 0.95], ['MELATI', 0.93], ['SDN', 0.94], ['BHD', 0.95]], 0.05), lineOf([['Total', 0.95], ['12.50', 0.96]], 0.5)];

    expect(decidingLines(lines)).toEqual([]);
  });
});
