import sharp from 'sharp';
import type { Placement, TextLine } from '../document.ts';
import { rereadDoubtfulLines, withoutNoiseWords } from './doubtful-lines.ts';
import { readMissedLines } from './missed-lines.ts';
import { readAtOnce } from './reads-at-once.ts';
import { minimumWordConfidence, type OcrImage, type OcrLanguage, type OcrPool, type PageLayout } from './ocr-pool.ts';
import { paintEdgeDarknessAsPaper, placementOnStraightenedPage, type Deskew } from './ocr-preprocessing.ts';
import { clampToPage } from './text-lines.ts';
import { TimeBudgetExceededError } from './time-budget.ts';

// Scans and photos arrive sideways or upside down. Tesseract's orientation
// detection needs the legacy engine and an extra model, so orientation is judged by the result instead:
// text read in the wrong orientation is fragments tesseract itself is unsure of. Only then are the
// orientations that the ink allows tried (lines running down: a quarter turn either way; across: a half
// turn), on a small copy first, and the page is read again in the one that gives confident words.
// Every page is read with all the pool's models at once: they outvote each other's misreads (English
// alone read "Ltd" as "Lid" and lost receipt totals; see the extraction README).

export type QuarterTurn = 90 | 180 | 270;

/** A word counts as confident text when tesseract is this sure of it and it has three letters in a row. */
const confidentWordConfidence = 0.75;
/** Fewer words than this say nothing about orientation (a stamp, a blank page with specks). */
const minimumWordsToJudge = 5;
/** Below this share of confident words the reading is suspect. */
const minimumConfidentShare = 0.5;
/** Orientation trials run on a copy this small: a fraction of the cost of a full page. */
const trialLongSidePixels = 1200;
/**
 * The trials and the reading in the turn they find take about this many times the first reading: with
 * less budget left they would end in a timeout, so the first reading is kept straight away.
 */
const orientationSearchCostInReadings = 1.5;

/**
 * A page at least this much taller than wide is a till receipt or a strip cut from one (A4 is 1.41;
 * the corpus receipts 1.7-3.0): one block of lines, with no columns or pictures to search for.
 */
const receiptHeightToWidth = 1.6;

/** How tesseract should look for text on an image of this size (see PageLayout). */
export function pageLayoutOf(image: { width: number; height: number }): PageLayout {
  return image.height >= image.width * receiptHeightToWidth ? 'single-block' : 'auto';
}

export function confidentWordCount(lines: TextLine[]): number {
  return lines.flatMap((line) => line.words).filter((word) => (word.confidence ?? 1) >= confidentWordConfidence && /\p{L}{3}/u.test(word.text)).length;
}

function wordsWithLettersIn(lines: TextLine[]): number {
  return lines.flatMap((line) => line.words).filter((word) => (word.confidence ?? 1) >= minimumWordConfidence && /\p{L}/u.test(word.text)).length;
}

/** Words with letters decide; numbers read fine sideways too often to say anything (a '1' is a '1'). */
function looksUpright(lines: TextLine[]): boolean {
  // A reading that keeps its noise words (to be checked again) is judged on the same words as any other.
  const wordsWithLetters = wordsWithLettersIn(lines);
  return wordsWithLetters < minimumWordsToJudge || confidentWordCount(lines) >= wordsWithLetters * minimumConfidentShare;
}

/** How the first reading of a page is made (extraction README, "OCR speed"). */
export interface UprightReadingOptions {
  /**
   * Pages read with English alone first, and only their doubtful lines again with every model:
   * 'receipts' (pages read as one block), 'all', or 'none' (every model at once, the default). Measured
   * 40% less CPU per receipt but lost receipt fields in both arrangements (extraction README, "OCR speed,
   * round 3"), so it is off; kept for the bench and the next attempt.
   */
  englishFirst?: 'receipts' | 'all' | 'none';
  /** A line with a word below this confidence in the English reading is read again with every model. */
  doubtfulWordConfidence?: number;
  /** How the doubtful lines are laid out for the second reading (see rereadDoubtfulLines). */
  arrangement?: 'stacked' | 'in-place';
}

/** Default of UprightReadingOptions.doubtfulWordConfidence. */
const doubtfulWordConfidence = 0.8;

/**
 * OCR that also reads pages turned by a quarter or half turn, in the page's language. Placements always
 * refer to the image as given; lines keep the order in which they read upright.
 */
