import sharp from 'sharp';
import type { QuarterTurn, TextLine } from '../document.ts';
import { rereadDoubtfulLines, withoutNoiseWords } from './doubtful-lines.ts';
import { readMissedLines } from './missed-lines.ts';
import { readAtOnce } from './reads-at-once.ts';
import { minimumWordConfidence, type OcrImage, type OcrLanguage, type OcrPool, type PageLayout } from './ocr-pool.ts';
import { paintSurroundingDarknessAsPaper, placementOnStraightenedPage, type Deskew } from './ocr-preprocessing.ts';
import { TimeBudgetExceededError } from './time-budget.ts';

// Scans and photos arrive sideways or upside down. Tesseract's orientation
// detection needs the legacy engine and an extra model, so orientation is judged by the result instead:
// text read in the wrong orientation is fragments tesseract itself is unsure of, or (text set sideways,
// which tesseract's layout follows) lines that run down or up the image. Only then are the
// orientations that the ink allows tried (lines running down: a quarter turn either way; across: a half
// turn), on a small copy first, and the page is read again in the one that gives confident words. From
// then on the page is the turned one: its lines are placed on it and every later look at the page
// crops the turned raster, so a receipt photographed sideways has its head at the top like any other.
// Every page is read with all the pool's models at once: they outvote each other's misreads (English
// alone read "Ltd" as "Lid" and lost receipt totals; see the extraction README).

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

/** A page read upright: its lines, the raster they were read from and are placed on, and the turn that set it upright. */
export interface UprightReading {
  lines: TextLine[];
  /** The page as given, or turned upright: later looks at the page crop this raster. */
  raster: OcrImage;
  /** The clockwise turn from the page as given to `raster`; none when the page was read as given. */
  turn?: QuarterTurn;
}

/**
 * OCR that also reads pages turned by a quarter or half turn, in the page's language. A page read as
 * given is placed on the image as given; a turned one on the image turned upright (UprightReading.turn).
 */
export async function recognizeUpright(ocr: OcrPool, raster: OcrImage, budgetMs: () => number, options: UprightReadingOptions = {}): Promise<UprightReading> {
  const reading = await recognizeUprightAsGiven(ocr, raster, budgetMs, options);
  // A page that gave (almost) no words may be a readable photo whose dark surroundings threw
  // tesseract's threshold (paintSurroundingDarknessAsPaper): it is read once more without them. Pages that
  // read are never read twice, so this costs only pages that would otherwise have no text.
  if (wordsWithLettersIn(reading.lines) >= minimumWordsToJudge || budgetMs() <= 0) return reading;
  const painted = await withSurroundingDarknessAsPaper(raster);
  if (!painted) return reading;
  // Out of time here, the page counts as over its budget (the uploader is told so), not as blank.
  const repainted = await recognizeUprightAsGiven(ocr, painted, budgetMs, options);
  return wordsWithLettersIn(repainted.lines) > wordsWithLettersIn(reading.lines) ? repainted : reading;
}

/** The raster with its dark surroundings (an edge, a table) painted as paper; undefined when it has none. */
async function withSurroundingDarknessAsPaper(raster: OcrImage): Promise<OcrImage | undefined> {
  const { data, info } = await sharp(raster.bytes).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const painted = paintSurroundingDarknessAsPaper({ data, width: info.width, height: info.height });
  if (!painted) return undefined;
  const bytes = await sharp(painted.data, { raw: { width: painted.width, height: painted.height, channels: 1 } }).png({ compressionLevel: 1 }).toBuffer();
  return { ...raster, bytes };
}

