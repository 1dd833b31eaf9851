import { DocumentRejectedError, type DocumentPage, type EmbeddedInvoice, type PageArithmeticCheck, type ReadDocument } from './document.ts';
import { readEInvoiceXml } from './readers/e-invoice-xml.ts';
import { embeddedFieldsNotOnPage } from './readers/embedded-invoice-check.ts';
import { readImage } from './readers/image-reader.ts';
import { detectLanguage } from './readers/language-detection.ts';
import { mediaTypes, sniffMediaType, type SupportedMediaType } from './readers/media-type.ts';
import { processLineRecognizer, type LineRecognizer } from './readers/line-recognizer.ts';
import { OcrPool } from './readers/ocr-pool.ts';
import { readPdf, type PdfAttachment } from './readers/pdf-reader.ts';
import type { ReadingContext } from './readers/reading-context.ts';
import { readingLimits } from './readers/reading-limits.ts';
import { readCsv, readDocx, readHtml, readPlainText, readXlsx, readXml } from './readers/structured-readers.ts';

export { OcrPool, OcrPoolTerminatedError, OcrUnavailableError, ocrLanguages, type OcrLanguage, type OcrPoolOptions } from './readers/ocr-pool.ts';
export { TimeBudgetExceededError } from './readers/time-budget.ts';
export { groupIntoRows } from './readers/text-lines.ts';

export interface ReadDocumentOptions {
  /**
   * Media type declared by the uploader. The bytes decide; this only chooses between text formats (CSV,
   * HTML, XML, plain text) and names a damaged DOCX/XLSX whose ZIP no longer shows what it is.
   */
  mediaType?: string;
  /** Original file name; its extension is used like `mediaType`. */
  fileName?: string;
  /**
   * OCR workers to use for images and scanned pages. Pass a long-lived pool; without one, a pool of the
   * default size is started for this document when OCR is needed and terminated before returning.
   */
  ocr?: OcrPool;
  /** The second recogniser of OCR pages' deciding lines: the process's PP-OCR network by default; false for none. */
  lineRecognizer?: LineRecognizer | false;
  /** Budget for one page's OCR (and each pdf.js step); a page that exceeds it is left empty. */
  pageTimeBudgetMs?: number;
  /** Read Factur-X/ZUGFeRD/XRechnung/UBL XML attached to PDFs or given as the file. Default true. */
  readEmbeddedXml?: boolean;
  /** OCR large images printed on PDF pages that have a text layer (e.g. a letterhead block). Default true. */
  ocrImagesOnTextPages?: boolean;
  /**
   * The field finder's check of a page's arithmetic (extract-document.ts, totalArithmeticCheck): the
   * lines of an OCR page that does not add up are read again, and kept only where the page then agrees.
   */
  arithmeticCheck?: PageArithmeticCheck;
}

const supportedFormatsSentence = 'Upload a PDF, an image (PNG, JPEG, TIFF, WebP), a Word (DOCX) or Excel (XLSX) file, CSV, HTML, XML or plain text.';

/**
 * Attachment names that carry the invoice itself, tried in this order: Factur-X, ZUGFeRD 2 and 1
 * (ZUGFeRD-invoice.xml; names compare case-insensitively), XRechnung. Other XML attachments follow.
 */
const eInvoiceAttachmentNames = ['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml'];

/**
 * Reads a document's text, with placements where the format has pages, and its embedded e-invoice data.
 * Throws DocumentRejectedError for problems with the document itself (empty, encrypted, damaged,
 * unsupported, no text); any other error is a fault of this service.
 */
export async function readDocument(bytes: Uint8Array, options: ReadDocumentOptions = {}): Promise<ReadDocument> {
  if (bytes.length === 0) throw new DocumentRejectedError('empty', 'The file is empty (0 bytes).');
  if (bytes.length > readingLimits.maxDocumentBytes) {
    throw new DocumentRejectedError('unsupported-format', `The file is larger than ${readingLimits.maxDocumentBytes / 1024 / 1024} MB, which is not a plausible business document.`);
  }
  const sniffed = await sniffMediaType(bytes, options);
  if (!sniffed.supported) {
    throw new DocumentRejectedError('unsupported-format', `The file is ${sniffed.description}, which is not a document format that can be read. ${supportedFormatsSentence}`);
  }

  let ownPool: OcrPool | undefined;
  const context: ReadingContext = {
    ocr: async () => options.ocr ?? (ownPool ??= new OcrPool()),
    ...(options.lineRecognizer === false ? {} : { lineRecognizer: options.lineRecognizer ?? processLineRecognizer() }),
    pageTimeBudgetMs: options.pageTimeBudgetMs ?? readingLimits.pageTimeBudgetMs,
    deadline: Date.now() + readingLimits.documentTimeBudgetMs,
    pagesOverBudget: [],
    ...(options.arithmeticCheck ? { arithmeticCheck: options.arithmeticCheck } : {}),
  };
  try {
    const content = await readContent(bytes, sniffed.mediaType, context, options);
    const pages = withinTextLimit(content.pages);
    const embeddedInvoice = options.readEmbeddedXml === false ? undefined : content.embeddedInvoice;
    const hasText = pages.some((page) => page.lines.length > 0);
    if (!hasText && !embeddedInvoice) throw noTextRejection(sniffed.mediaType, context);

    const allText = pages.flatMap((page) => page.lines.map((line) => line.text)).join('\n');
    const language = detectLanguage(allText);
    // A standalone XML file is its own page: comparing it with itself would say nothing.
    const checkAgainstPage = hasText && sniffed.mediaType !== mediaTypes.xml;
    return {
      mediaType: sniffed.mediaType,
      pageCount: content.pageCount,
      pages,
      hasGeometry: pages.some((page) => page.lines.some((line) => line.placement !== undefined)),
      ...(embeddedInvoice
        ? { embeddedInvoice: checkAgainstPage ? { ...embeddedInvoice, notOnPage: embeddedFieldsNotOnPage(embeddedInvoice, allText) } : embeddedInvoice }
        : {}),
      ...(language ? { language } : {}),
    };
  } finally {
    await ownPool?.terminate();
  }
}

