import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { flattenIllumination, levelAtShare, measureSkewDegrees, paintSurroundingDarknessAsPaper, measureTextLayout, placementOnStraightenedPage, type GreyPixels } from '../../../../src/extraction-engine/readers/ocr-preprocessing.ts';
import { photographed, textPng, tillSlip } from '../../../support/document-builders.ts';

async function greyPixels(image: Buffer): Promise<GreyPixels> {
  const { data, info } = await sharp(image).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe('measureSkewDegrees', () => {
  it.each([-8, -3, 5, 10])('measures text rows turned by %s° to within half a degree', async (degrees) => {
    const photo = await photographed(await textPng(tillSlip, { width: 1100, fontSize: 34 }), { slantDegrees: degrees, shadow: false });

    expect(Math.abs((await measureSkewDegrees(await greyPixels(photo))) - degrees)).toBeLessThanOrEqual(0.5);
  });

  it('leaves straight text and a blank page alone', async () => {
    expect(await measureSkewDegrees(await greyPixels(await textPng(tillSlip, { width: 1100, fontSize: 34 })))).toBe(0);
    const blank = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#ffffff' } }).png().toBuffer();
    expect(await measureSkewDegrees(await greyPixels(blank))).toBe(0);
  });
});

describe('measureTextLayout', () => {
  // A narrow, tall till slip: spread over few columns, its ink alone must not make the lines look vertical.
  const narrowSlip = async (): Promise<Buffer> => textPng([...tillSlip, ...tillSlip, ...tillSlip].map((line) => line.slice(0, 16)), { width: 420, fontSize: 26 });

  it('says the lines run across on an upright or upside-down page, and down on a page lying on its side', async () => {
    const upright = await narrowSlip();

    expect((await measureTextLayout(await greyPixels(upright))).lineDirection).toBe('across');
    expect((await measureTextLayout(await greyPixels(await sharp(upright).rotate(180).png().toBuffer()))).lineDirection).toBe('across');
    expect((await measureTextLayout(await greyPixels(await sharp(upright).rotate(90).png().toBuffer()))).lineDirection).toBe('down');
    expect((await measureTextLayout(await greyPixels(await sharp(await textPng(tillSlip, { width: 1100, fontSize: 34 })).rotate(270).png().toBuffer()))).lineDirection).toBe('down');
  });

  it('does not guess the direction of a blank page', async () => {
    const blank = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#ffffff' } }).png().toBuffer();

    expect((await measureTextLayout(await greyPixels(blank))).lineDirection).toBeUndefined();
  });
});

describe('flattenIllumination', () => {
  it('whitens paper under a shadow while text stays dark', async () => {
    // Paper lit from 70 (left edge) to 250 (right edge), with a black bar of "text" in each half.
    const width = 600;
    const height = 200;
    const data = Buffer.alloc(width * height);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const paper = Math.round(70 + (180 * x) / (width - 1));
        const isText = y >= 90 && y < 110 && ((x >= 60 && x < 120) || (x >= 480 && x < 540));
        data[y * width + x] = isText ? Math.round(paper * 0.2) : paper;
      }
    }

    const flattened = await flattenIllumination({ data, width, height });
    const at = (x: number, y: number) => flattened.data[y * width + x]!;

    expect(at(30, 40)).toBeGreaterThan(225); // paper in the shadow, left
    expect(at(570, 40)).toBeGreaterThan(225); // paper in the light, right
    expect(at(90, 100)).toBeLessThan(90); // text in the shadow
    expect(at(510, 100)).toBeLessThan(90); // text in the light
  });
});

describe('flattenIllumination on an evenly lit scan', () => {
  it('leaves the pixels as they are, dense grey print included (dividing would thin its strokes)', async () => {
    // Even paper at 242 with a block of dense grey print (a bold heading) and a few lines of text.
    const width = 600;
    const height = 400;
    const data = Buffer.alloc(width * height, 242);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const heading = y >= 40 && y < 120 && x >= 100 && x < 500 && (x % 6 < 4 || y % 8 < 5);
        const text = y >= 200 && (y - 200) % 30 < 12 && x >= 40 && x < 560 && x % 5 < 3;
        if (heading) data[y * width + x] = 110;
        else if (text) data[y * width + x] = 60;
      }
    }

    const flattened = await flattenIllumination({ data, width, height });

    expect(flattened.data.equals(data)).toBe(true);
  });
});

