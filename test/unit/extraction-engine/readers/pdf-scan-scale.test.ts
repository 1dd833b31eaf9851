import { describe, expect, it } from 'vitest';
import { ownResolutionScale, photoPlacedOnPage, scanRenderScale } from '../../../../src/extraction-engine/readers/pdf-reader.ts';
import type { PaintedImageRegion } from '../../../../src/extraction-engine/readers/pdf-image-regions.ts';

// A page with no text is drawn for OCR at its scan's own resolution (at most 300 dpi), so the scan's
// pixels are resampled once, by the OCR raster's filter; pdf.js drawing a 200 dpi receipt at 300 dpi
// first lost its name (extraction README, "Fourteenth pass").

const dpi = (scale: number): number => Math.round(scale * 72);
const a4 = { width: 595, height: 842 };

function drawn(left: number, top: number, right: number, bottom: number, pixelWidth: number, pixelHeight: number): PaintedImageRegion {
  return { left, top, right, bottom, pixelWidth, pixelHeight };
}

describe('scanRenderScale', () => {
  it('draws a page-filling scan at the resolution it was scanned at', () => {
    // A4 scanned at 200 dpi: 1654 x 2339 pixels over 595 x 842 points.
    expect(dpi(scanRenderScale(drawn(0, 0, 595, 842, 1654, 2339), a4.width, a4.height))).toBe(200);
  });

  it('finds the same resolution for a scan drawn turned a quarter on its page', () => {
    expect(dpi(scanRenderScale(drawn(0, 0, 842, 595, 1654, 2339), 842, 595))).toBe(200);
  });

  it('never draws above 300 dpi (a 600 dpi scan is drawn at 300)', () => {
    expect(dpi(scanRenderScale(drawn(0, 0, 595, 842, 4961, 7016), a4.width, a4.height))).toBe(300);
  });

  it('draws at 300 dpi a page whose largest image is a logo, or that has none (text drawn as outlines)', () => {
    expect(dpi(scanRenderScale(drawn(40, 40, 240, 120, 200, 80), a4.width, a4.height))).toBe(300);
    expect(dpi(scanRenderScale(undefined, a4.width, a4.height))).toBe(300);
  });
});

describe('photoPlacedOnPage', () => {
  // A receipt photo dropped onto an A4 page (an expense form) is read alone, as the photo it is.
  const receiptPhoto = drawn(40, 20, 374, 780, 928, 2110);

  it('takes the one image of a page with no text that leaves white around it', () => {
    expect(photoPlacedOnPage([receiptPhoto], a4.width, a4.height, 0)).toBe(receiptPhoto);
    expect(dpi(ownResolutionScale(receiptPhoto))).toBe(200);
  });

  it('leaves a page-filling scan, a page of several images, and a page with text to be read whole', () => {
    expect(photoPlacedOnPage([drawn(0, 0, 595, 842, 1654, 2339)], a4.width, a4.height, 0)).toBeUndefined();
    expect(photoPlacedOnPage([receiptPhoto, drawn(400, 20, 580, 300, 500, 800)], a4.width, a4.height, 0)).toBeUndefined();
    expect(photoPlacedOnPage([receiptPhoto], a4.width, a4.height, 12)).toBeUndefined();
  });
});