async function recognizeUprightAsGiven(ocr: OcrPool, raster: OcrImage, budgetMs: () => number, options: UprightReadingOptions): Promise<UprightReading> {
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
  // Tesseract's page layout follows text set sideways and reads it, often surely: such a page may look
  // upright by its words, but its lines run down or up the image. Which turn sets it upright its words
  // do not say (tesseract reads text turned the other way as upside down, in the same order, and the
  // fragments of an upside-down page may happen to run down too), so every turn is tried.
  const sideways = !englishFirst && linesRunDownOrUp(asGiven);
  if ((sideways || !looksUpright(asGiven)) && budgetMs() > firstReadingMs * orientationSearchCostInReadings) {
    try {
      const turned = await readInBestOrientation(ocr, raster, languages, budgetMs, sideways);
      if (turned) return turned;
    } catch (error) {
      // The page's budget ran out while looking for a better orientation: the reading as given is
      // what the page has. Losing it would leave a slow, skewed first page of a scan with no text.
      if (!(error instanceof TimeBudgetExceededError)) throw error;
    }
  }
  // Tesseract's layout analysis of a page read as given may have left lines out (a receipt read as one
  // block has none to leave out; a turned page was read whole again).
  if (!englishFirst) return { lines: layout === 'auto' ? await readMissedLines(ocr, raster, asGiven, budgetMs) : asGiven, raster };
  let lines: TextLine[];
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
  return { lines: raster.deskew ? lines.map((line) => placedOnPage(line, raster.deskew!)) : lines, raster };
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

/** Lines of at least this many words say which way they run; fewer than this many such lines say nothing. */
const wordsToShowDirection = 2;
const linesToShowDirection = 3;
/** The share of those lines that must run down or up the image for the page to be sideways. */
const sidewaysLineShare = 0.6;

/** Which way a line of at least two placed words runs, from its first word to its last; undefined for shorter lines. */
function directionOf(line: TextLine): 'across' | 'along' | undefined {
  const placed = line.words.flatMap((word) => (word.placement ? [word.placement] : []));
  if (placed.length < wordsToShowDirection) return undefined;
  const [first, last] = [placed[0]!, placed.at(-1)!];
  const dx = last.x + last.width / 2 - (first.x + first.width / 2);
  const dy = last.y + last.height / 2 - (first.y + first.height / 2);
  return Math.abs(dy) > Math.abs(dx) ? 'along' : 'across';
}

/**
 * Whether most lines of a reading run down or up the image (from their first word to their last),
 * as they do on a page turned a quarter. A reading with too few lines of words to tell runs across.
 */
export function linesRunDownOrUp(lines: readonly TextLine[]): boolean {
  const directions = lines.flatMap((line) => directionOf(line) ?? []);
  return directions.length >= linesToShowDirection && directions.filter((direction) => direction === 'along').length >= directions.length * sidewaysLineShare;
}

/** The confident words (confidentWordCount) of the lines that run across the image. */
function confidentWordsAcross(lines: TextLine[]): number {
  return confidentWordCount(lines.filter((line) => directionOf(line) === 'across'));
}

/** Turns to try for a page that did not read upright, from the direction of its lines when the ink tells it. */
function turnsToTry(raster: OcrImage): QuarterTurn[] {
  if (raster.lineDirection === 'across') return [180];
  if (raster.lineDirection === 'down') return [90, 270];
  return [90, 270, 180];
}

/**
 * The page read in the orientation its trials find best, or undefined where that is as given. A page
 * whose lines run down or up tries every turn and takes the one with the most confident words in
 * lines running across: a turn that leaves the text sideways reads it as surely as upright.
 */
async function readInBestOrientation(ocr: OcrPool, raster: OcrImage, languages: readonly OcrLanguage[], budgetMs: () => number, sideways = false): Promise<UprightReading | undefined> {
  if (budgetMs() <= 0) return undefined;
  // The trials are independent readings of turned copies, so they go to the pool at once: the
  // workers share them, and each reads what it read when they ran one after another. A trial that
  // ran out of the page's budget leaves the page as given, as it always did.
  const turns: (0 | QuarterTurn)[] = sideways ? [90, 180, 270] : [0, ...turnsToTry(raster)];
  const score = sideways ? confidentWordsAcross : confidentWordCount;
  const trials = await readAtOnce(
    turns.map((turn) => async () => {
      const trial = await rotatedRaster(raster, turn, trialLongSidePixels);
      return score(await ocr.recognize(trial, { timeoutMs: budgetMs(), languages, layout: pageLayoutOf(trial) }));
    }),
  );
  if (trials.some((score) => score === undefined)) return undefined;
  const trialScores = new Map<0 | QuarterTurn, number>(turns.map((turn, index) => [turn, trials[index]!]));
  const [bestTurn, bestScore] = [...trialScores].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  const asGivenScore = trialScores.get(0) ?? 0;
  if (bestTurn === 0 || bestScore < Math.max(minimumWordsToJudge, asGivenScore * 2) || budgetMs() <= 0) return undefined;
  const turned = await turnedRaster(raster, bestTurn);
  return { lines: await ocr.recognize(turned, { timeoutMs: budgetMs(), languages, layout: pageLayoutOf(turned) }), raster: turned, turn: bestTurn };
}

/**
 * The raster turned clockwise by `turn`, whole, as a page of its own: a straightened raster keeps its
 * straightening, turned with it (turning about the centre commutes with the straightening), so the
 * lines read from it are placed on the upright page as those of any raster.
 */
export async function turnedRaster(raster: OcrImage, turn: QuarterTurn): Promise<OcrImage> {
  const { data, info } = await sharp(raster.bytes).rotate(turn).png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
  const quarterTurn = turn !== 180;
  const deskew = raster.deskew;
  return {
    bytes: data,
    width: info.width,
    height: info.height,
    // A quarter turn sets lines that ran down the page across it.
    ...(raster.lineDirection ? { lineDirection: quarterTurn ? 'across' : raster.lineDirection } : {}),
    ...(deskew
      ? {
          deskew: quarterTurn
            ? { degrees: deskew.degrees, givenWidth: deskew.givenHeight, givenHeight: deskew.givenWidth, turnedWidth: deskew.turnedHeight, turnedHeight: deskew.turnedWidth }
            : deskew,
        }
      : {}),
  };
}

/** The raster turned clockwise by `turn`, optionally scaled down so its long side is at most `longSide`. */
async function rotatedRaster(raster: OcrImage, turn: 0 | QuarterTurn, longSide?: number): Promise<OcrImage> {
  let image = sharp(raster.bytes).rotate(turn);
  if (longSide !== undefined) image = image.resize(longSide, longSide, { fit: 'inside', withoutEnlargement: true });
  const { data, info } = await image.png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
  return { bytes: data, width: info.width, height: info.height };
}