describe('placementOnStraightenedPage', () => {
  // A 1000 x 500 image turned 10° counter-clockwise has a 1071 x 666 canvas around it.
  const deskew = { degrees: 10, givenWidth: 1000, givenHeight: 500, turnedWidth: 1071, turnedHeight: 666 };

  it('places a box of the turned raster on the page of the given size, centred on it', () => {
    const centre = placementOnStraightenedPage({ x: 0.49, y: 0.49, width: 0.02, height: 0.02 }, deskew);

    expect(centre.x + centre.width / 2).toBeCloseTo(0.5, 3);
    expect(centre.y + centre.height / 2).toBeCloseTo(0.5, 3);
    // 100 px from the turned raster's left and top edges: 64.5 px and 17 px into the page.
    const nearCorner = placementOnStraightenedPage({ x: 100 / 1071, y: 100 / 666, width: 214.2 / 1071, height: 33.3 / 666 }, deskew);
    expect(nearCorner.x * 1000).toBeCloseTo(64.5, 0);
    expect(nearCorner.y * 500).toBeCloseTo(17, 0);
    expect(nearCorner.width * 1000).toBeCloseTo(214.2, 0);
  });

  it('clamps what lay in the canvas corners outside the page onto its edge', () => {
    expect(placementOnStraightenedPage({ x: 0, y: 0, width: 0.01, height: 0.01 }, deskew)).toEqual({ x: 0, y: 0, width: 0, height: 0 });
  });
});

describe('paintSurroundingDarknessAsPaper', () => {
  const width = 40;
  const height = 60;
  const paper = 240;
  const at = (image: GreyPixels, x: number, y: number): number => image.data[y * width + x]!;

  it('paints dark areas connected to the edge as paper and keeps dark marks inside the page', () => {
    const data = Buffer.alloc(width * height, paper);
    // A jagged dark tear along the bottom edge, reaching up to row 50 in one column.
    for (let y = 55; y < height; y += 1) data.fill(5, y * width, (y + 1) * width);
    for (let y = 50; y < 55; y += 1) data[y * width + 10] = 5;
    // A letter's stroke in the middle of the page.
    for (let y = 20; y < 30; y += 1) data[y * width + 20] = 20;

    const painted = paintSurroundingDarknessAsPaper({ data, width, height })!;

    expect(at(painted, 0, height - 1)).toBe(paper);
    expect(at(painted, 10, 50)).toBe(paper);
    expect(at(painted, 20, 25)).toBe(20);
  });

  it('paints a dark area inside the image that spans an eighth of its width and height (a photo dropped onto a white page), and keeps the letters', () => {
    const data = Buffer.alloc(width * height, paper);
    // The photo's torn dark edge, eight rows high and 30 wide, two pixels in from every edge of the image.
    for (let y = 40; y < 48; y += 1) data.fill(5, y * width + 2, y * width + 32);
    // A letter's stroke (ten rows, under an eighth of the height) and a bar (four columns, under an eighth of the width).
    for (let y = 10; y < 17; y += 1) data[y * width + 20] = 20;
    for (let y = 20; y < 22; y += 1) data.fill(20, y * width + 10, y * width + 14);

    const painted = paintSurroundingDarknessAsPaper({ data, width, height })!;

    expect(at(painted, 2, 40)).toBe(paper);
    expect(at(painted, 31, 47)).toBe(paper);
    expect(at(painted, 20, 12)).toBe(20);
    expect(at(painted, 12, 21)).toBe(20);
  });

  it('leaves a page with nothing dark at its edges or larger than print alone', () => {
    const data = Buffer.alloc(width * height, paper);
    for (let y = 20; y < 30; y += 1) data[y * width + 20] = 20;

    expect(paintSurroundingDarknessAsPaper({ data, width, height })).toBeUndefined();
  });
});

describe('levelAtShare', () => {
  it('gives the lowest level whose running count reaches the share, and 255 when none does', () => {
    const histogram = new Uint32Array(256);
    [histogram[10], histogram[200], histogram[250]] = [2, 6, 2];

    expect(levelAtShare(histogram, 10, 0.2)).toBe(10);
    expect(levelAtShare(histogram, 10, 0.5)).toBe(200);
    expect(levelAtShare(histogram, 10, 0.9)).toBe(250);
    expect(levelAtShare(histogram, 20, 0.9)).toBe(255);
  });
});
