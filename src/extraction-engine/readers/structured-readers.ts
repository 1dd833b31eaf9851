import type ExcelJS from 'exceljs';
import { DocumentRejectedError, type DocumentPage, type TextLine } from '../document.ts';
import { detectDelimiter, parseDelimitedRows } from './delimited-text.ts';
import { readEInvoiceXml } from './e-invoice-xml.ts';
import { decodeCharacterReferences, htmlToTextLines } from './html-text.ts';
import { readingLimits } from './reading-limits.ts';
import { decodeText } from './text-decoding.ts';
import { unplacedLine, unplacedLines } from './text-lines.ts';
import { declaredUnzippedBytes } from './zip-inspection.ts';

// Readers for formats without page geometry: words carry no placement and the source is 'structured'.
// Table rows (DOCX/HTML tables, spreadsheet rows, CSV records) stay one line with cells separated by
// a tab, so a label and its value in adjacent cells remain on the same line.

function structuredPage(pageNumber: number, lines: TextLine[]): DocumentPage {
  return { pageNumber, source: 'structured', lines };
}

function linesFromStrings(strings: string[]): TextLine[] {
  return strings.flatMap((line) => unplacedLine(line) ?? []);
}

function refuseZipBomb(bytes: Uint8Array, formatName: string): void {
  const unzipped = declaredUnzippedBytes(bytes);
  if (unzipped === undefined) {
    throw new DocumentRejectedError('broken', `The ${formatName} file is damaged: its ZIP directory cannot be read.`);
  }
  if (unzipped > readingLimits.maxUnzippedBytes) {
    throw new DocumentRejectedError('unsupported-format', `The ${formatName} file unpacks to more than ${readingLimits.maxUnzippedBytes / 1024 / 1024} MB, which is not a plausible business document.`);
  }
}

export async function readDocx(bytes: Uint8Array): Promise<DocumentPage[]> {
  refuseZipBomb(bytes, 'Word');
  // Loaded with the first Word document (like exceljs below): a process reading PDFs and images never
  // pays for parsing them (exceljs alone is ~25 MB of RSS and the slowest module the engine loads).
  const { default: mammoth } = await import('mammoth');
  let html: string;
  try {
    // HTML rather than raw text: raw text puts every table cell on its own line, HTML keeps rows together.
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })).value;
  } catch {
    throw new DocumentRejectedError('broken', 'The Word document is damaged and cannot be read.');
  }
  return [structuredPage(1, linesFromStrings(htmlToTextLines(html)))];
}

export async function readXlsx(bytes: Uint8Array): Promise<DocumentPage[]> {
  refuseZipBomb(bytes, 'Excel');
  const { default: excel } = await import('exceljs');
  const workbook = new excel.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as never);
  } catch {
    throw new DocumentRejectedError('broken', 'The Excel workbook is damaged and cannot be read.');
  }
  const pages: DocumentPage[] = [];
  let cellsLeft = readingLimits.maxSpreadsheetCells;
  for (const worksheet of workbook.worksheets.slice(0, readingLimits.maxPages)) {
    const lines: TextLine[] = [];
    worksheet.eachRow({ includeEmpty: false }, (row) => {
      if (cellsLeft <= 0) return;
      const cells: string[] = [];
      row.eachCell({ includeEmpty: false }, (cell) => {
        if (cellsLeft <= 0) return;
        cellsLeft -= 1;
        const text = spreadsheetCellText(cell.value);
        if (text !== '') cells.push(text);
      });
      const line = unplacedLine(cells.join('\t'));
      if (line) lines.push(line);
    });
    pages.push(structuredPage(pages.length + 1, lines));
  }
  return pages;
}

/** The text a person sees in a cell: formula results, rich text runs, hyperlink labels, dates as ISO. */
export function spreadsheetCellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return value.replace(/\s+/gu, ' ').trim();
  if ('richText' in value) return value.richText.map((run) => run.text).join('').replace(/\s+/gu, ' ').trim();
  if ('result' in value) return spreadsheetCellText((value.result ?? null) as ExcelJS.CellValue);
  if ('text' in value && typeof value.text === 'string') return value.text.trim();
  return '';
}

export function readCsv(bytes: Uint8Array): DocumentPage[] {
  const text = decodeText(bytes).slice(0, readingLimits.maxTextCharacters);
  const rows = parseDelimitedRows(text, detectDelimiter(text), readingLimits.maxSpreadsheetCells);
  return [structuredPage(1, linesFromStrings(rows.map((cells) => cells.map((cell) => cell.replace(/\s+/gu, ' ').trim()).filter((cell) => cell !== '').join('\t'))))];
}

export function readHtml(bytes: Uint8Array): DocumentPage[] {
  const html = decodeText(bytes).slice(0, readingLimits.maxTextCharacters);
  return [structuredPage(1, linesFromStrings(htmlToTextLines(html)))];
}

export function readPlainText(bytes: Uint8Array): DocumentPage[] {
  // Form feeds separate pages in text dumps of multi-page documents (pdftotext writes them).
  const pages = decodeText(bytes).slice(0, readingLimits.maxTextCharacters).split('\f').slice(0, readingLimits.maxPages);
  const nonEmpty = pages.map((pageText) => unplacedLines(pageText.replace(/\t/gu, '    '))).filter((lines) => lines.length > 0);
  return nonEmpty.length > 0 ? nonEmpty.map((lines, index) => structuredPage(index + 1, lines)) : [structuredPage(1, [])];
}

/**
 * A standalone XML file: its text content as lines (one per element with text), and the e-invoice
 * values when it is one. A malformed file is refused: unlike an attachment, there is nothing else to read.
 */
export function readXml(bytes: Uint8Array): { pages: DocumentPage[]; eInvoice: ReturnType<typeof readEInvoiceXml> } {
  const eInvoice = readEInvoiceXml(bytes);
  if (eInvoice.kind === 'malformed') {
    throw new DocumentRejectedError('broken', `The XML file is not well-formed and cannot be read: ${eInvoice.reason}.`);
  }
  const text = decodeText(bytes).slice(0, readingLimits.maxTextCharacters);
  const withoutMarkup = text
    .replace(/<!--[\s\S]*?-->/gu, '')
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/gu, (_, content: string) => content.replace(/</gu, '&lt;'))
    .replace(/<[^>]*>/gu, '\n');
  return { pages: [structuredPage(1, unplacedLines(decodeCharacterReferences(withoutMarkup)))], eInvoice };
}
