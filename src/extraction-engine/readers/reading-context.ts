import type { PageArithmeticCheck } from '../document.ts';
import type { LineRecognizer } from './line-recognizer.ts';
import type { OcrPool } from './ocr-pool.ts';
import { remainingMs } from './time-budget.ts';

/** What every reader gets besides the bytes: OCR access and the budgets it must respect. */
export interface ReadingContext {
  /** Obtains the OCR pool on first use, so documents that need no OCR never start a worker. */
  ocr: () => Promise<OcrPool>;
  /** The second recogniser of an OCR page's deciding lines (second-recognition.ts); none when undefined. */
  lineRecognizer?: LineRecognizer;
  pageTimeBudgetMs: number;
  /** Epoch milliseconds after which no further page is started. */
  deadline: number;
  /** Pages (1-based) abandoned because they ran out of time; readers add to it. */
  pagesOverBudget: number[];
  /** The caller's check of an OCR page's arithmetic: lines of a page that does not add up are read again. */
  arithmeticCheck?: PageArithmeticCheck;
}

/** The budget for the next step: the page budget, or less when the document's deadline is closer. */
export function nextStepBudgetMs(context: ReadingContext): number {
  return Math.min(context.pageTimeBudgetMs, remainingMs(context.deadline));
}

/** Budget left for one page that started now: its own budget, cut short by the document's deadline. */
export function pageBudget(context: ReadingContext): () => number {
  const pageDeadline = Date.now() + context.pageTimeBudgetMs;
  return () => Math.min(remainingMs(pageDeadline), remainingMs(context.deadline));
}
