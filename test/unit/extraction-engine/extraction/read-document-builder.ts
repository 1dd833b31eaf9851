// Builds ReadDocument values for tests: rows of positioned text as a PDF text layer or OCR would
// deliver them, or plain lines without geometry.

import type { DocumentPage, EmbeddedInvoice, PositionedWord, ReadDocument, TextLine } from '../../../../src/extraction-engine/document.ts';

/** One column of text in a row: its text and left edge as a fraction of the page width. */
export interface PlacedText {
  text: string;
  x: number;
  /** Font height as a fraction of the page height; default 0.012. */
  height?: number;
  confidence?: number;
}

export type Row = string | PlacedText | PlacedText[];

const CHARACTER_WIDTH = 0.008;
const ROW_PITCH = 0.02;

function lineFrom(placed: PlacedText, y: number, baseCharacterWidth: number): TextLine {
  const height = placed.height ?? 0.012;
  const characterWidth = baseCharacterWidth * (height / 0.012);
  let x = placed.x;
  const words: PositionedWord[] = placed.text.split(' ').filter(Boolean).map((word) => {
    const positioned: PositionedWord = {
      text: word,
      placement: { x, y, width: word.length * characterWidth, height },
      ...(placed.confidence !== undefined ? { confidence: placed.confidence } : {}),
    };
    x += (word.length + 1) * characterWidth;
    return positioned;
  });
  const last = words[words.length - 1]?.placement;
  return {
    text: placed.text,
    words,
    placement: { x: placed.x, y, width: (last ? last.x + last.width : placed.x) - placed.x, height },
    ...(placed.confidence !== undefined ? { confidence: placed.confidence } : {}),
  };
}

/** A page whose rows are laid out top to bottom; a string row starts at the left margin. */
export function placedPage(pageNumber: number, rows: Row[], source: DocumentPage['source'] = 'text-layer', characterWidth = CHARACTER_WIDTH): DocumentPage {
  const lines: TextLine[] = [];
  rows.forEach((row, index) => {
    const y = 0.05 + index * ROW_PITCH;
    const columns = typeof row === 'string' ? [{ text: row, x: 0.08 }] : Array.isArray(row) ? row : [row];
    for (const column of columns) if (column.text.trim()) lines.push(lineFrom(column, y, characterWidth));
  });
  return { pageNumber, source, lines };
}

export interface DocumentOptions {
  language?: string;
  embeddedInvoice?: EmbeddedInvoice;
  mediaType?: string;
  source?: DocumentPage['source'];
  /**
   * Width of a character of 0.012-high text as a fraction of the page width: 0.008 (about 125
   * across, an A4 page) by default; a till roll photographed whole holds about 45 (0.022).
   */
  characterWidth?: number;
}

export function placedDocument(pages: Row[][], options: DocumentOptions = {}): ReadDocument {
  return {
    mediaType: options.mediaType ?? 'application/pdf',
    pageCount: pages.length,
    pages: pages.map((rows, index) => placedPage(index + 1, rows, options.source, options.characterWidth)),
    hasGeometry: true,
    ...(options.embeddedInvoice ? { embeddedInvoice: options.embeddedInvoice } : {}),
    ...(options.language ? { language: options.language } : {}),
  };
}

/** Lines of a format without geometry (plain text, DOCX), spacing kept as written. */
export function textDocument(lines: string[], options: DocumentOptions = {}): ReadDocument {
  return {
    mediaType: options.mediaType ?? 'text/plain',
    pageCount: 1,
    pages: [
      {
        pageNumber: 1,
        source: 'structured',
        lines: lines.filter((line) => line.trim()).map((text) => ({ text, words: text.split(/\s+/).filter(Boolean).map((word) => ({ text: word })) })),
      },
    ],
    hasGeometry: false,
    ...(options.language ? { language: options.language } : {}),
  };
}

/** Deterministic field ids: fld_test_1, fld_test_2, ... */
export function sequentialIds(): () => string {
  let next = 0;
  return () => `fld_test_${(next += 1)}`;
}
