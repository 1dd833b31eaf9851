import { DocumentRejectedError, type DocumentPage } from '../document.ts';
import { readHeadAhead, rereadWhereArithmeticFails, secondLookAtTheHead } from './line-second-look.ts';
import { lookAgainAtDecidingLines } from './second-recognition.ts';
import { imagePageCount, prepareOcrRaster } from './ocr-raster.ts';
import { nextStepBudgetMs, pageBudget, type ReadingContext } from './reading-context.ts';
import { readingLimits } from './reading-limits.ts';
import { TimeBudgetExceededError } from './time-budget.ts';
import { pageLayoutOf, recognizeUpright } from './upright-ocr.ts';

/**
 * Reads an image (PNG, JPEG, TIFF, WebP, GIF) by OCR, one page per TIFF page (at most
 * readingLimits.maxOcrPages; `pageCount` says how many there are). A page whose OCR runs out of time is
 * kept empty so the page numbers still match the document.
 */
export async function readImage(bytes: Uint8Array, context: ReadingContext): Promise<{ pages: DocumentPage[]; pageCount: number }> {
  const pageCount = await decodingImage(() => imagePageCount(bytes));
  const pages: DocumentPage[] = [];
  for (let index = 0; index < Math.min(pageCount, readingLimits.maxOcrPages); index += 1) {
    if (nextStepBudgetMs(context) <= 0) break;
    const budgetMs = pageBudget(context);
    const raster = await decodingImage(() => prepareOcrRaster({ input: bytes, page: index }));
    const ocr = await context.ocr();
    // The head band is read on the idle worker while the other reads the page (readHeadAhead).
    const ahead = readHeadAhead(ocr, raster, pageLayoutOf(raster), budgetMs);
    try {
      const readingStarted = Date.now();
      // From here on the page is the one read upright: a sideways photo is looked at again turned.
      const upright = await recognizeUpright(ocr, raster, budgetMs);
      // The head read ahead is a band of the page as given: of no use to a page that was turned.
      const lines = await secondLookAtTheHead(ocr, upright.raster, upright.lines, budgetMs, upright.turn ? undefined : ahead, Date.now() - readingStarted);
      const page: DocumentPage = {
        pageNumber: index + 1,
        source: 'ocr',
        lines: await lookAgainAtDecidingLines(ocr, context.lineRecognizer, upright.raster, lines, budgetMs),
        ...(upright.turn ? { turn: upright.turn } : {}),
      };
      pages.push(context.arithmeticCheck ? await rereadWhereArithmeticFails(ocr, upright.raster, page, context.arithmeticCheck, budgetMs) : page);
    } catch (error) {
      if (!(error instanceof TimeBudgetExceededError)) throw error;
      context.pagesOverBudget.push(index + 1);
      pages.push({ pageNumber: index + 1, source: 'ocr', lines: [] });
    }
  }
  return { pages, pageCount };
}

/** Decoder errors (truncated data, pixel limit exceeded) are the image's fault, not the service's. */
async function decodingImage<T>(decode: () => Promise<T>): Promise<T> {
  try {
    return await decode();
  } catch (error) {
    const detail = error instanceof Error && /pixel limit/iu.test(error.message) ? ' It has more pixels than any document scan needs.' : '';
    throw new DocumentRejectedError('broken', `The image is damaged or cannot be decoded.${detail}`);
  }
}
