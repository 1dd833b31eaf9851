import sharp from 'sharp';
import type { Placement, PositionedWord, TextLine } from '../document.ts';
import { minimumWordConfidence, type OcrImage, type OcrLanguage, type OcrPool } from './ocr-pool.ts';
import { clampToPage, sortInReadingOrder, unitePlacements } from './text-lines.ts';

// Reading a page with all five language models costs about three times reading it with English alone
// (tesseract runs every model on every line), yet the ensemble matters only where one model is unsure:
// on faint thermal print the models outvote each other's misread digits and `RM`s. So a page can be
// read with one model first, and only its doubtful lines (a word below `doubtfulWordConfidence`) read
// again with the ensemble. Those lines are cut out of the page and stacked, one under another with a
// blank gap, into one image per worker: one recognition per worker instead of one per line (each
// recognition pays tesseract's per-image work), all workers at once. Measured in the extraction README.

/** A box in the pixels of the page read. */
export interface PixelBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** One line's crop of the page and where it sits in the stacked image. */
export interface StackedCrop {
  /** The line's index among the lines given to planLineStacks. */
  line: number;
  /** The line's own box on the page, and the crop around it (with margins). */
  box: PixelBox;
  source: PixelBox;
  /** Where the crop sits in the stacked image (its top-left corner). */
  left: number;
  top: number;
}

export interface LineStack {
  width: number;
  height: number;
  crops: StackedCrop[];
}

/** A line is doubtful when tesseract is unsure of any of its words (or has none it is sure of). */
export function isDoubtful(line: TextLine, doubtfulWordConfidence: number): boolean {
  return line.words.length === 0 || line.words.some((word) => (word.confidence ?? 1) < doubtfulWordConfidence);
}

/**
 * Crops around the given line boxes (margins of a fraction of the line height, so ascenders and
 * descenders stay whole), shared out over `stacks` images in reading order so that each gets about the
 * same length of text: tesseract's recogniser works along the line at a fixed height, so a line costs
 * about its width divided by its height. Between crops a blank gap of a line height keeps them apart.
 */
export function planLineStacks(boxes: PixelBox[], page: { width: number; height: number }, stacks: number, arrangement: 'stacked' | 'in-place' = 'stacked'): LineStack[] {
  const crops = boxes.map((box, line) => ({ line, box, source: paddedCrop(box, page) }));
  const cost = (crop: { source: PixelBox }) => crop.source.width / Math.max(1, crop.source.height);
  const total = crops.reduce((sum, crop) => sum + cost(crop), 0);
  const count = Math.max(1, Math.min(stacks, crops.length));
  const groups: (typeof crops)[] = Array.from({ length: count }, () => []);
  let done = 0;
  for (const crop of crops) {
    // The group whose share of the total this crop's middle falls in.
    const index = Math.min(count - 1, Math.floor(((done + cost(crop) / 2) / Math.max(total, 1e-9)) * count));
    groups[index]!.push(crop);
    done += cost(crop);
  }
  return groups
    .filter((group) => group.length > 0)
    .map((group) => {
      if (arrangement === 'in-place') return { width: page.width, height: page.height, crops: group.map((crop) => ({ ...crop, left: crop.source.left, top: crop.source.top })) };
      const gap = Math.max(8, Math.round(Math.max(...group.map((crop) => crop.source.height)) / 2));
      let top = gap;
      const placed = group.map((crop) => {
        const stacked = { ...crop, left: gap, top };
        top += crop.source.height + gap;
        return stacked;
      });
      return { width: Math.max(...group.map((crop) => crop.source.width)) + 2 * gap, height: top, crops: placed };
    });
}

