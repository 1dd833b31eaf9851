import { copyFile, mkdir, rename, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createWorker, OEM, PSM, type Block, type RecognizeResult, type Word, type Worker } from 'tesseract.js';
import type { Placement, PositionedWord, TextLine } from '../document.ts';
import { mergeReadings } from './ensemble-merge.ts';
import { textBands, type Band } from './ocr-bands.ts';
import { placementOnStraightenedPage, type Deskew, type LineDirection } from './ocr-preprocessing.ts';
import { readingLimits } from './reading-limits.ts';
import { clampToPage, sortInReadingOrder, unitePlacements } from './text-lines.ts';
import { TimeBudgetExceededError, withinTimeBudget } from './time-budget.ts';

// A small pool of tesseract.js workers (each a Node worker thread running tesseract compiled to
// WebAssembly). Recognition runs off the main thread, so a page that takes too long can be abandoned:
// its worker is terminated and replaced, and the caller gets TimeBudgetExceededError instead of a hang.

export const ocrLanguages = ['eng', 'deu', 'fra', 'nld', 'pol'] as const;
export type OcrLanguage = (typeof ocrLanguages)[number];

/**
 * How tesseract finds the text on the page: 'auto' searches for blocks, columns and pictures (letters,
 * A4 invoices; PSM 3); 'single-block' takes the page as one block of lines, as a till receipt is printed
 * (PSM 6), so the specks of thermal paper are not searched for regions. On the corpus receipts it reads
 * the same fields as the block search; one column of lines of varying size (PSM 4) lost dates printed
 * beside the time. Measured in the extraction README. 'single-line' (PSM 7) reads a crop holding one
 * line, as the second look at a deciding line does (line-second-look.ts).
 */
export type PageLayout = 'auto' | 'single-block' | 'single-line';
const segmentationModes: Record<PageLayout, PSM> = { auto: PSM.AUTO, 'single-block': PSM.SINGLE_BLOCK, 'single-line': PSM.SINGLE_LINE };

export interface OcrPoolOptions {
  /**
   * Concurrent workers; each holds ~100-200 MB and keeps one core busy. With two or more, one page is
   * cut into as many bands between its text lines, read at the same time (see ocr-bands.ts). Default:
   * the cores, at most 2 (2 on the 2-vCPU extraction function: a page read in about half the time).
   */
  size?: number;
  /** Languages the pool may read with; each recognition uses some or all of them (fewer is faster). Default all five. */
  languages?: readonly OcrLanguage[];
  /**
   * Bands per worker a page is cut into when the pool has two or more workers. The workers take the
   * bands in turn, so one band that is slow to read (small print) leaves the others to the other worker.
   * Default 1 (measured in the extraction README).
   */
  bandsPerWorker?: number;
  /**
   * When set, workers left idle this long (no recognition running or waiting) are terminated; the pool
   * stays usable and starts workers again on the next recognition. The timer itself never keeps the
   * process alive. Unset: idle workers live until terminate().
   */
  idleTimeoutMs?: number;
  /**
   * Language sets, one per worker, that a page read as one block (a till receipt) is read with at the
   * same time when all the pool's languages are asked for: each worker reads the whole page with its
   * set, and the readings are merged word by word as tesseract chooses between its languages
   * (ensemble-merge.ts). tesseract runs every model on every line, so the slowest set is the page's
   * time. Used only when the pool has at least as many workers as sets and the sets cover all its languages.
   * Default: none. Measured in the extraction README ("OCR speed, round 4"): 17-26% less CPU critical
   * path per receipt, one receipt field fewer on the corpus, so not on by default; measured again on
   * all 163 receipts with the second looks ("OCR speed, round 6"): 5 receipt fields fewer, all on
   * receipts-wide/, so still off.
   */
  ensembleSplit?: readonly (readonly OcrLanguage[])[];
}

