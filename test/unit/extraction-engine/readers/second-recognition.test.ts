import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PositionedWord, TextLine } from '../../../../src/extraction-engine/document.ts';
import type { OcrImage } from '../../../../src/extraction-engine/readers/ocr-pool.ts';
import { decodeGreedy, inputHeight, inputTensorData, type GreyLineImage, type LineRecognizer, type RecognizedCharacter } from '../../../../src/extraction-engine/readers/line-recognizer.ts';
import {
  alignCharacters,
  lineRespelt,
  linesRespelt,
  linesToRecognizeAgain,
  readDecidingLinesAgain,
  respelling,
} from '../../../../src/extraction-engine/readers/second-recognition.ts';

// The rules by which a second recogniser's reading of a line respells tesseract's words, on given
// readings (test/ocr/line-recognizer.test.ts runs the network itself).

/** A line of words side by side, each with tesseract's confidence (0.95 unless given). */
function lineOf(words: readonly (string | [string, number])[], y = 0.1): TextLine {
  let x = 0.05;
  const placed: PositionedWord[] = words.map((word) => {
    const [text, confidence] = typeof word === 'string' ? [word, 0.95] : word;
    const placement = { x, y, width: 0.02 * text.length, height: 0.02 };
    x += 0.02 * text.length + 0.02;
    return { text, confidence, placement };
  });
  return { text: placed.map((word) => word.text).join(' '), words: placed, confidence: 0.9, placement: { x: 0.05, y, width: x - 0.07, height: 0.02 } };
}

/** The network's reading: each character at `confidence`, those listed in `unsure` at theirs. */
function reading(text: string, confidence = 0.97, unsure: Record<number, number> = {}): RecognizedCharacter[] {
  return [...text].map((character, index) => ({ text: character, confidence: unsure[index] ?? confidence }));
}

describe('aligning two readings of a line', () => {
  it('pairs equal characters and marks what one reading has and the other not', () => {
    const aligned = alignCharacters([...'DULY.'], [...'D.I.Y.']);
    expect(aligned.filter((step) => step.first >= 0)).toHaveLength(5);
    expect(aligned.filter((step) => step.second >= 0)).toHaveLength(6);
    expect(aligned[0]).toEqual({ first: 0, second: 0 });
  });
});

