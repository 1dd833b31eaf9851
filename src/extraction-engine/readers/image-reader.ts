import { DocumentRejectedError, type DocumentPage } from '../document.ts';
import { readOcrPage } from './ocr-page.ts';
import { imagePageCount, prepareOcrRaster } from './ocr-raster.ts';
import { nextStepBudgetMs, pageBudget, type ReadingContext } from './reading-context.ts';
import { readingLimits } from './reading-limits.ts';
import { TimeBudgetExceededError } from './time-budget.ts';

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
    const raster = await decodingImage(() => prepareOcrRaster({ input: bytes, page: index, findPaper: true }));
    try {
      pages.push(await readOcrPage(raster, index + 1, context, budgetMs));
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
