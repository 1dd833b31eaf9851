// Bounds that keep one hostile or oversized document from exhausting the time or memory of the process
// that reads it. Every reader checks the limit that applies to it; none of them is configurable per
// call except the OCR page budget, which depends on the machine.

export const readingLimits = {
  /** Larger inputs are refused before any parser touches them. */
  maxDocumentBytes: 50 * 1024 * 1024,
  /** Pages beyond this are not read (invoices are short; a 500-page upload is not an invoice). */
  maxPages: 50,
  /** Pages without a text layer that are sent to OCR; OCR costs seconds per page. */
  maxOcrPages: 10,
  /**
   * Text pages whose large images are OCRed too (letterhead and footer blocks). Sender details sit on
   * the first pages; later pages usually repeat the same letterhead.
   */
  maxTextPagesWithImageOcr: 3,
  /** Wall-clock cap for reading one document, all pages together. */
  documentTimeBudgetMs: 180_000,
  /** Default cap for one pdf.js step (open, one page's text) and for one page's OCR. */
  pageTimeBudgetMs: 30_000,
  /** Text characters kept per document; the rest is dropped. */
  maxTextCharacters: 2_000_000,
  /** Decoded image pixels accepted from any image (sharp refuses larger inputs without decoding them). */
  maxDecodedImagePixels: 100_000_000,
  /** Raster size sent to OCR; larger rasters are scaled down, smaller ones (below ~300 dpi) up. */
  maxOcrPixels: 20_000_000,
  minOcrLongSidePixels: 2_000,
  /** Spreadsheet cells read, across all sheets. */
  maxSpreadsheetCells: 200_000,
  /** Uncompressed size of all entries of a ZIP container (DOCX, XLSX): guards against zip bombs. */
  maxUnzippedBytes: 100 * 1024 * 1024,
  /** Embedded XML attachments larger than this are ignored. */
  maxEmbeddedXmlBytes: 10 * 1024 * 1024,
} as const;