/** Margins around a line box: a quarter of its height above and below, half its height at either end. */
function paddedCrop(box: PixelBox, page: { width: number; height: number }): PixelBox {
  const vertical = Math.round(box.height * 0.25);
  const horizontal = Math.round(box.height * 0.5);
  const left = Math.max(0, Math.floor(box.left - horizontal));
  const top = Math.max(0, Math.floor(box.top - vertical));
  const right = Math.min(page.width, Math.ceil(box.left + box.width + horizontal));
  const bottom = Math.min(page.height, Math.ceil(box.top + box.height + vertical));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/**
 * The lines read on a stacked image, each given back to the line whose own box (not its margins) its
 * middle lies in and placed on the page (fractions of the page); lines elsewhere (in a gap, or pieces
 * of a neighbouring line caught in a margin) belong to no line and are dropped.
 */
export function linesOnPage(read: TextLine[], stack: LineStack, page: { width: number; height: number }): Map<number, TextLine[]> {
  const byLine = new Map<number, TextLine[]>();
  const toPage = (placement: Placement, crop: StackedCrop): Placement =>
    clampToPage({
      x: (placement.x * stack.width - crop.left + crop.source.left) / page.width,
      y: (placement.y * stack.height - crop.top + crop.source.top) / page.height,
      width: (placement.width * stack.width) / page.width,
      height: (placement.height * stack.height) / page.height,
    });
  for (const line of read) {
    if (!line.placement) continue;
    const middle = (line.placement.y + line.placement.height / 2) * stack.height;
    const crop = stack.crops.find((candidate) => {
      const top = candidate.top + candidate.box.top - candidate.source.top;
      return middle >= top && middle < top + candidate.box.height;
    });
    if (!crop) continue;
    const words: PositionedWord[] = line.words.map((word) => ({ ...word, ...(word.placement ? { placement: toPage(word.placement, crop) } : {}) }));
    const placed: TextLine = {
      ...line,
      words,
      placement: words.length > 0 && words.every((word) => word.placement) ? clampToPage(unitePlacements(words.map((word) => word.placement!))) : toPage(line.placement, crop),
    };
    byLine.set(crop.line, [...(byLine.get(crop.line) ?? []), placed]);
  }
  return byLine;
}

/** Cuts the crops of one stack out of the page's grey pixels and lays them on white, as a PNG for tesseract. */
async function stackedImage(grey: { data: Buffer; width: number }, stack: LineStack): Promise<OcrImage> {
  const pixels = Buffer.alloc(stack.width * stack.height, 255);
  for (const crop of stack.crops) {
    for (let row = 0; row < crop.source.height; row += 1) {
      const from = (crop.source.top + row) * grey.width + crop.source.left;
      grey.data.copy(pixels, (crop.top + row) * stack.width + crop.left, from, from + crop.source.width);
    }
  }
  const bytes = await sharp(pixels, { raw: { width: stack.width, height: stack.height, channels: 1 } }).png({ compressionLevel: 1 }).toBuffer();
  return { bytes, width: stack.width, height: stack.height };
}

/** A line with its noise words left out (undefined when none is left), for a line the ensemble could not read again. */
function withoutNoise(line: TextLine): TextLine | undefined {
  const words = line.words.filter((word) => (word.confidence ?? 1) >= minimumWordConfidence);
  if (words.length === 0) return undefined;
  if (words.length === line.words.length) return line;
  const placements = words.map((word) => word.placement).filter((placement): placement is Placement => placement !== undefined);
  return {
    ...line,
    words,
    text: words.map((word) => word.text).join(' '),
    ...(placements.length === words.length ? { placement: clampToPage(unitePlacements(placements)) } : {}),
  };
}

/**
 * Doubtful lines side by side on one row (tesseract's line cut at a wide gap) are read again as one:
 * read again, the row may come back as one line, which would otherwise belong to only one of them.
 */
function rowsOf(lines: TextLine[]): TextLine[][] {
  const rows: TextLine[][] = [];
  for (const line of [...lines].sort((a, b) => a.placement!.y - b.placement!.y)) {
    const row = rows.find((candidate) => candidate.some((other) => verticalOverlap(other.placement!, line.placement!) > 0.5));
    if (row) row.push(line);
    else rows.push([line]);
  }
  return rows;
}

/** How much of the shorter of two boxes' heights they share. */
function verticalOverlap(a: Placement, b: Placement): number {
  const shared = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return shared / Math.max(1e-9, Math.min(a.height, b.height));
}

/** The lines as read, less their noise words: what a page has when there is no time to read its doubtful lines again. */
export function withoutNoiseWords(lines: TextLine[]): TextLine[] {
  return lines.map(withoutNoise).filter((line): line is TextLine => line !== undefined);
}

/**
 * Reads the doubtful lines of `lines` (read from `image` with fewer models, noise words kept, placed
 * as fractions of `image`) again with `languages`, and puts what they read in their place. Lines that
 * were sure stay as read; a doubtful line the second reading finds nothing in keeps its own words
 * above the noise level.
 */
export async function rereadDoubtfulLines(
  ocr: OcrPool,
  image: OcrImage,
  lines: TextLine[],
  options: {
    languages: readonly OcrLanguage[];
    doubtfulWordConfidence: number;
    timeoutMs: () => number;
    /**
     * 'in-place' reads each share of the doubtful lines where they are, on a copy of the page with every
     * other line blanked out (the page's size and layout kept); 'stacked' (default) lays them one under another.
     */
    arrangement?: 'stacked' | 'in-place';
  },
): Promise<TextLine[]> {
  const doubtful = lines.filter((line) => line.placement && isDoubtful(line, options.doubtfulWordConfidence));
  const kept = withoutNoiseWords(lines.filter((line) => !doubtful.includes(line)));
  if (doubtful.length === 0) return sortInReadingOrder(kept);
  const rows = rowsOf(doubtful);
  const boxes = rows.map((row) => {
    const { x, y, width, height } = unitePlacements(row.map((line) => line.placement!));
    return { left: x * image.width, top: y * image.height, width: width * image.width, height: height * image.height };
  });
  const stacks = planLineStacks(boxes, image, ocr.size, options.arrangement);
  const grey = await sharp(image.bytes).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const page = { data: grey.data, width: grey.info.width };
  const readings = await Promise.all(
    stacks.map(async (stack) => {
      const read = await ocr.recognize(await stackedImage(page, stack), { timeoutMs: options.timeoutMs(), languages: options.languages, layout: 'single-block', whole: true });
      return linesOnPage(read, stack, image);
    }),
  );
  const reread = new Map(readings.flatMap((byLine) => [...byLine]));
  const replaced = rows.flatMap((row, index) => reread.get(index) ?? withoutNoiseWords(row));
  return sortInReadingOrder([...kept, ...replaced]);
}
