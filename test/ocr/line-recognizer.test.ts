import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { readImage } from '../../src/extraction-engine/readers/image-reader.ts';
import { inputHeight, PaddleLineRecognizer, type GreyLineImage, type LineRecognizer } from '../../src/extraction-engine/readers/line-recognizer.ts';
import { OcrPool } from '../../src/extraction-engine/readers/ocr-pool.ts';

// The second recogniser's network itself (PP-OCRv4 through ONNX Runtime's WebAssembly build) on drawn
// lines, and the image reader handing it a page's deciding lines. Its rules on given readings are in
// test/unit/extraction-engine/readers/second-recognition.test.ts.

/** A line of text drawn in black on white and scaled to the network's input height. */
async function drawnLine(text: string): Promise<GreyLineImage> {
  const width = 40 + text.length * 22;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="60"><rect width="100%" height="100%" fill="white"/><text x="20" y="42" font-family="DejaVu Sans, sans-serif" font-size="32" xml:space="preserve">${text}</text></svg>`;
  const scaledWidth = Math.round((width * inputHeight) / 60);
  const { data } = await sharp(Buffer.from(svg)).resize(scaledWidth, inputHeight, { fit: 'fill' }).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: scaledWidth, height: inputHeight };
}

describe('the PP-OCR line recogniser', () => {
  const recognizer = new PaddleLineRecognizer();

  it('reads a printed line of a receipt, each character with its probability', async () => {
    const characters = await recognizer.recognize(await drawnLine('TEO HENG STATIONERY 27/05/2018 18.90'));
    expect(characters.map((character) => character.text).join('').replace(/\s+/gu, '')).toBe('TEOHENGSTATIONERY27/05/201818.90');
    expect(characters.every((character) => character.confidence > 0.5 && character.confidence <= 1)).toBe(true);
  }, 60_000);

  it('reads lines one after another when asked at once, and refuses an image of another height', async () => {
    const [first, second] = await Promise.all([recognizer.recognize(await drawnLine('TOTAL 64.15')), recognizer.recognize(await drawnLine('CASH 100.00'))]);
    expect(first!.map((character) => character.text).join('').replace(/\s+/gu, '')).toBe('TOTAL64.15');
    expect(second!.map((character) => character.text).join('').replace(/\s+/gu, '')).toBe('CASH100.00');
    await expect(recognizer.recognize({ data: new Uint8Array(32 * 10), width: 10, height: 32 })).rejects.toThrow(/48 px/u);
  }, 60_000);
});

describe('the image reader with a second recogniser', () => {
  const ocr = new OcrPool({ size: 1 });
  afterAll(() => ocr.terminate());

  it('hands it the head, date and total lines of a receipt photo (not the items) and keeps its sure repairs', async () => {
    const lines = ['KEDAI MAWAR HIJAU SDN BHD', 'No 12, Jalan Cempaka 3', 'Date: 14/03/2019 10:42', 'Teh Tarik 2 5.00', 'Nasi Lemak 1 6.90', 'TOTAL 11.90', 'CASH 20.00'];
    const texts = lines.map((line, index) => `<text x="60" y="${120 + 70 * index}" font-family="DejaVu Sans Mono, monospace" font-size="34" xml:space="preserve">${line}</text>`).join('');
    const photo = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="900" height="700"><rect width="100%" height="100%" fill="white"/>${texts}</svg>`)).jpeg().toBuffer();
    const recognized: GreyLineImage[] = [];
    const network = new PaddleLineRecognizer();
    // Records the lines it is given; a repair is then made to the name to show the reader keeps it.
    const recognizer: LineRecognizer = {
      recognize: async (image) => {
        recognized.push(image);
        const characters = await network.recognize(image);
        return characters.map((character) => (character.text === 'W' ? { text: 'V', confidence: 0.99 } : character));
      },
    };
    const context = { ocr: async () => ocr, lineRecognizer: recognizer, pageTimeBudgetMs: 120_000, deadline: Date.now() + 600_000, pagesOverBudget: [] };
    const read = (await readImage(photo, context)).pages[0]!.lines.map((line) => line.text);
    // The two first lines of words at the head (the name, its street), the date line and the total line.
    expect(recognized).toHaveLength(4);
    expect(read).toContain('KEDAI MAVAR HIJAU SDN BHD');
    expect(read).toContain('TOTAL 11.90');
  }, 120_000);
});