describe('respelling a line from a second recogniser', () => {
  it('takes the letters the network reads surely in a word tesseract doubted, keeping its word boundaries', () => {
    const respelt = lineRespelt(lineOf([['TED', 0.73], 'HENG', 'STATIONERY', '&', 'BOOKS']), reading('TEOHENGSTATIONERY&BOOKS'));
    expect(respelt.line.text).toBe('TEO HENG STATIONERY & BOOKS');
    expect(respelt.replaced).toBe(1);
  });

  it('respells letters tesseract was sure of only where the network is surer still', () => {
    const line = lineOf([['laste', 0.93], 'Of', ['Ihe', 0.95], 'World']);
    expect(lineRespelt(line, reading('TasteOfTheWorld')).line.text).toBe('Taste Of The World');
    // An "O" the network is unsure of (0.6) does not turn tesseract's sure "CNE" into "ONE".
    expect(lineRespelt(lineOf([['CNE', 0.94], 'ONE', 'THREE']), reading('ONEONETHREE', 0.97, { 0: 0.6 })).replaced).toBe(0);
  });

  it('respells a doubted word throughout only where the network is all but certain of it', () => {
    // "KAVNE" for "LUMEN": more than half the letters differ, which a crop of another word would too.
    const misread = lineOf([['KAVNE', 0.56], '(M)', 'Sdn', 'Bhd']);
    expect(lineRespelt(misread, reading('LUMEN(M)SdnBhd', 0.97)).line.text).toBe('LUMEN (M) Sdn Bhd');
    expect(lineRespelt(misread, reading('LUMEN(M)SdnBhd', 0.97, { 1: 0.9 })).replaced).toBe(0);
    // A word tesseract was fairly sure of keeps the limit of half its characters.
    expect(lineRespelt(lineOf([['KAVNE', 0.85], '(M)', 'Sdn', 'Bhd']), reading('LUMEN(M)SdnBhd', 0.97)).replaced).toBe(0);
    // Digits too, with their other rules: "27 BAKERY" read "81" with doubt.
    expect(lineRespelt(lineOf([['81', 0.7], 'BAKERY', 'HOUSE']), reading('27BAKERYHOUSE', 0.96)).line.text).toBe('27 BAKERY HOUSE');
  });

  it('reads an "I" between small letters as the "l" it stands for', () => {
    expect(lineRespelt(lineOf(['Taste', 'Of', ['World', 0.8]]), reading('TasteOfWorId')).line.text).toBe('Taste Of World');
  });

  it('repairs dotted abbreviations whose length changes, and keeps brackets the network left out', () => {
    expect(lineRespelt(lineOf([['Me.', 0.46], ['DULY.', 0.37], '(M)', 'SDN', 'BHD']), reading('MR.D.I.Y.(M)SDNBHD')).line.text).toBe('MR. D.I.Y. (M) SDN BHD');
    expect(lineRespelt(lineOf(['GARDENIA', 'BAKERIES', ['(RL)', 0.7]]), reading('GARDENIABAKERIESKL')).line.text).toBe('GARDENIA BAKERIES (KL)');
  });

  it('changes digits only when sure of each, keeping the decimal point and the value', () => {
    expect(lineRespelt(lineOf(['TOTAL', '1.40']), reading('TOTAL7.40')).line.text).toBe('TOTAL 7.40');
    expect(lineRespelt(lineOf(['21/05/2018', '13:48']), reading('27/05/201813:48')).line.text).toBe('27/05/2018 13:48');
    // A missing first digit of a date read by the network.
    expect(lineRespelt(lineOf(['2/06/2018']), reading('12/06/2018')).line.text).toBe('12/06/2018');
    // Unsure of the changed digit: the first reading stays.
    expect(lineRespelt(lineOf(['TOTAL', '16.90']), reading('TOTAL18.90', 0.97, { 6: 0.7 })).replaced).toBe(0);
    // A decimal point moved is no repair, nor a date that stops being one.
    expect(lineRespelt(lineOf(['TOTAL', '1.40']), reading('TOTAL14.0')).replaced).toBe(0);
    expect(lineRespelt(lineOf(['17-06-13']), reading('17-66-13')).replaced).toBe(0);
    // A digit the network does not see is not dropped ("99 SPEED" read "9 SPEED": the crop cut one off).
    expect(lineRespelt(lineOf([['99', 0.92], 'SPEED', 'MART']), reading('9SPEEDMART')).replaced).toBe(0);
  });

  it('keeps a word of a legal form as read, another case, and characters no field reads', () => {
    expect(lineRespelt(lineOf(['KEDAI', 'MAJU', 'SDN', 'BHD']), reading('KEDAIMAJUSONBHD')).replaced).toBe(0);
    expect(lineRespelt(lineOf([['Holz', 0.8], 'GmbH']), reading('HOLZGmbH')).replaced).toBe(0);
    expect(lineRespelt(lineOf([['Ahd', 0.5], 'TRADING']), reading('酒家TRADING')).replaced).toBe(0);
  });

  it('leaves a line alone that the network reads as another text (a crop of something else)', () => {
    expect(lineRespelt(lineOf([['TakeOut', 0.7], 'Total', '18.90']), reading('Taa', 0.5)).replaced).toBe(0);
    expect(lineRespelt(lineOf(['TOTAL', '9.90']), []).replaced).toBe(0);
  });

  it('keeps a word the network reads as two, a word of punctuation, and a total label tesseract read', () => {
    // "Sdn. Bhd." where tesseract read "Sdn." and a speck: the legal form is not glued into one word.
    const characters = [...reading('ENW '), ...reading('Sdn. Bhd.')];
    expect(lineRespelt(lineOf(['ENW', ['Sdn.', 0.8], ['/', 0.6]]), characters).line.text).toBe('ENW Sdn. /');
    // Nor where it reads them without the space: a word grows by a character it lost, not by a word.
    expect(lineRespelt(lineOf(['ENW', ['Sdn.', 0.8], ['/', 0.6]]), reading('ENWSdn.Bhd.')).line.text).toBe('ENW Sdn. /');
    // "SUB-TOTAL" read surely enough by the network as "SUR-TOTAL" would lose the line its label.
    expect(lineRespelt(lineOf([['SUB-TOTAL', 0.82], '(GST)', '6.00']), reading('SUR-TOTAL(GST)6.00')).replaced).toBe(0);
    // A label read more fully is kept: "Total Gales" read "Total Sales".
    expect(lineRespelt(lineOf(['Total', ['Gales', 0.6], ['141.58', 0.62]]), reading('TotalSales141.50')).line.text).toBe('Total Sales 141.50');
  });

  it('gives a respelt word the least confidence of its characters', () => {
    const word = respelling({ text: 'TED', confidence: 0.73 }, [...'TEO'].map((text, index) => ({ text, confidence: [0.99, 0.95, 0.81][index]!, changed: index === 2 })));
    expect(word).toMatchObject({ text: 'TEO', confidence: 0.81 });
  });
});