interface DocumentContent {
  pages: DocumentPage[];
  /** Pages in the file; `pages` may hold fewer (readingLimits.maxPages). */
  pageCount: number;
  embeddedInvoice?: EmbeddedInvoice;
}

async function readContent(
  bytes: Uint8Array,
  mediaType: SupportedMediaType,
  context: ReadingContext,
  options: ReadDocumentOptions,
): Promise<DocumentContent> {
  switch (mediaType) {
    case mediaTypes.pdf: {
      const pdf = await readPdf(bytes, context, { ocrImagesOnTextPages: options.ocrImagesOnTextPages ?? true });
      const embeddedInvoice = options.readEmbeddedXml === false ? undefined : embeddedInvoiceOf(pdf.xmlAttachments);
      return { pages: pdf.pages, pageCount: pdf.pageCount, ...(embeddedInvoice ? { embeddedInvoice } : {}) };
    }
    case mediaTypes.png:
    case mediaTypes.jpeg:
    case mediaTypes.tiff:
    case mediaTypes.webp:
    case mediaTypes.gif: {
      return readImage(bytes, context);
    }
    case mediaTypes.xml: {
      const xml = readXml(bytes);
      const embeddedInvoice = xml.eInvoice.kind === 'invoice' ? xml.eInvoice.invoice : undefined;
      return { pages: xml.pages, pageCount: 1, ...(embeddedInvoice ? { embeddedInvoice } : {}) };
    }
    case mediaTypes.docx:
      return pagesOnly(await readStructured('Word document', () => readDocx(bytes)));
    case mediaTypes.xlsx:
      return pagesOnly(await readStructured('Excel workbook', () => readXlsx(bytes)));
    case mediaTypes.csv:
      return pagesOnly(await readStructured('CSV file', async () => readCsv(bytes)));
    case mediaTypes.html:
      return pagesOnly(await readStructured('HTML file', async () => readHtml(bytes)));
    case mediaTypes.plainText:
      return pagesOnly(await readStructured('text file', async () => readPlainText(bytes)));
  }
}

function pagesOnly(pages: DocumentPage[]): DocumentContent {
  return { pages, pageCount: pages.length };
}

/** Parser failures on hostile or damaged input become a rejection instead of an unexplained 500. */
async function readStructured(formatName: string, read: () => Promise<DocumentPage[]>): Promise<DocumentPage[]> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DocumentRejectedError) throw error;
    throw new DocumentRejectedError('broken', `The ${formatName} is damaged and cannot be read.`);
  }
}

/** The first attachment that is an e-invoice, trying the standard names first. A malformed one is skipped. */
function embeddedInvoiceOf(attachments: PdfAttachment[]): EmbeddedInvoice | undefined {
  const rank = (attachment: PdfAttachment) => {
    const index = eInvoiceAttachmentNames.findIndex((name) => name.toLowerCase() === attachment.fileName.toLowerCase());
    return index === -1 ? eInvoiceAttachmentNames.length : index;
  };
  for (const attachment of [...attachments].sort((first, second) => rank(first) - rank(second))) {
    const reading = readEInvoiceXml(attachment.content);
    if (reading.kind === 'invoice') return reading.invoice;
  }
  return undefined;
}

/** Keeps whole lines until the document's text limit is reached. */
function withinTextLimit(pages: DocumentPage[]): DocumentPage[] {
  let charactersLeft = readingLimits.maxTextCharacters;
  return pages.map((page) => {
    const lines = page.lines.filter((line) => {
      charactersLeft -= line.text.length;
      return charactersLeft >= 0;
    });
    return lines.length === page.lines.length ? page : { ...page, lines };
  });
}

function noTextRejection(mediaType: SupportedMediaType, context: ReadingContext): DocumentRejectedError {
  if (context.pagesOverBudget.length > 0) {
    const pages = context.pagesOverBudget.join(', ');
    return new DocumentRejectedError(
      'no-text',
      `No text could be read: page${context.pagesOverBudget.length > 1 ? 's' : ''} ${pages} took longer than the ${Math.round(context.pageTimeBudgetMs / 1000)} s allowed per page.`,
    );
  }
  const isRaster = mediaType.startsWith('image/') || mediaType === mediaTypes.pdf;
  return new DocumentRejectedError(
    'no-text',
    isRaster
      ? 'No text could be found in the document, not even by OCR. It may be blank, or a photo too blurred or small to read.'
      : 'The document contains no text.',
  );
}
