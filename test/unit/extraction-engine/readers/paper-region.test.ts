import { describe, expect, it } from 'vitest';
import { findPaper, otsuThreshold } from '../../../../src/extraction-engine/readers/paper-region.ts';

// Previews (~256 px) of photos: where is the paper, and when is the photo the paper already?

interface Preview {
  data: Buffer;
  width: number;
  height: number;
}

/** A preview filled by `level(x, y)`, deterministic (a table's grain from a fixed pattern, no randomness). */
function preview(width: number, height: number, level: (x: number, y: number) => number): Preview {
  const data = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1) for (let x = 0; x < width; x += 1) data[y * width + x] = Math.max(0, Math.min(255, Math.round(level(x, y))));
  return { data, width, height };
}

/** Wood-like grain around 100, varying by ±25 along the rows. */
const table = (x: number, y: number): number => 100 + 25 * Math.sin(x / 3 + Math.sin(y / 17) * 4);
/** Paper at 225 with grey rows of print (a receipt seen small: its lines blur into lighter grey bands). */
const printedPaper = (x: number, y: number, top: number): number => ((y - top) % 8 < 3 && x % 40 < 30 ? 180 : 225);

describe('findPaper', () => {
  it('finds a receipt lying on a table, with a small margin around it', () => {
    const [left, top, right, bottom] = [70, 40, 130, 230];
    const photo = preview(192, 256, (x, y) => (x >= left && x < right && y >= top && y < bottom ? printedPaper(x - left, y, top) : table(x, y)));

    const paper = findPaper(photo)!.region;

    expect(paper.x).toBeCloseTo(left / 192 - 0.015, 2);
    expect(paper.y).toBeCloseTo(top / 256 - 0.015, 2);
    expect(paper.x + paper.width).toBeCloseTo(right / 192 + 0.015, 2);
    expect(paper.y + paper.height).toBeCloseTo(bottom / 256 + 0.015, 2);
  });

  it('counts a dark logo on the paper as paper (it is not painted out), and the paper\'s rim and the table as not', () => {
    const logo = (x: number, y: number) => x >= 85 && x < 115 && y >= 50 && y < 70;
    const photo = preview(192, 256, (x, y) => (logo(x, y) ? 30 : x >= 70 && x < 130 && y >= 40 && y < 230 ? printedPaper(x - 70, y, 40) : table(x, y)));

    const paper = findPaper(photo)!;

    expect(paper.covers(100 / 192, 60 / 256)).toBe(true);
    expect(paper.covers(100 / 192, 150 / 256)).toBe(true);
    expect(paper.covers(70.5 / 192, 150 / 256)).toBe(false);
    expect(paper.covers(65 / 192, 150 / 256)).toBe(false);
  });

  it('finds a long receipt that runs off the top and bottom of the photo (margins on the sides only)', () => {
    const photo = preview(192, 256, (x, y) => (x >= 60 && x < 130 ? printedPaper(x - 60, y, 0) : table(x, y)));

    const paper = findPaper(photo)!.region;

    expect(paper.y).toBe(0);
    expect(paper.height).toBe(1);
    expect(paper.x).toBeCloseTo(60 / 192 - 0.015, 2);
  });

  it('finds a receipt lying 10° askew, its box around the turned paper', () => {
    // A 60 x 150 receipt centred at (96, 128), turned by 10°: a point is on it when, turned back, it is.
    const [cos, sin] = [Math.cos(Math.PI / 18), Math.sin(Math.PI / 18)];
    const onReceipt = (x: number, y: number) => Math.abs((x - 96) * cos + (y - 128) * sin) < 30 && Math.abs(-(x - 96) * sin + (y - 128) * cos) < 75;
    const photo = preview(192, 256, (x, y) => (onReceipt(x, y) ? printedPaper(x, y, 0) : table(x, y)));

    const paper = findPaper(photo)!;

    // Turned, it spans 30 cos 10° + 75 sin 10° = 42.6 either side of its centre across, 79.1 down.
    expect(paper.region.x * 192).toBeCloseTo(96 - 42.6 - 0.015 * 192, -1);
    expect(paper.region.y * 256).toBeCloseTo(128 - 79.1 - 0.015 * 256, -1);
    expect(paper.covers(96 / 192, 128 / 256)).toBe(true);
    // The table in the box's corner is not paper.
    expect(paper.covers((96 - 40) / 192, (128 - 75) / 256)).toBe(false);
  });

  it('leaves a scan or a cropped photo as it is: the paper is the whole image', () => {
    expect(findPaper(preview(180, 256, (x, y) => printedPaper(x, y, 0)))).toBeUndefined();
  });

  it('leaves a page with a dark band across its head as it is (a margin on one side only)', () => {
    const page = preview(180, 256, (x, y) => (y < 70 ? 40 : printedPaper(x, y, 70)));

    expect(findPaper(page)).toBeUndefined();
  });

  it('leaves a receipt on a light desk as it is: the paper does not stand out', () => {
    const photo = preview(192, 256, (x, y) => (x >= 70 && x < 130 && y >= 40 && y < 230 ? 230 : 200 + 5 * Math.sin(x / 3)));

    expect(findPaper(photo)).toBeUndefined();
  });

  it('leaves a photo whose bright area is a small patch (a reflection, a label), not a document', () => {
    const photo = preview(192, 256, (x, y) => (x >= 90 && x < 120 && y >= 100 && y < 140 ? 235 : table(x, y)));

    expect(findPaper(photo)).toBeUndefined();
  });

  it('leaves a page holding a dark photo as it is (white page around it, not a table)', () => {
    const page = preview(180, 256, (x, y) => (x >= 30 && x < 150 && y >= 60 && y < 200 ? 60 : printedPaper(x, y, 0)));

    expect(findPaper(page)).toBeUndefined();
  });
});

describe('otsuThreshold', () => {
  it('splits two clusters of grey between them', () => {
    const levels = Buffer.from([...Array(50).fill(40), ...Array(50).fill(210)]);

    const threshold = otsuThreshold(levels);

    expect(threshold).toBeGreaterThanOrEqual(40);
    expect(threshold).toBeLessThan(210);
  });
});