/** An image ready for tesseract (PNG or JPEG bytes) and its pixel size, to turn pixel boxes into fractions. */
export interface OcrImage {
  bytes: Buffer;
  width: number;
  height: number;
  /** Set when the image was turned to straighten slanted text: boxes are placed on the straightened page. */
  deskew?: Deskew;
  /**
   * Set when the image is the paper found in a photo of it (paper-region.ts): where that paper is on the
   * image as given, as fractions of it. Boxes are placed on the paper; DocumentPage.paper puts them back.
   */
  paper?: Placement;
  /** Which way the text lines run, when the ink says so clearly: 'down' on a page lying on its side. */
  lineDirection?: LineDirection;
}

/** Words tesseract itself is unsure of below this confidence are noise (specks, rules, logos), not text. */
export const minimumWordConfidence = 0.2;

/** The language models ship in @tesseract.js-data/<code>; this variant is the one for LSTM-only OCR. */
const traineddataVariant = '4.0.0_best_int';

/** The pool was terminated before or while this recognition ran. */
export class OcrPoolTerminatedError extends Error {
  constructor() {
    super('The OCR pool has been terminated');
    this.name = 'OcrPoolTerminatedError';
  }
}

/** OCR workers could not be started (language data or WebAssembly missing): a fault of the service, not the document. */
export class OcrUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`OCR is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'OcrUnavailableError';
  }
}

export class OcrPool {
  readonly size: number;
  /** Every language this pool may read with; one recognition uses some or all of them. */
  readonly languages: readonly OcrLanguage[];
  readonly #bandsPerPage: number;
  readonly #ensembleSplit: readonly (readonly OcrLanguage[])[];
  /** Idle workers by their language set: loading other models into a worker costs seconds, keeping it costs memory. */
  readonly #idleWorkers = new Map<string, Worker[]>();
  readonly #busyWorkers = new Set<Worker>();
  /** Rejects the recognitions in progress: a terminated worker never answers them. */
  readonly #abortRunningJobs = new Set<(error: Error) => void>();
  readonly #waiting: { languages: readonly OcrLanguage[]; resolve: (worker: Worker) => void; reject: (error: Error) => void }[] = [];
  #startingWorkers = 0;
  #terminated = false;
  readonly #idleTimeoutMs: number | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #workersStarted = 0;

  constructor(options: OcrPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? Math.min(2, availableParallelism())));
    this.languages = options.languages && options.languages.length > 0 ? options.languages : ocrLanguages;
    this.#bandsPerPage = this.size * Math.max(1, Math.floor(options.bandsPerWorker ?? 1));
    // A set holding no language the sets before it lack would only read the page again (a pool of fewer languages).
    const split: OcrLanguage[][] = [];
    for (const set of options.ensembleSplit ?? []) {
      const kept = set.filter((language) => this.languages.includes(language));
      if (kept.some((language) => !split.flat().includes(language))) split.push(kept);
    }
    const covered = new Set(split.flat());
    this.#ensembleSplit = split.length >= 2 && split.length <= this.size && this.languages.every((language) => covered.has(language)) ? split : [];
    this.#idleTimeoutMs = options.idleTimeoutMs !== undefined && options.idleTimeoutMs >= 0 ? options.idleTimeoutMs : undefined;
  }

  /** Workers started over the pool's life (each start loads the language models: ~1-2 s). */
  get workersStarted(): number {
    return this.#workersStarted;
  }

  /** Workers alive now, idle or busy. */
  get liveWorkers(): number {
    return [...this.#idleWorkers.values()].flat().length + this.#busyWorkers.size;
  }

  /**
   * Recognises one image with `languages` (default: all the pool's languages together; fewer is faster);
   * rejects with TimeBudgetExceededError when it takes longer than `timeoutMs`.
   */
  async recognize(
    image: OcrImage,
    options: {
      timeoutMs?: number;
      languages?: readonly OcrLanguage[];
      layout?: PageLayout;
      /**
       * Reads the image whole on one worker, never in bands: for a block cut from a text page (a
       * letterhead), where bands were measured only to change what is read (extraction README).
       */
      whole?: boolean;
      /** Words below this confidence are left out as noise (default 0.2); 0 keeps every word, for a reading to be checked again. */
      minimumWordConfidence?: number;
    } = {},
  ): Promise<TextLine[]> {
    const timeoutMs = options.timeoutMs ?? readingLimits.pageTimeBudgetMs;
    const requested = options.languages?.filter((language) => this.languages.includes(language)) ?? [];
    const languages = requested.length > 0 ? requested : this.languages;
    const layout = options.layout ?? 'auto';
    const started = Date.now();
    const bands = options.whole ? [{ top: 0, bottom: image.height }] : await this.#bandsOf(image, layout);
    // Every band has what is left of the page's budget: they run at the same time.
    const remainingMs = () => Math.max(1, timeoutMs - (Date.now() - started));
    const minimumConfidence = options.minimumWordConfidence ?? minimumWordConfidence;
    if (bands.length === 1 && layout === 'single-block' && this.#ensembleSplit.length > 0 && languages.length === this.languages.length) {
      const readings = await Promise.all(this.#ensembleSplit.map((set) => this.#recognizeImage(image.bytes, set, layout, remainingMs())));
      return linesFromBlocks(mergeReadings(readings), image, minimumConfidence);
    }
    if (bands.length === 1) return linesFromBlocks(await this.#recognizeImage(image.bytes, languages, layout, remainingMs()), image, minimumConfidence);
    const blocks = await Promise.all(
      bands.map(async (band) => {
        const bandImage = await sharp(image.bytes)
          .extract({ left: 0, top: band.top, width: image.width, height: band.bottom - band.top })
          .png({ compressionLevel: 1 })
          .toBuffer();
        return blocksMovedDown(await this.#recognizeImage(bandImage, languages, layout, remainingMs()), band.top);
      }),
    );
    return linesFromBlocks(blocks.flat(), image, minimumConfidence);
  }

  /**
   * The bands one page is read in: as many as the pool has workers, cut between text lines. One band
   * (the whole page) with a single worker, or when the lines run down the page (turned sideways):
   * a cut across would split every line. A till receipt read as one block is read whole too: on the 44
   * corpus receipts, bands read 5 sellers, 1 total and 1 currency fewer than whole pages for ~10% less
   * wall time (extraction README, "OCR speed: one page on both cores"); A4 pages read as well in bands.
   */
  async #bandsOf(image: OcrImage, layout: PageLayout): Promise<Band[]> {
    const whole = [{ top: 0, bottom: image.height }];
    if (this.size < 2 || image.lineDirection === 'down' || layout !== 'auto') return whole;
    const { data, info } = await sharp(image.bytes).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    if (info.width !== image.width || info.height !== image.height) return whole;
    return textBands({ data, width: info.width, height: info.height }, this.#bandsPerPage);
  }

  /** Tesseract's blocks for one image (a page or a band of it), boxes in its pixels. */
  async #recognizeImage(
    bytes: Buffer,
    languages: readonly OcrLanguage[],
    layout: PageLayout,
    timeoutMs: number,
  ): Promise<Block[]> {
    const worker = await this.#acquireWorker(languages);
    let abandoned = false;
    let abortJob: (error: Error) => void = () => undefined;
    const aborted = new Promise<never>((_, reject) => {
      abortJob = reject;
    });
    this.#abortRunningJobs.add(abortJob);
    try {
      const recognition = Promise.race([recognizeWithLayout(worker, layout, bytes), aborted]);
      const result = await withinTimeBudget('OCR of one page', timeoutMs, recognition, () => {
        abandoned = true;
        return this.#discardWorker(worker);
      });
      return result.data.blocks ?? [];
    } catch (error) {
      // A worker whose job failed may be in any state; a fresh one is cheap compared with a wrong result.
      if (!abandoned) {
        abandoned = true;
        await this.#discardWorker(worker);
      }
      if (error instanceof TimeBudgetExceededError || error instanceof OcrPoolTerminatedError) throw error;
      throw new Error(`OCR failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.#abortRunningJobs.delete(abortJob);
      if (!abandoned) this.#releaseWorker(worker);
    }
  }

  /** Stops every worker. Queued and later recognize() calls reject; running ones end at their time budget. */
  async terminate(): Promise<void> {
    this.#terminated = true;
    clearTimeout(this.#idleTimer);
    for (const waiter of this.#waiting.splice(0)) waiter.reject(new OcrPoolTerminatedError());
    for (const abortJob of this.#abortRunningJobs) abortJob(new OcrPoolTerminatedError());
    const workers = [...[...this.#idleWorkers.values()].flat(), ...this.#busyWorkers];
    this.#idleWorkers.clear();
    this.#busyWorkers.clear();
    await Promise.all(workers.map((worker) => endWorker(worker)));
  }

  async #acquireWorker(languages: readonly OcrLanguage[]): Promise<Worker> {
    if (this.#terminated) throw new OcrPoolTerminatedError();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (this.#busyWorkers.size + this.#startingWorkers >= this.size) {
      return new Promise<Worker>((resolve, reject) => this.#waiting.push({ languages, resolve, reject }));
    }
    const key = languageKey(languages);
    const idle = this.#idleWorkers.get(key)?.pop();
    if (idle) {
      this.#busyWorkers.add(idle);
      return idle;
    }
    this.#startingWorkers += 1;
    try {
      await this.#retireSurplusIdleWorkers();
      const worker = await startWorker(languages).catch((error: unknown) => {
        throw new OcrUnavailableError(error);
      });
      this.#workersStarted += 1;
      if (this.#terminated) {
        await endWorker(worker);
        throw new OcrPoolTerminatedError();
      }
      this.#busyWorkers.add(worker);
      return worker;
    } finally {
      this.#startingWorkers -= 1;
      // A start that failed leaves the pool as idle as before: its other workers still retire in time.
      this.#scheduleIdleRetirement();
    }
  }

  /** Idle workers beyond `size` (of other language sets) only hold memory: the surplus goes before another starts. */
  async #retireSurplusIdleWorkers(): Promise<void> {
    const idle = [...this.#idleWorkers.values()].flat();
    const surplus = idle.length - this.size;
    if (surplus <= 0) return;
    const retiring = idle.slice(0, surplus);
    for (const [key, workers] of this.#idleWorkers) {
      const kept = workers.filter((worker) => !retiring.includes(worker));
      if (kept.length > 0) this.#idleWorkers.set(key, kept);
      else this.#idleWorkers.delete(key);
    }
    await Promise.all(retiring.map((worker) => endWorker(worker)));
  }

  #releaseWorker(worker: Worker): void {
    this.#busyWorkers.delete(worker);
    if (this.#terminated) {
      void endWorker(worker);
      return;
    }
    const key = languageKey(workerLanguages.get(worker) ?? this.languages);
    this.#idleWorkers.set(key, [...(this.#idleWorkers.get(key) ?? []), worker]);
    this.#serveWaiting();
    this.#scheduleIdleRetirement();
  }

  async #discardWorker(worker: Worker): Promise<void> {
    this.#busyWorkers.delete(worker);
    await endWorker(worker);
    // Someone may be waiting for the place this worker held.
    this.#serveWaiting();
    this.#scheduleIdleRetirement();
  }

  /** Once nothing runs or waits, idle workers are terminated after the idle timeout (they hold memory, not work). */
  #scheduleIdleRetirement(): void {
    if (this.#idleTimeoutMs === undefined || this.#terminated || !this.#isIdle()) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#terminated || !this.#isIdle()) return;
      const idle = [...this.#idleWorkers.values()].flat();
      this.#idleWorkers.clear();
      for (const worker of idle) void endWorker(worker);
    }, this.#idleTimeoutMs);
    // The timer alone never holds the process open (live worker threads do, until it fires or terminate()).
    this.#idleTimer.unref();
  }

  #isIdle(): boolean {
    return this.#busyWorkers.size === 0 && this.#startingWorkers === 0 && this.#waiting.length === 0;
  }

  /** Hands freed places to the queue in order: each waiter gets an idle worker of its languages or a new one. */
  #serveWaiting(): void {
    while (!this.#terminated && this.#waiting.length > 0 && this.#busyWorkers.size + this.#startingWorkers < this.size) {
      const next = this.#waiting.shift()!;
      this.#acquireWorker(next.languages).then(next.resolve, next.reject);
    }
  }
}

