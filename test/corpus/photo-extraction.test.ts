import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { corpusFile } from '../support/document-builders.ts';

// A document photographed with a phone rather than scanned: turned by a few degrees, seen at an angle
// (the far edge narrower), lit from one side, grainy, saved as JPEG. Uploaded and extracted over HTTP
// on the embedded stack, it must give the same fields as the clean image.

const invoiceImagePath = corpusFile('invoice2data/AmazonWebServices.png');

/** Deterministic noise, so a failure can be reproduced. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

/**
 * The page seen from below its bottom edge: the top edge is drawn `narrowing` of the width shorter on
 * each side than the bottom edge, and rows near the top are squeezed together as the far side is.
 */
function inPerspective(grey: Buffer, width: number, height: number, narrowing: number): Buffer {
  const out = Buffer.alloc(width * height, 255);
  for (let y = 0; y < height; y += 1) {
    // Rows are spread so the top half covers less of the picture than the bottom half.
    const t = y / (height - 1);
    const sourceY = Math.round((height - 1) * (t * (1 - narrowing) + t * t * narrowing));
    const inset = narrowing * width * (1 - t);
    const rowWidth = width - 2 * inset;
    for (let x = 0; x < width; x += 1) {
      const sourceX = Math.round(((x - inset) / rowWidth) * (width - 1));
      if (sourceX < 0 || sourceX >= width) continue;
      out[y * width + x] = grey[sourceY * width + sourceX]!;
    }
  }
  return out;
}

async function phonePhotoOf(image: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(image).flatten({ background: '#ffffff' }).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const skewed = inPerspective(data, info.width, info.height, 0.06);
  const turned = await sharp(skewed, { raw: { width: info.width, height: info.height, channels: 1 } })
    .rotate(-6, { background: '#d8d8d8' })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = turned.info;
  // Light falls from the top right: the bottom-left corner gets 45% of it. Then sensor grain.
  const random = seededRandom(14);
  const photo = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const light = 0.45 + 0.55 * Math.min(1, 0.5 * (x / width) + 0.5 * (1 - y / height) + 0.25);
      const grain = (random() + random() + random() - 1.5) * 24;
      photo[y * width + x] = Math.max(0, Math.min(255, Math.round(turned.data[y * width + x]! * light + grain)));
    }
  }
  return sharp(photo, { raw: { width, height, channels: 1 } }).jpeg({ quality: 72 }).toBuffer();
}

let stack: StackUnderTest;
let client: ExtractionClient;

beforeAll(async () => {
  stack = await startStackUnderTest();
  client = new ExtractionClient(stack, await workspaceKey('ws_photos'));
});

afterAll(async () => {
  await stack?.stop();
});

describe('a phone photo of an invoice', () => {
  it('completes with the invoice number, date, total and seller read from the slanted, unevenly lit JPEG', async () => {
    const photo = await phonePhotoOf(await readFile(invoiceImagePath));

    const created = await client.upload(photo, 'photo.jpg');
    const extraction = await client.waitForTerminal(created.body.id, 120_000);

    expect(created.status).toBe(202);
    expect(extraction).toMatchObject({ status: 'COMPLETED', document: { mimeType: 'image/jpeg', pageCount: 1 } });
    const fields = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(fields).toMatchObject({ invoice_number: '42183017', issue_date: '2014-08-03', total_amount: 4.11, currency: 'USD' });
    expect(String(fields.seller_name)).toMatch(/^Amazon Web Services/u);
  }, 180_000);
});
