import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PositionedWord, TextLine } from '../../../../src/extraction-engine/document.ts';
import { headBand, headIsDoubtful, mergeHeadLine, mergeHeadReading, readHeadAhead, secondLookAtTheHead } from '../../../../src/extraction-engine/readers/line-second-look.ts';
import type { OcrPool } from '../../../../src/extraction-engine/readers/ocr-pool.ts';
import { TimeBudgetExceededError } from '../../../../src/extraction-engine/readers/time-budget.ts';

// Synthetic receipt heads (no corpus file): the band above the address, when it is in doubt, and how
// its re-read joins the first reading.

/** Words laid side by side from `x`, each 0.02 wide per character with a 0.02 gap, on one line at `y`. */
function lineOf(words: [string, number][], y: number, x = 0.1, height = 0.02): TextLine {
  let left = x;
  const placed: PositionedWord[] = words.map(([text, confidence]) => {
    const word = { text, confidence, placement: { x: left, y, width: 0.02 * text.length, height } };
    left += 0.02 * text.length + 0.02;
    return word;
  });
  const last = placed.at(-1)!.placement!;
  return { text: placed.map((word) => word.text).join(' '), words: placed, placement: { x, y, width: last.x + last.width - x, height } };
}

const address = lineOf([['No', 0.95], ['8,', 0.95], ['Jalan', 0.95], ['Desa', 0.95]], 0.2);
const phone = lineOf([['Tel', 0.95], [':', 0.95], ['03-9201', 0.95], ['6281', 0.95]], 0.23);
const item = lineOf([['Teh', 0.95], ['Tarik', 0.95], ['2.50', 0.95]], 0.5);

describe('headBand', () => {
  it('ends above the first address or registration line, keeping a name line that carries its company number', () => {
    const name = lineOf([['KEDAI', 0.95], ['MELATI', 0.95], ['SDN', 0.95], ['BHD', 0.95], ['(860671-D)', 0.95]], 0.1);
    const band = headBand([name, address, phone, item]);
    expect(band).toEqual({ top: 0, bottom: 0.2, lines: [0] });
  });

  it('ends at a company number line, a tax number line or a postcode with its town as well', () => {
    const name = lineOf([['KEDAI', 0.95], ['MELATI', 0.95]], 0.05);
    expect(headBand([name, lineOf([['(123456-X)', 0.95]], 0.08), item])?.bottom).toBe(0.08);
    expect(headBand([name, lineOf([['GST', 0.95], ['ID:', 0.95], ['000381399040', 0.95]], 0.09), item])?.bottom).toBe(0.09);
    expect(headBand([name, lineOf([['40300', 0.95], ['Shah', 0.95], ['Alam', 0.95]], 0.11), item])?.bottom).toBe(0.11);
  });

  it('is undefined where no address or registration line is near the top of the page', () => {
    expect(headBand([lineOf([['KEDAI', 0.95], ['MELATI', 0.95]], 0.05), item, lineOf([['Jalan', 0.95], ['Ampang', 0.95]], 0.6)])).toBeUndefined();
  });
});

describe('headIsDoubtful', () => {
  it('is not in doubt where the legal name above the address was read surely', () => {
    const lines = [lineOf([['KEDAI', 0.95], ['MELATI', 0.92], ['SDN', 0.95], ['BHD', 0.95]], 0.1), address];
    expect(headIsDoubtful(lines, headBand(lines)!)).toBe(false);
  });

  it('is in doubt where a word of the head was doubted, or the head holds no word at all', () => {
    const doubted = [lineOf([['KEDAI', 0.95], ['MELATL', 0.72], ['SDN', 0.95], ['BHD', 0.95]], 0.1), address];
    expect(headIsDoubtful(doubted, headBand(doubted)!)).toBe(true);
    const empty = [lineOf([['|', 0.9]], 0.05), address];
    expect(headIsDoubtful(empty, headBand(empty)!)).toBe(true);
  });

  it('leaves a head of sure words without a legal form alone', () => {
    const lines = [lineOf([['BERRY\'S', 0.95], ['CAKE', 0.93], ['HOUSE', 0.95]], 0.1), address];
    expect(headIsDoubtful(lines, headBand(lines)!)).toBe(false);
  });
});