const languageKey = (languages: readonly OcrLanguage[]): string => languages.join('+');
/** The language set each worker was started with, to return it to the right idle list. */
const workerLanguages = new WeakMap<Worker, readonly OcrLanguage[]>();

async function startWorker(languages: readonly OcrLanguage[]): Promise<Worker> {
  const langPath = await languageDataDirectory(languages);
  const worker = await createWorker([...languages], OEM.LSTM_ONLY, {
    langPath,
    gzip: true,
    // The models are read from local files; caching them again on disk would only duplicate them.
    cacheMethod: 'none',
    // Without a handler tesseract.js rethrows a failed job inside its message listener, which crashes
    // the process; the job's own promise still rejects, which is where the failure is handled.
    errorHandler: () => undefined,
  });
  workerLanguages.set(worker, languages);
  // Rasters are prepared at ~300 dpi but rarely say so (rendered pages and crops carry no density).
  // tesseract prints diagnostics ("Image too small to scale!!") on noise; they are not errors of ours.
  await worker.setParameters({ user_defined_dpi: '300', debug_file: '/dev/null' });
  return worker;
}

/** Workers the pool has terminated; a late reply from one of them must not start another job on it. */
const endedWorkers = new WeakSet<object>();

/** Terminates a worker for good (best effort: a worker that fails to stop is no longer used either way). */
export async function endWorker(worker: Pick<Worker, 'terminate'>): Promise<void> {
  endedWorkers.add(worker);
  await worker.terminate().catch(() => undefined);
}

