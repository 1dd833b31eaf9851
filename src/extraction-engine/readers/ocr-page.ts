import type { DocumentPage } from '../document.ts';
import { readHeadAhead, rereadWhereArithmeticFails, secondLookAtTheHead } from './line-second-look.ts';
import type { OcrImage } from './ocr-pool.ts';
import type { ReadingContext } from './reading-context.ts';
import { lookAgainAtDecidingLines } from './second-recognition.ts';
import { pageLayoutOf, recognizeUpright } from './upright-ocr.ts';

/**
 * A page read by OCR, the same way whether it came as a photo or as a scanned PDF page (a receipt
 * scanned into a PDF is the same receipt): read upright, turned first if it was sent turned; its head
 * looked at again where the business name is in doubt; the lines that decide fields looked at again;
 * and the amounts re-read where the total's arithmetic fails. Throws TimeBudgetExceededError when the
 * page reading itself runs out of the page's budget; each second look that does keeps what was read.
 */
export async function readOcrPage(raster: OcrImage, pageNumber: number, context: ReadingContext, budgetMs: () => number): Promise<DocumentPage> {
  const ocr = await context.ocr();
  // The head band is read on the idle worker while the other reads the page (readHeadAhead).
  const ahead = readHeadAhead(ocr, raster, pageLayoutOf(raster), budgetMs);
  const readingStarted = Date.now();
  // From here on the page is the one read upright: a sideways page is looked at again turned.
  const upright = await recognizeUpright(ocr, raster, budgetMs);
  // The head read ahead is a band of the page as given: of no use to a page that was turned.
  const lines = await secondLookAtTheHead(ocr, upright.raster, upright.lines, budgetMs, upright.turn ? undefined : ahead, Date.now() - readingStarted);
  const page: DocumentPage = {
    pageNumber,
    source: 'ocr',
    lines: await lookAgainAtDecidingLines(ocr, context.lineRecognizer, upright.raster, lines, budgetMs),
    ...(upright.turn ? { turn: upright.turn } : {}),
    ...(raster.paper ? { paper: raster.paper } : {}),
  };
  return context.arithmeticCheck ? rereadWhereArithmeticFails(ocr, upright.raster, page, context.arithmeticCheck, budgetMs) : page;
}