describe('the lines a second recogniser reads', () => {
  const page = [
    lineOf(['GEOVENTURE'], 0.05),
    lineOf(['TASTE', 'OF', 'THE', 'WORLD', 'SDN', 'BHD'], 0.08),
    lineOf(['Lot', '38,', 'Jalan', 'Kenari'], 0.11),
    lineOf(['Date:', '05/03/2018', '22:52'], 0.2),
    lineOf(['QTY', 'ITEM', 'TOTAL'], 0.3),
    lineOf(['1', 'McChicken'], 0.33),
    lineOf(['Coffee', '3.50'], 0.36),
    lineOf(['TOTAL', '64.13'], 0.6),
    lineOf(['Rounded', 'Total'], 0.63),
    lineOf(['64.15'], 0.66),
    lineOf(['CASH', '100.00'], 0.7),
  ];

  it('are the head (brand and named line), the date and the total lines with their amounts below', () => {
    expect(linesToRecognizeAgain(page)).toEqual([0, 1, 3, 7, 9]);
  });

  it('take the line above the legal form, where a name runs over two lines under a logo', () => {
    const head = [lineOf(['S1gnaty'], 0.03), lineOf(['GARDENIA', 'BAKERIES', '(RL)'], 0.06), lineOf(['BHD', '(139386', 'X)'], 0.08), lineOf(['Lot', '3,', 'Jalan', 'Pelabur'], 0.1)];
    expect(linesToRecognizeAgain(head)).toEqual([0, 1, 2]);
  });

  it('leave out a count under a "Total" column header', () => {
    expect(linesToRecognizeAgain(page)).not.toContain(5);
  });
});

describe('decoding the network output', () => {
  it('merges repeats, drops blanks and normalises full-width punctuation', () => {
    const alphabet = ['', 'A', '：', '1'];
    const steps = [
      [0.1, 0.8, 0.05, 0.05],
      [0.1, 0.9, 0.0, 0.0],
      [0.9, 0.1, 0.0, 0.0],
      [0.1, 0.7, 0.1, 0.1],
      [0.1, 0.0, 0.9, 0.0],
      [0.0, 0.0, 0.0, 1.0],
    ];
    expect(decodeGreedy(steps.flat(), steps.length, alphabet.length, alphabet)).toEqual([
      { text: 'A', confidence: 0.9 },
      { text: 'A', confidence: 0.7 },
      { text: ':', confidence: 0.9 },
      { text: '1', confidence: 1 },
    ]);
  });

  it('feeds grey pixels as three equal channels scaled to [-1, 1]', () => {
    const data = inputTensorData({ data: Uint8Array.from([0, 255]), width: 2, height: 1 });
    expect([...data]).toEqual([-1, 1, -1, 1, -1, 1]);
  });
});