/**
 * Sets the worker's layout, then recognises `bytes`. A reply the worker sent before it was terminated
 * (the budget ran out while the layout was being set) is still delivered after: recognising then would
 * post to a worker tesseract.js has already let go of, which it reports as an unhandled rejection that
 * ends the process. So a worker ended meanwhile gets no further job.
 */
export async function recognizeWithLayout(worker: Pick<Worker, 'setParameters' | 'recognize'>, layout: PageLayout, bytes: Buffer): Promise<RecognizeResult> {
  await withLayout(worker, layout);
  if (endedWorkers.has(worker)) throw new OcrPoolTerminatedError();
  return worker.recognize(bytes, {}, { blocks: true, text: false });
}

/** The layout each worker is set to: changing it is one message to the worker, skipped when it is already set. */
const workerLayouts = new WeakMap<object, PageLayout>();

export async function withLayout(worker: Pick<Worker, 'setParameters'>, layout: PageLayout): Promise<void> {
  // A new worker is not in PSM 3 (auto): tesseract's own default is 6 (one block; only its command
  // line sets 3). Assuming auto read each worker's first wide page as one block and every later one
  // with the block search, so a page's reading depended on what its worker had read before.
  if (workerLayouts.get(worker) === layout) return;
  await worker.setParameters({ tessedit_pageseg_mode: segmentationModes[layout] });
  workerLayouts.set(worker, layout);
}