export async function recognizeUpright(ocr: OcrPool, raster: OcrImage, budgetMs: () => number, options: UprightReadingOptions = {}): Promise<TextLine[]> {
  const lines = await recognizeUprightAsGiven(ocr, raster, budgetMs, options);
  // A page that gave (almost) no words may be a readable photo whose dark surroundings threw
  // tesseract's threshold (paintEdgeDarknessAsPaper): it is read once more without them. Pages that
  // read are never read twice, so this costs only pages that would otherwise have no text.
  if (wordsWithLettersIn(lines) >= minimumWordsToJudge || budgetMs() <= 0) return lines;
  const painted = await withEdgeDarknessAsPaper(raster);
  if (!painted) return lines;
  // Out of time here, the page counts as over its budget (the uploader is told so), not as blank.
  const repainted = await recognizeUprightAsGiven(ocr, painted, budgetMs, options);
  return wordsWithLettersIn(repainted) > wordsWithLettersIn(lines) ? repainted : lines;
}

/** The raster with the dark areas reaching its edges painted as paper; undefined when it has none. */
async function withEdgeDarknessAsPaper(raster: OcrImage): Promise<OcrImage | undefined> {
  const { data, info } = await sharp(raster.bytes).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const painted = paintEdgeDarknessAsPaper({ data, width: info.width, height: info.height });
  if (!painted) return undefined;
  const bytes = await sharp(painted.data, { raw: { width: painted.width, height: painted.height, channels: 1 } }).png({ compressionLevel: 1 }).toBuffer();
  return { ...raster, bytes };
}

async function recognizeUprightAsGiven(ocr: OcrPool, raster: OcrImage, budgetMs: () => number, options: UprightReadingOptions): Promise<TextLine[]> {
  const layout = pageLayoutOf(raster);
  const languages = ocr.languages;
  const mode = options.englishFirst ?? 'none';
  const englishFirst = languages.length > 1 && languages.includes('eng') && (mode === 'all' || (mode === 'receipts' && layout === 'single-block'));
  const started = Date.now();
  // English first: placed on the raster itself (not the straightened page), so its doubtful lines can be cut out.
  const asGiven = englishFirst
    ? await ocr.recognize(withoutDeskew(raster), { timeoutMs: budgetMs(), languages: ['eng'], layout, minimumWordConfidence: 0 })
    : await ocr.recognize(raster, { timeoutMs: budgetMs(), languages, layout });
  const firstReadingMs = Date.now() - started;
  let lines = asGiven;
  if (!looksUpright(asGiven) && budgetMs() > firstReadingMs * orientationSearchCostInReadings) {
    try {
      lines = await readInBestOrientation(ocr, raster, asGiven, languages, budgetMs);
    } catch (error) {
      // The page's budget ran out while looking for a better orientation: the reading as given is
      // what the page has. Losing it would leave a slow, skewed first page of a scan with no text.
      if (!(error instanceof TimeBudgetExceededError)) throw error;
    }
  }
  // Tesseract's layout analysis of a page read as given may have left lines out (a receipt read as one
  // block has none to leave out; a turned page was read whole again).
  if (!englishFirst) return lines === asGiven && layout === 'auto' ? readMissedLines(ocr, raster, lines, budgetMs) : lines;
  if (lines !== asGiven) return lines;
  try {
    lines = await rereadDoubtfulLines(ocr, withoutDeskew(raster), asGiven, {
      languages,
      doubtfulWordConfidence: options.doubtfulWordConfidence ?? doubtfulWordConfidence,
      timeoutMs: budgetMs,
      ...(options.arrangement ? { arrangement: options.arrangement } : {}),
    });
  } catch (error) {
    if (!(error instanceof TimeBudgetExceededError)) throw error;
    // Out of time for the second reading: the English one, less its noise, is what the page has.
    lines = withoutNoiseWords(asGiven);
  }
  return raster.deskew ? lines.map((line) => placedOnPage(line, raster.deskew!)) : lines;
}

function withoutDeskew(raster: OcrImage): OcrImage {
  const { deskew: _deskew, ...rest } = raster;
  return rest;
}

/** A line read on a straightened raster, placed on the straightened page (as the pool places it itself). */
function placedOnPage(line: TextLine, deskew: Deskew): TextLine {
  return {
    ...line,
    ...(line.placement ? { placement: placementOnStraightenedPage(line.placement, deskew) } : {}),
    words: line.words.map((word) => ({ ...word, ...(word.placement ? { placement: placementOnStraightenedPage(word.placement, deskew) } : {}) })),
  };
}