describe('the second recogniser on a page raster', () => {
  /** The page's lines respelt from what the recogniser reads of its deciding lines. */
  const recognizedAgain = async (recognizer: LineRecognizer, raster: OcrImage, page: TextLine[], budgetMs: () => number) =>
    linesRespelt(page, await readDecidingLinesAgain(recognizer, raster, page, budgetMs));

  it('crops each deciding line at the network height and respells it from the reading', async () => {
    const page = [lineOf([['TED', 0.73], 'HENG', 'TRADING'], 0.1), lineOf(['TOTAL', '9.90'], 0.5)];
    const seen: GreyLineImage[] = [];
    const recognizer: LineRecognizer = {
      recognize: async (image) => {
        seen.push(image);
        return seen.length === 1 ? reading('TEOHENGTRADING') : reading('TOTAL9.90');
      },
    };
    const bytes = await sharp({ create: { width: 400, height: 600, channels: 3, background: '#ffffff' } }).toColourspace('b-w').png().toBuffer();
    const lines = await recognizedAgain(recognizer, { bytes, width: 400, height: 600 }, page, () => 60_000);
    expect(seen.map((image) => image.height)).toEqual([inputHeight, inputHeight]);
    expect(seen.every((image) => image.data.length === image.width * image.height)).toBe(true);
    expect(lines.map((line) => line.text)).toEqual(['TEO HENG TRADING', 'TOTAL 9.90']);
  });

  it('keeps the first reading when the recogniser fails', async () => {
    const recognizer: LineRecognizer = {
      recognize: async () => {
        throw new Error('no WebAssembly here');
      },
    };
    const page = [lineOf([['TED', 0.73], 'HENG', 'TRADING'], 0.1), lineOf(['TOTAL', '9.90'], 0.5)];
    const bytes = await sharp({ create: { width: 400, height: 600, channels: 3, background: '#ffffff' } }).toColourspace('b-w').png().toBuffer();
    expect((await recognizedAgain(recognizer, { bytes, width: 400, height: 600 }, page, () => 60_000)).map((line) => line.text)).toEqual(['TED HENG TRADING', 'TOTAL 9.90']);
  });

  it('aligns readings taken before tesseract\'s second look with the words as that look left them', () => {
    const firstRead = [lineOf([['TED', 0.73], 'HENG', 'TRADING'], 0.1), lineOf(['T0TAL', '9.90'], 0.5)];
    // The second look respelt "T0TAL" meanwhile; the network's reading of the head line still applies.
    const looked = [firstRead[0]!, lineOf(['TOTAL', '9.90'], 0.5)];
    const readings = new Map([[0, reading('TEOHENGTRADING')]]);
    expect(linesRespelt(looked, readings).map((line) => line.text)).toEqual(['TEO HENG TRADING', 'TOTAL 9.90']);
  });

  it('never rejects, and keeps the first reading, when the raster cannot be decoded', async () => {
    const recognizer: LineRecognizer = { recognize: async () => reading('TEOHENGTRADING') };
    const page = [lineOf([['TED', 0.73], 'HENG', 'TRADING'], 0.1)];
    const readings = await readDecidingLinesAgain(recognizer, { bytes: Buffer.from('not an image'), width: 400, height: 600 }, page, () => 60_000);
    expect(readings.size).toBe(0);
  });

  it('reads nothing when the page budget is nearly spent', async () => {
    const recognizer: LineRecognizer = { recognize: async () => reading('XXXX') };
    const page = [lineOf([['TED', 0.73], 'HENG', 'TRADING'], 0.1)];
    expect(await recognizedAgain(recognizer, { bytes: Buffer.alloc(0), width: 1, height: 1 }, page, () => 500)).toEqual(page);
  });
});