let languageDirectory: Promise<string> | undefined;

/**
 * tesseract.js reads every language from one directory, but each @tesseract.js-data package holds one
 * language. The models are copied once per machine into a shared directory (write then rename, so
 * concurrent processes never read a half-written file); nothing is fetched from the network.
 */
async function languageDataDirectory(languages: readonly OcrLanguage[]): Promise<string> {
  languageDirectory ??= (async () => {
    const directory = path.join(tmpdir(), `paperflow-tessdata-${traineddataVariant}`);
    await mkdir(directory, { recursive: true });
    const require = createRequire(import.meta.url);
    await Promise.all(
      ocrLanguages.map(async (language) => {
        const packageDirectory = path.dirname(require.resolve(`@tesseract.js-data/${language}/package.json`));
        const source = path.join(packageDirectory, traineddataVariant, `${language}.traineddata.gz`);
        const target = path.join(directory, `${language}.traineddata.gz`);
        const [sourceStat, targetStat] = await Promise.all([stat(source), stat(target).catch(() => undefined)]);
        if (targetStat?.size === sourceStat.size) return;
        const partial = `${target}.${process.pid}.partial`;
        await copyFile(source, partial);
        await rename(partial, target);
      }),
    );
    return directory;
  })();
  try {
    return await languageDirectory;
  } catch (error) {
    languageDirectory = undefined;
    throw new Error(`OCR language data for ${languages.join('+')} could not be prepared: ${String(error)}`);
  }
}