describe('mergeHeadLine', () => {
  it('takes the re-read where it holds the first reading word for word and more words read surely', () => {
    const first = lineOf([['CONFECTIONERY', 0.9], ['SDN', 0.95], ['BHD', 0.96]], 0.06, 0.3);
    const reread = lineOf([['VERBENA', 0.81], ['CONFECTIONERY', 0.84], ['SDN', 0.94], ['BHD', 0.96]], 0.06, 0.14);
    const merged = mergeHeadLine(first, reread);
    expect(merged.changed).toBe(true);
    expect(merged.line.text).toBe('VERBENA CONFECTIONERY SDN BHD');
    // The first reading's words keep their confidences; the line reaches over the added word.
    expect(merged.line.words[1]!.confidence).toBe(0.9);
    expect(merged.line.placement!.x).toBeCloseTo(0.14);
  });

  it('does not add words the re-read doubts, nor take a re-read that spells the first words otherwise', () => {
    const first = lineOf([['CONFECTIONERY', 0.9], ['SDN', 0.95], ['BHD', 0.96]], 0.06, 0.3);
    expect(mergeHeadLine(first, lineOf([['kasuje', 0.3], ['CONFECTIONERY', 0.84], ['SDN', 0.94], ['BHD', 0.96]], 0.06, 0.14)).changed).toBe(false);
    expect(mergeHeadLine(first, lineOf([['VERBENA', 0.93], ['CONFECTIUNERY', 0.58], ['SON', 0.76], ['BHD', 0.56]], 0.06, 0.14)).changed).toBe(false);
  });

  it('respells a doubted word the re-read reads surer, never a sure word nor a word of the legal form', () => {
    const first = lineOf([['/', 0.61], ['ENTERPRISE', 0.92], ['(5ETIA', 0.74], ['ALAM)', 0.66], ['SDN', 0.6], ['BHD', 0.9]], 0.13);
    const merged = mergeHeadLine(first, lineOf([['/', 0.88], ['ENTERPR1SE', 0.99], ['(SETIA', 0.89], ['Alan)', 0.95], ['SON', 0.9], ['BHD', 0.9]], 0.13));
    // "Alan)" is surer, but a repair may not change more than half a word ("ALAM)" stays); so does "SDN" of the legal form.
    expect(merged.line.text).toBe('/ ENTERPRISE (SETIA ALAM) SDN BHD');
    expect(merged.line.words[2]!.confidence).toBe(0.89);
  });

  it('keeps a doubted word the re-read reads no surer', () => {
    const first = lineOf([['TED', 0.77], ['HENG', 0.92]], 0.015);
    expect(mergeHeadLine(first, lineOf([['TEO', 0.8], ['HENG', 0.92]], 0.015)).changed).toBe(false);
  });
});

describe('mergeHeadReading', () => {
  it('adds a line read surely where the first reading had no line of letters, and leaves noise out', () => {
    const lines = [lineOf([['|', 0.9]], 0.04), lineOf([['(Co.', 0.94], ['No.', 0.93], ['113825-W)', 0.91]], 0.15), address, item];
    const reread = [
      lineOf([['POPULAR', 0.95], ['BOOK', 0.95]], 0.078, 0.15, 0.03),
      lineOf([['CO.', 0.9], ['(M)', 0.93], ['SDN', 0.95], ['BHD', 0.95]], 0.113, 0.12, 0.03),
      lineOf([['GR', 0.32], ['oof', 0.38]], 0.03),
      lineOf([['(Co.', 0.95], ['No.', 0.92], ['113825-W)', 0.91]], 0.15),
    ];
    const merged = mergeHeadReading(lines, headBand(lines)!.bottom, reread);
    expect(merged.added).toBe(2);
    expect(merged.lines.map((line) => line.text)).toEqual(['|', 'POPULAR BOOK', 'CO. (M) SDN BHD', '(Co. No. 113825-W)', address.text, item.text]);
  });

  it('adds a large line whose box reaches down over the top of the line under it, and adds a line only once whatever its box', () => {
    const lines = [lineOf([['(Co.', 0.94], ['No.', 0.93], ['113825-W)', 0.91]], 0.122, 0.1, 0.015), address, item];
    // Read large, the line's box runs from 0.086 to 0.138: its middle is above the company number line.
    const large = lineOf([['CO.', 0.9], ['(M)', 0.93], ['SDN', 0.95], ['BHD', 0.95]], 0.086, 0.12, 0.052);
    // The same line read again with a box taking in specks above it is not added twice.
    const withSpecks = lineOf([['CO.', 0.9], ['(M)', 0.93], ['SDN', 0.95], ['BHD', 0.95], ['4', 0.9]], 0.0, 0.12, 0.1);
    const merged = mergeHeadReading(lines, 0.2, [large, withSpecks]);
    expect(merged.added).toBe(1);
    expect(merged.lines.map((line) => line.text)).toEqual(['CO. (M) SDN BHD', '(Co. No. 113825-W)', address.text, item.text]);
  });
});

