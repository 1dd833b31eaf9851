import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A one-page PDF with a text layer: one line of text per entry, top to bottom. */
export async function textPdf(lines: string[], options: { useObjectStreams?: boolean } = {}): Promise<Buffer> {
  const document = await PDFDocument.create();
  // A fixed date keeps the bytes of equal documents equal (the duplicate policy compares SHA-256).
  document.setCreationDate(new Date('2024-01-01T00:00:00Z'));
  document.setModificationDate(new Date('2024-01-01T00:00:00Z'));
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([595, 842]);
  lines.forEach((line, index) => page.drawText(line, { x: 50, y: 780 - index * 22, size: 12, font }));
  // pdf-lib packs objects into object streams by default; false writes a classic xref table.
  return Buffer.from(await document.save({ useObjectStreams: options.useObjectStreams ?? true }));
}

/** A one-page English invoice whose fields the prebuilt invoice type finds. */
export function invoicePdf(overrides: { invoiceNumber?: string; note?: string; useObjectStreams?: boolean } = {}): Promise<Buffer> {
  return textPdf([
    'ACME Supplies Ltd',
    '12 Harbour Road, Bristol BS1 4DJ, United Kingdom',
    'INVOICE',
    `Invoice number: ${overrides.invoiceNumber ?? 'INV-2024-0042'}`,
    'Invoice date: 15/03/2024',
    'Due date: 14/04/2024',
    'Bill to: Northwind Traders GmbH',
    'Description                         Amount',
    'Consulting services                 1,000.00',
    'Net amount: 1,000.00 EUR',
    'VAT 19%: 190.00 EUR',
    'Total amount: 1,190.00 EUR',
    'IBAN: DE89 3704 0044 0532 0130 00',
    ...(overrides.note ? [overrides.note] : []),
  ], overrides.useObjectStreams === undefined ? {} : { useObjectStreams: overrides.useObjectStreams });
}

/** One piece of text on a line of a laid-out page: `x` in points from the left edge. */
export interface PlacedPdfText {
  text: string;
  x: number;
}

/**
 * A PDF with a text layer whose lines hold text at given positions across the page (table columns):
 * one entry per page, one entry per line, 16 points apart, top to bottom.
 */
export async function laidOutPdf(pages: (string | PlacedPdfText[])[][]): Promise<Buffer> {
  const document = await PDFDocument.create();
  document.setCreationDate(new Date('2024-01-01T00:00:00Z'));
  document.setModificationDate(new Date('2024-01-01T00:00:00Z'));
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = document.addPage([595, 842]);
    lines.forEach((line, index) => {
      for (const placed of typeof line === 'string' ? [{ text: line, x: 50 }] : line) page.drawText(placed.text, { x: placed.x, y: 790 - index * 16, size: 10, font });
    });
  }
  return Buffer.from(await document.save());
}
