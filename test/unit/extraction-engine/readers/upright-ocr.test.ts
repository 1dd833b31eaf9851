import { describe, expect, it } from 'vitest';
import { boxOnGivenImage, confidentWordCount } from '../../../../src/extraction-engine/readers/upright-ocr.ts';

describe('boxOnGivenImage', () => {
  // A box near the top-left of the upright page, found after turning the given image.
  const uprightBox = { x: 0.1, y: 0.2, width: 0.3, height: 0.05 };

  it('maps back from a quarter turn clockwise (the given page lay on its left side)', () => {
    expect(boxOnGivenImage(uprightBox, 90)).toEqual({ x: 0.2, y: 0.6, width: 0.05, height: 0.3 });
  });

  it('maps back from three quarter turns clockwise (the given page lay on its right side)', () => {
    expect(boxOnGivenImage(uprightBox, 270)).toEqual({ x: 0.75, y: 0.1, width: 0.05, height: 0.3 });
  });

  it('maps back from a half turn (the given page was upside down)', () => {
    expect(boxOnGivenImage(uprightBox, 180)).toEqual({ x: 0.6, y: 0.75, width: 0.3, height: 0.05 });
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