describe('secondLookAtTheHead', () => {
  let raster: { bytes: Buffer; width: number; height: number };
  const rasterOf = async () => (raster ??= { bytes: await sharp({ create: { width: 400, height: 800, channels: 3, background: 'white' } }).png().toBuffer(), width: 400, height: 800 });
  /** A stand-in for the OCR pool that reads every crop as `lines` (placed on the crop) and counts its calls. */
  const poolReading = (lines: TextLine[]) => {
    const pool = { calls: 0, recognize: async () => ((pool.calls += 1), lines) };
    return pool;
  };
  const body = [address, phone, item, lineOf([['TOTAL', 0.95], ['12.50', 0.95]], 0.6), lineOf([['Thank', 0.95], ['you', 0.95]], 0.8)];

  it('reads the band of a doubted head again and takes the surer spelling', async () => {
    const head = lineOf([['KEDAI', 0.95], ['MELATL', 0.62], ['SDN', 0.95], ['BHD', 0.95]], 0.1);
    // The band is the top fifth of the page: a line at 0.5 of the crop is at 0.1 of the page.
    const pool = poolReading([lineOf([['KEDAI', 0.95], ['MELATI', 0.91], ['SDN', 0.95], ['BHD', 0.95]], 0.5, 0.1, 0.1)]);
    const lines = await secondLookAtTheHead(pool as unknown as OcrPool, await rasterOf(), [head, ...body], () => 60_000);
    // Read twice (two sizes); the second read agrees with the repaired line and changes nothing more.
    expect(pool.calls).toBe(2);
    expect(lines[0]!.text).toBe('KEDAI MELATI SDN BHD');
    expect(lines.slice(1)).toEqual(body);
  });

  it('does not read a head read surely with no unread ink above the address', async () => {
    const head = lineOf([['KEDAI', 0.95], ['MELATI', 0.95], ['SDN', 0.95], ['BHD', 0.95]], 0.1);
    const pool = poolReading([]);
    const lines = [head, ...body];
    expect(await secondLookAtTheHead(pool as unknown as OcrPool, await rasterOf(), lines, () => 60_000)).toBe(lines);
    expect(pool.calls).toBe(0);
  });

  it('gives each read of the band no longer than the page reading took, and keeps the first reading where the band runs over', async () => {
    const head = lineOf([['KEDAI', 0.95], ['MELATL', 0.62], ['SDN', 0.95], ['BHD', 0.95]], 0.1);
    const timeouts: number[] = [];
    // A band of textured background: tesseract reads specks until the time it was given runs out.
    const speckled = {
      recognize: async (_image: unknown, options: { timeoutMs: number }) => {
        timeouts.push(options.timeoutMs);
        throw new TimeBudgetExceededError('OCR of one page', options.timeoutMs);
      },
    };
    const lines = [head, ...body];
    expect(await secondLookAtTheHead(speckled as unknown as OcrPool, await rasterOf(), lines, () => 60_000, undefined, 2_500)).toBe(lines);
    expect(timeouts).toEqual([2_500, 2_500]);
    // A quick page reading still leaves the band the time a second look needs; a nearly spent page budget is less.
    timeouts.length = 0;
    await secondLookAtTheHead(speckled as unknown as OcrPool, await rasterOf(), lines, () => 60_000, undefined, 800);
    expect(timeouts).toEqual([2_000, 2_000]);
    timeouts.length = 0;
    let left = 2_300;
    await secondLookAtTheHead(speckled as unknown as OcrPool, await rasterOf(), lines, () => (left -= 100), undefined, 5_000);
    expect(timeouts).toHaveLength(2);
    expect(Math.max(...timeouts)).toBeLessThan(2_300);
  });

  describe('with the band read ahead during the page reading', () => {
    // The top of the page read alone (0.35 of it, so a line at 0.1 of the page is at 0.1 / 0.35 of
    // the crop): the name, then the address line that ends the band. The band's own reads (the top
    // fifth of the page) read the name surely.
    const onTopCrop = (line: TextLine): TextLine => lineOf(line.words.map((word) => [word.text, word.confidence ?? 1]), line.placement!.y / 0.35, 0.1, 0.02 / 0.35);
    const doubted = lineOf([['KEDAI', 0.95], ['MELATL', 0.62], ['SDN', 0.95], ['BHD', 0.95]], 0.1);
    const bandRead = [lineOf([['KEDAI', 0.95], ['MELATI', 0.91], ['SDN', 0.95], ['BHD', 0.95]], 0.5, 0.1, 0.1)];
    /** A pool of two workers whose first recognition is the top of the page, the later ones the band. */
    const poolReadingAhead = (top: TextLine[]) => {
      const pool = { size: 2, calls: 0, recognize: async () => ((pool.calls += 1), pool.calls === 1 ? top : bandRead) };
      return pool;
    };

    it('uses the band read ahead where the page reading puts the head where the top of the page did', async () => {
      const pool = poolReadingAhead([onTopCrop(doubted), onTopCrop(address)]);
      const ahead = readHeadAhead(pool as unknown as OcrPool, await rasterOf(), 'single-block', () => 60_000);
      const lines = await secondLookAtTheHead(pool as unknown as OcrPool, await rasterOf(), [doubted, ...body], () => 60_000, ahead);
      // The top of the page and the band at two sizes: nothing is read after the page reading.
      expect(pool.calls).toBe(3);
      expect(lines[0]!.text).toBe('KEDAI MELATI SDN BHD');
      expect(lines.slice(1)).toEqual(body);
    });

    it('reads the band again where the page reading ends the head elsewhere, without waiting for the reads ahead', async () => {
      // Read alone, the top of the page showed the address a line lower than the page reading did.
      // The band's reads ahead (the second and third recognitions) are held until the test lets them go.
      const top = [onTopCrop(doubted), onTopCrop(lineOf([['No', 0.95], ['8,', 0.95], ['Jalan', 0.95], ['Desa', 0.95]], 0.23))];
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      // Told apart by their heights (the crops are cut and scaled in parallel, so they may reach the pool
      // in any order): the top of the page (0.35 of 800 px), the band the page reading found (the top
      // 160 px, its 16 px text brought to 32 and 44 px), and the band read ahead (a line lower), held.
      const topHeight = 280;
      const bandHeights = [320, 440];
      const heights: number[] = [];
      const pool = {
        size: 2,
        recognize: async (image: { height: number }) => {
          heights.push(image.height);
          if (image.height === topHeight) return top;
          if (!bandHeights.includes(image.height)) await held;
          return bandRead;
        },
      };
      const ahead = readHeadAhead(pool as unknown as OcrPool, await rasterOf(), 'single-block', () => 60_000);
      const lines = await secondLookAtTheHead(pool as unknown as OcrPool, await rasterOf(), [doubted, ...body], () => 60_000, ahead);
      expect(lines[0]!.text).toBe('KEDAI MELATI SDN BHD');
      release();
      await ahead!.reads;
      // The top of the page, the band at both sizes, and the two reads ahead (taller: the band ends lower).
      expect(heights).toHaveLength(5);
      expect(heights.filter((height) => ![topHeight, ...bandHeights].includes(height))).toHaveLength(2);
    }, 5_000);

    it('is not started for a page read in bands or by a single worker, and never fails the page', async () => {
      const raster = await rasterOf();
      expect(readHeadAhead({ size: 2, recognize: async () => [] } as unknown as OcrPool, raster, 'auto', () => 60_000)).toBeUndefined();
      expect(readHeadAhead({ size: 1, recognize: async () => [] } as unknown as OcrPool, raster, 'single-block', () => 60_000)).toBeUndefined();
      const failing = { size: 2, recognize: async () => Promise.reject(new Error('worker crashed')) } as unknown as OcrPool;
      await expect(readHeadAhead(failing, raster, 'single-block', () => 60_000)!.reads).resolves.toBeUndefined();
    });
  });
});