/** Turns to try for a page that did not read upright, from the direction of its lines when the ink tells it. */
function turnsToTry(raster: OcrImage): QuarterTurn[] {
  if (raster.lineDirection === 'across') return [180];
  if (raster.lineDirection === 'down') return [90, 270];
  return [90, 270, 180];
}

async function readInBestOrientation(
  ocr: OcrPool,
  raster: OcrImage,
  asGiven: TextLine[],
  languages: readonly OcrLanguage[],
  budgetMs: () => number,
): Promise<TextLine[]> {
  if (budgetMs() <= 0) return asGiven;
  // The trials are independent readings of turned copies, so they go to the pool at once: the
  // workers share them, and each reads what it read when they ran one after another. A trial that
  // ran out of the page's budget leaves the page as given, as it always did.
  const turns = [0, ...turnsToTry(raster)] as const;
  const trials = await readAtOnce(
    turns.map((turn) => async () => {
      const trial = await rotatedRaster(raster, turn, trialLongSidePixels);
      return confidentWordCount(await ocr.recognize(trial, { timeoutMs: budgetMs(), languages, layout: pageLayoutOf(trial) }));
    }),
  );
  if (trials.some((score) => score === undefined)) return asGiven;
  const trialScores = new Map<0 | QuarterTurn, number>(turns.map((turn, index) => [turn, trials[index]!]));
  const [bestTurn, bestScore] = [...trialScores].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  const asGivenScore = trialScores.get(0) ?? 0;
  if (bestTurn === 0 || bestScore < Math.max(minimumWordsToJudge, asGivenScore * 2) || budgetMs() <= 0) return asGiven;
  return readTurned(ocr, raster, bestTurn, languages, budgetMs());
}

/** Reads the raster turned clockwise by `turn`, placing the lines on the image as given. */
async function readTurned(ocr: OcrPool, raster: OcrImage, turn: 0 | QuarterTurn, languages: readonly OcrLanguage[], timeoutMs: number): Promise<TextLine[]> {
  if (turn === 0) return ocr.recognize(raster, { timeoutMs, languages, layout: pageLayoutOf(raster) });
  const turned = await rotatedRaster(raster, turn);
  const lines = await ocr.recognize(turned, { timeoutMs, languages, layout: pageLayoutOf(turned) });
  return lines.map((line) => placedOnGivenImage(line, turn, raster.deskew));
}

/** The raster turned clockwise by `turn`, optionally scaled down so its long side is at most `longSide`. */
async function rotatedRaster(raster: OcrImage, turn: 0 | QuarterTurn, longSide?: number): Promise<OcrImage> {
  let image = sharp(raster.bytes).rotate(turn);
  if (longSide !== undefined) image = image.resize(longSide, longSide, { fit: 'inside', withoutEnlargement: true });
  const { data, info } = await image.png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
  return { bytes: data, width: info.width, height: info.height };
}

/**
 * Maps a box found on the image turned clockwise by `turn` back onto the image as given. Turning by
 * 90° moves a point (x, y) of the given image to (1 - y, x); the other turns follow the same way.
 */
export function boxOnGivenImage(box: Placement, turn: QuarterTurn): Placement {
  switch (turn) {
    case 90:
      return clampToPage({ x: box.y, y: 1 - box.x - box.width, width: box.height, height: box.width });
    case 270:
      return clampToPage({ x: 1 - box.y - box.height, y: box.x, width: box.height, height: box.width });
    case 180:
      return clampToPage({ x: 1 - box.x - box.width, y: 1 - box.y - box.height, width: box.width, height: box.height });
  }
}

/** Undoes the quarter turn; a raster that was straightened before it was turned is placed on the straightened page. */
function placedOnGivenImage(line: TextLine, turn: QuarterTurn, deskew: Deskew | undefined): TextLine {
  const onGiven = (box: Placement): Placement => {
    const unturned = boxOnGivenImage(box, turn);
    return deskew ? placementOnStraightenedPage(unturned, deskew) : unturned;
  };
  return {
    ...line,
    ...(line.placement ? { placement: onGiven(line.placement) } : {}),
    words: line.words.map((word) => ({ ...word, ...(word.placement ? { placement: onGiven(word.placement) } : {}) })),
  };
}
