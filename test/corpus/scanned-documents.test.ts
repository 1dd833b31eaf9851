import { readFile } from 'node:fs/promises';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedScanOf } from '../../scripts/corpus-scans.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { corpusFile } from '../support/document-builders.ts';

// Scanned documents through the API (issue 14): an image-only PDF of two pages, made the way the
// corpus evaluation derives its scans (each page rendered to a grey, slightly tilted and blurred
// image), OCR'd page by page, with the parties and numbers on the first page and the totals on the last.

let stack: StackUnderTest;
let client: ExtractionClient;

beforeAll(async () => {
  stack = await startStackUnderTest();
  client = new ExtractionClient(stack, await workspaceKey('ws_scans'));
});

afterAll(async () => {
  await stack?.stop();
});

/** A two-page invoice with a text layer: header and items on page 1, more items and the totals on page 2. */
async function twoPageInvoicePdf(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const write = (page: ReturnType<PDFDocument['addPage']>, lines: string[], top = 760) =>
    lines.forEach((line, index) => page.drawText(line, { x: 60, y: top - index * 24, size: 13, font }));
  const first = document.addPage([595, 842]);
  first.drawText('Harbourside Tools Ltd', { x: 60, y: 780, size: 20, font: bold });
  write(first, ['7 Quay Street, Bristol BS1 4DJ, United Kingdom', '', 'INVOICE', 'Invoice number: HT-58213', 'Invoice date: 21 March 2024', 'Bill to: Northwind Traders GmbH', '', 'Description                                   Amount'], 740);
  write(first, ['Cordless drill 18 V                            240.00', 'Drill bit set                                    60.00', 'continued on page 2'], 520);
  const second = document.addPage([595, 842]);
  write(second, ['Invoice HT-58213, page 2', '', 'Workbench                                       700.00', '', 'Net amount: 1,000.00 GBP', 'VAT 20%: 200.00 GBP', 'Total amount: 1,200.00 GBP', '', 'Payment within 30 days. Thank you for your order.']);
  return derivedScanOf(await document.save());
}

describe('a two-page scanned invoice', () => {
  it('completes with the header fields from page 1 and the totals from page 2', { timeout: 240_000 }, async () => {
    const fileId = await client.uploadFile(Buffer.from(await twoPageInvoicePdf()), 'scan.pdf');

    const created = await client.create({ document: { fileId } });
    const extraction = await client.waitForTerminal(created.body.id, 200_000);

    expect(extraction).toMatchObject({ status: 'COMPLETED', document: { pageCount: 2 } });
    const fields = Object.fromEntries(extraction.output.fields.map((field: { name: string }) => [field.name, field]));
    expect(fields.invoice_number).toMatchObject({ value: 'HT-58213', metadata: { page: 1 } });
    expect(fields.issue_date).toMatchObject({ value: '2024-03-21', metadata: { page: 1 } });
    expect(fields.seller_name).toMatchObject({ value: 'Harbourside Tools Ltd', metadata: { page: 1 } });
    expect(fields.total_amount).toMatchObject({ value: 1200, metadata: { page: 2 } });
    expect(fields.tax_amount).toMatchObject({ value: 200, metadata: { page: 2 } });
    expect(fields.currency).toMatchObject({ value: 'GBP' });
  });
});

describe('a scan whose page reading leaves lines out', () => {
  // coolblue1's scan: tesseract's layout analysis of the page skips the invoice number's line and the
  // IBAN's, both printed as clearly as the rest; they are read back from the ink no word covers.
  const coolblue = corpusFile('invoice2data/coolblue1.pdf');

  it('completes with the invoice number and the IBAN of those lines', { timeout: 240_000 }, async () => {
    const scan = await derivedScanOf(new Uint8Array(await readFile(coolblue)));
    const fileId = await client.uploadFile(Buffer.from(scan), 'coolblue-scan.pdf');

    const created = await client.create({ document: { fileId } });
    const extraction = await client.waitForTerminal(created.body.id, 200_000);

    expect(extraction).toMatchObject({ status: 'COMPLETED', document: { pageCount: 1 } });
    const fields = Object.fromEntries(extraction.output.fields.map((field: { name: string }) => [field.name, field]));
    expect(fields.invoice_number).toMatchObject({ value: '993548900', metadata: { page: 1 } });
    expect(fields.iban).toMatchObject({ value: 'NL50INGB0683251309', metadata: { page: 1 } });
    expect(fields.total_amount).toMatchObject({ value: 717.97 });
  });
});
