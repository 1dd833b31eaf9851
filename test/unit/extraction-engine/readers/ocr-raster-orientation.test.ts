import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepareOcrRaster } from '../../../../src/extraction-engine/readers/ocr-raster.ts';

// Phones store a portrait photo as landscape pixels and an EXIF orientation that turns it upright.

/** A stored landscape JPEG, white with a black block in its stored top-left corner, tagged with `orientation`. */
async function taggedPhoto(orientation: number): Promise<Buffer> {
  const block = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#000000' } }).png().toBuffer();
  return sharp({ create: { width: 1600, height: 800, channels: 3, background: '#ffffff' } })
    .composite([{ input: block, left: 0, top: 0 }])
    .jpeg()
    .withMetadata({ orientation })
    .toBuffer();
}

/** Where the raster's dark pixels are, as fractions of its size. */
async function darkCentre(bytes: Buffer): Promise<{ x: number; y: number }> {
  const { data, info } = await sharp(bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
  let [sumX, sumY, count] = [0, 0, 0];
  for (let index = 0; index < data.length; index += 1) {
    if (data[index]! >= 100) continue;
    sumX += index % info.width;
    sumY += Math.floor(index / info.width);
    count += 1;
  }
  return { x: sumX / count / info.width, y: sumY / count / info.height };
}

describe('prepareOcrRaster and EXIF orientation', () => {
  it('reads a portrait phone photo (orientation 6) upright at its own proportions', async () => {
    const raster = await prepareOcrRaster({ input: await taggedPhoto(6), correctLightingAndSlant: false });

    expect(raster.height / raster.width).toBeCloseTo(2, 2);
    // Turned a quarter clockwise: the stored top-left corner is now the top-right.
    const dark = await darkCentre(raster.bytes);
    expect(dark.x).toBeGreaterThan(0.8);
    expect(dark.y).toBeLessThan(0.1);
  });

  it('keeps a photo without a turn (orientation 1) as stored', async () => {
    const raster = await prepareOcrRaster({ input: await taggedPhoto(1), correctLightingAndSlant: false });

    expect(raster.width / raster.height).toBeCloseTo(2, 2);
    const dark = await darkCentre(raster.bytes);
    expect(dark.x).toBeLessThan(0.1);
    expect(dark.y).toBeLessThan(0.2);
  });
});
