import { describe, expect, it } from 'vitest';
import { ocrScale } from '../../../../src/extraction-engine/readers/ocr-raster.ts';
import { readingLimits } from '../../../../src/extraction-engine/readers/reading-limits.ts';

describe('ocrScale', () => {
  it('brings a small photo up to the long side OCR reads best, and a huge one down to the pixel cap', () => {
    expect(Math.round(1000 * ocrScale(687, 1246))).toBe(Math.round((1000 * readingLimits.minOcrLongSidePixels) / 1246));
    const huge = ocrScale(8000, 8000);
    expect(8000 * huge * 8000 * huge).toBeLessThanOrEqual(readingLimits.maxOcrPixels * 1.0001);
  });

  it('scales a scan drawn below 300 dpi up by at least what it is asked', () => {
    expect(ocrScale(1654, 2339, 1.5)).toBe(1.5);
  });

  it('never scales past the pixel cap, however much it is asked (a small image on a huge PDF page)', () => {
    // A 300 x 40 pixel image over half of a 200-inch page is drawn 154 pixels wide; 300 dpi would ask for 389 times that.
    const scale = ocrScale(154, 154, 389);
    expect(154 * scale * 154 * scale).toBeLessThanOrEqual(readingLimits.maxOcrPixels * 1.0001);
  });
});
