import sharp from 'sharp';
import type { Placement, TextLine } from '../document.ts';
import type { OcrImage, OcrPool } from './ocr-pool.ts';
import { placementOnStraightenedPage, type Deskew } from './ocr-preprocessing.ts';
import { clampToPage } from './text-lines.ts';
import { TimeBudgetExceededError } from './time-budget.ts';

// Scans and photos arrive sideways or upside down. Tesseract's orientation detection needs the legacy
// engine and an extra model, so orientation is judged by the result instead: text read in the wrong
// orientation is fragments tesseract itself is unsure of. Only then are the other orientations tried,
// on a small copy first, and the page is read again in the one that gives confident words.

export type QuarterTurn = 90 | 180 | 270;

/** A word counts as confident text when tesseract is this sure of it and it has three letters in a row. */
const confidentWordConfidence = 0.75;
/** Fewer words than this say nothing about orientation (a stamp, a blank page with specks). */
const minimumWordsToJudge = 5;
/** Below this share of confident words the reading is suspect. */
const minimumConfidentShare = 0.5;
/** Orientation trials run on a copy this small: a fraction of the cost of a full page. */
const trialLongSidePixels = 1200;

export function confidentWordCount(lines: TextLine[]): number {
  return lines.flatMap((line) => line.words).filter((word) => (word.confidence ?? 1) >= confidentWordConfidence && /\p{L}{3}/u.test(word.text)).length;
}

/** Words with letters decide; numbers read fine sideways too often to say anything (a '1' is a '1'). */
function looksUpright(lines: TextLine[]): boolean {
  const wordsWithLetters = lines.flatMap((line) => line.words).filter((word) => /\p{L}/u.test(word.text)).length;
  return wordsWithLetters < minimumWordsToJudge || confidentWordCount(lines) >= wordsWithLetters * minimumConfidentShare;
}

/**
 * OCR that also reads pages turned by a quarter or half turn. Placements always refer to the image as
 * given; lines keep the order in which they read upright.
 */
export async function recognizeUpright(ocr: OcrPool, raster: OcrImage, budgetMs: () => number): Promise<TextLine[]> {
  const asGiven = await ocr.recognize(raster, { timeoutMs: budgetMs() });
  if (looksUpright(asGiven)) return asGiven;
  try {
    return await readInBestOrientation(ocr, raster, asGiven, budgetMs);
  } catch (error) {
    // The page's budget ran out while looking for a better orientation: the reading as given is
    // what the page has. Losing it would leave a slow, skewed first page of a scan with no text.
    if (error instanceof TimeBudgetExceededError) return asGiven;
    throw error;
  }
}

async function readInBestOrientation(ocr: OcrPool, raster: OcrImage, asGiven: TextLine[], budgetMs: () => number): Promise<TextLine[]> {
  const trialScores = new Map<0 | QuarterTurn, number>();
  for (const turn of [0, 90, 270, 180] as const) {
    if (budgetMs() <= 0) return asGiven;
    const trial = await rotatedRaster(raster, turn, trialLongSidePixels);
    trialScores.set(turn, confidentWordCount(await ocr.recognize(trial, { timeoutMs: budgetMs() })));
  }
  const [bestTurn, bestScore] = [...trialScores].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  const asGivenScore = trialScores.get(0) ?? 0;
  if (bestTurn === 0 || bestScore < Math.max(minimumWordsToJudge, asGivenScore * 2) || budgetMs() <= 0) return asGiven;

  const upright = await ocr.recognize(await rotatedRaster(raster, bestTurn), { timeoutMs: budgetMs() });
  return upright.map((line) => placedOnGivenImage(line, bestTurn, raster.deskew));
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
