import { describe, expect, it } from 'vitest';
import { textBands, type GreyRaster } from '../../../../src/extraction-engine/readers/ocr-bands.ts';

// Synthetic pages: white paper with text lines (rows [top, bottom), columns [left, right)) drawn as
// letters are: upright stems every 9 pixels, shifted from line to line, and a stroke across the middle;
// or, for rules and borders, solid.

interface Bar {
  top: number;
  bottom: number;
  left?: number;
  right?: number;
  grey?: number;
  solid?: boolean;
}

function page(width: number, height: number, bars: Bar[], paper = 255): GreyRaster {
  const data = new Uint8Array(width * height).fill(paper);
  for (const bar of bars) {
    const middle = Math.floor((bar.top + bar.bottom) / 2);
    for (let y = bar.top; y < bar.bottom; y += 1) {
      for (let x = bar.left ?? 20; x < (bar.right ?? width - 20); x += 1) {
        const stroke = bar.solid || (x + bar.top) % 9 < 2 || y === middle || y === middle + 1;
        if (stroke) data[y * width + x] = bar.grey ?? 0;
      }
    }
  }
  return { data, width, height };
}

/** Text lines 30 rows tall every 50 rows from `from` to `to`. */
const lines = (from: number, to: number, extra: Partial<Bar> = {}): Bar[] =>
  Array.from({ length: Math.floor((to - from) / 50) }, (_, index) => ({ top: from + index * 50, bottom: from + index * 50 + 30, ...extra }));

const inkRowsOf = (raster: GreyRaster, row: number): number => raster.data.subarray(row * raster.width, (row + 1) * raster.width).filter((value) => value < 128).length;

describe('textBands', () => {
  it('cuts a page of lines in two in a gap between lines near the middle', () => {
    const raster = page(400, 1000, lines(100, 900));

    const bands = textBands(raster, 2);

    expect(bands).toHaveLength(2);
    expect(bands[0]!.top).toBe(0);
    expect(bands[1]!.bottom).toBe(1000);
    expect(bands[0]!.bottom).toBe(bands[1]!.top);
    const cut = bands[0]!.bottom;
    // In the middle of a 20-row gap: no ink on the cut row, and white space left on either side of it.
    expect(inkRowsOf(raster, cut)).toBe(0);
    expect(inkRowsOf(raster, cut - 5)).toBe(0);
    expect(inkRowsOf(raster, cut + 5)).toBe(0);
    expect(Math.abs(cut - 500)).toBeLessThan(50);
  });

  it('balances the bands by ink, not by height: text in the upper part of a page is cut there', () => {
    const raster = page(400, 1000, lines(50, 450));

    const [upper] = textBands(raster, 2);

    expect(upper!.bottom).toBeGreaterThan(200);
    expect(upper!.bottom).toBeLessThan(300);
  });

  it('cuts between lines through a border down the side of the page (a receipt photographed on a dark table)', () => {
    const raster = page(400, 1000, [...lines(100, 900), { top: 0, bottom: 1000, left: 0, right: 12, solid: true, grey: 60 }, { top: 0, bottom: 1000, left: 388, right: 400, solid: true, grey: 60 }]);

    const bands = textBands(raster, 2);

    expect(bands).toHaveLength(2);
    const cutRow = raster.data.subarray(bands[0]!.bottom * 400 + 12, (bands[0]!.bottom + 1) * 400 - 12);
    expect(cutRow.every((value) => value === 255)).toBe(true);
  });

  it('never cuts through a stroke that runs across several lines but not down the page (a stamp, a signature)', () => {
    // The stroke fills rows 300-700: 40% of the page, less than a border does.
    const raster = page(400, 1000, [...lines(100, 900), { top: 300, bottom: 700, left: 200, right: 204, solid: true }]);

    const bands = textBands(raster, 2);

    expect(bands).toHaveLength(2);
    expect(bands[0]!.bottom <= 300 || bands[0]!.bottom >= 700).toBe(true);
  });

  it('does not count specks as ink, so a gap with dust in it still takes a cut', () => {
    // A one-pixel speck down the middle of every gap: without a tolerance no gap is tall enough for a cut.
    const specks = Array.from({ length: 20 }, (_, index) => ({ top: 133 + index * 50, bottom: 147 + index * 50, left: 200, right: 201 }));
    const raster = page(1000, 1200, [...lines(100, 1100), ...specks]);

    const bands = textBands(raster, 2);

    expect(bands).toHaveLength(2);
  });

  it('does not cut in gaps too thin to leave white space around the lines', () => {
    // Lines 30 rows tall, 2 rows apart: no gap of the minimum height anywhere.
    const dense = Array.from({ length: 30 }, (_, index) => ({ top: 20 + index * 32, bottom: 20 + index * 32 + 30 }));
    const raster = page(400, 1000, dense);

    expect(textBands(raster, 2)).toEqual([{ top: 0, bottom: 1000 }]);
  });

  it('reads faint print on grey paper as ink', () => {
    // Paper at 200, print at 140: darker than the paper by 30%, though lighter than mid-grey.
    const raster = page(400, 1000, lines(100, 900, { grey: 140 }), 200);

    const bands = textBands(raster, 2);

    expect(bands).toHaveLength(2);
    const cut = bands[0]!.bottom;
    expect(raster.data.subarray(cut * 400, (cut + 1) * 400).every((value) => value === 200)).toBe(true);
  });

  it('keeps the page whole when the only gaps leave one band almost empty', () => {
    // One gap only, below nearly all the text: the lower band would hold a single line.
    const raster = page(400, 1000, [{ top: 50, bottom: 880 }, { top: 920, bottom: 950 }]);

    expect(textBands(raster, 2)).toEqual([{ top: 0, bottom: 1000 }]);
  });

  it('cuts into as many bands as asked, each between lines, in order', () => {
    const raster = page(400, 1200, lines(100, 1100));

    const bands = textBands(raster, 3);

    expect(bands).toHaveLength(3);
    expect(bands.map((band) => band.top)).toEqual([0, bands[0]!.bottom, bands[1]!.bottom]);
    for (const band of bands.slice(1)) expect(inkRowsOf(raster, band.top)).toBe(0);
  });

  it('leaves the page whole for one band, and for a blank page', () => {
    expect(textBands(page(400, 1000, lines(100, 900)), 1)).toEqual([{ top: 0, bottom: 1000 }]);
    expect(textBands(page(400, 1000, []), 2)).toEqual([{ top: 0, bottom: 1000 }]);
  });
});