/** Places the words and lines read on a band cut `top` rows below the page's top edge on the page. */
function blocksMovedDown(blocks: Block[], top: number): Block[] {
  const moved = <T extends { bbox: { y0: number; y1: number } }>(item: T): T => ({ ...item, bbox: { ...item.bbox, y0: item.bbox.y0 + top, y1: item.bbox.y1 + top } });
  return blocks.map((block) => ({
    ...moved(block),
    paragraphs: (block.paragraphs ?? []).map((paragraph) => ({
      ...moved(paragraph),
      lines: (paragraph.lines ?? []).map((line) => ({ ...moved(line), words: (line.words ?? []).map(moved) })),
    })),
  }));
}

/**
 * A gap wider than this many line heights splits a tesseract line in two: tesseract joins text of
 * side-by-side columns into one line, while the text-layer reader keeps them apart (same rule).
 */
const lineBreakGapInLineHeights = 2.5;

/** Converts tesseract's block tree into placed lines; pixel boxes become fractions of the image. */
export function linesFromBlocks(blocks: Block[], image: Pick<OcrImage, 'width' | 'height' | 'deskew'>, minimumConfidence = minimumWordConfidence): TextLine[] {
  const lines: TextLine[] = [];
  for (const block of blocks) {
    for (const paragraph of block.paragraphs ?? []) {
      for (const line of paragraph.lines ?? []) {
        const lineHeight = Math.max(1, line.bbox.y1 - line.bbox.y0);
        const recognisedWords = (line.words ?? []).filter((word) => word.text.trim() !== '' && word.confidence / 100 >= minimumConfidence);
        let segment: typeof recognisedWords = [];
        const flush = () => {
          if (segment.length > 0) lines.push(placedLine(segment, line.confidence, image));
          segment = [];
        };
        for (const word of recognisedWords) {
          const previous = segment.at(-1);
          if (previous && word.bbox.x0 - previous.bbox.x1 > lineBreakGapInLineHeights * lineHeight) flush();
          segment.push(word);
        }
        flush();
      }
    }
  }
  return sortInReadingOrder(lines);
}

function placedLine(words: Word[], lineConfidence: number, image: Pick<OcrImage, 'width' | 'height' | 'deskew'>): TextLine {
  const placedWords: PositionedWord[] = words.map((word) => {
    const onRaster: Placement = clampToPage({
      x: word.bbox.x0 / image.width,
      y: word.bbox.y0 / image.height,
      width: (word.bbox.x1 - word.bbox.x0) / image.width,
      height: (word.bbox.y1 - word.bbox.y0) / image.height,
    });
    return {
      text: word.text.trim(),
      confidence: Math.round(word.confidence) / 100,
      placement: image.deskew ? placementOnStraightenedPage(onRaster, image.deskew) : onRaster,
    };
  });
  return {
    text: placedWords.map((word) => word.text).join(' '),
    words: placedWords,
    placement: clampToPage(unitePlacements(placedWords.map((word) => word.placement!))),
    confidence: Math.round(lineConfidence) / 100,
  };
}
