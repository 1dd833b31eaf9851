import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { DocumentRejectedError, type ReadDocument } from '../../../../src/extraction-engine/document.ts';
import { readDocument } from '../../../../src/extraction-engine/read-document.ts';
import { docxEntries, docxFile, zipArchive } from '../../../support/document-builders.ts';

const encode = (text: string) => new TextEncoder().encode(text);

function lineTexts(read: ReadDocument, pageIndex = 0): string[] {
  return read.pages[pageIndex]!.lines.map((line) => line.text);
}

describe('formats without page geometry', () => {
  it('reads a Word document: paragraphs as lines, each table row as one tab-separated line', async () => {
    const docx = docxFile(['Rechnung Nr. 2024-55', 'Lieferant GmbH'], [
      ['Nettobetrag', '100,00 EUR'],
      ['Umsatzsteuer 19 %', '19,00 EUR'],
    ]);

    const read = await readDocument(docx);

    expect(read.mediaType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(read.hasGeometry).toBe(false);
    expect(read.pages[0]!.source).toBe('structured');
    expect(lineTexts(read)).toEqual(['Rechnung Nr. 2024-55', 'Lieferant GmbH', 'Nettobetrag\t100,00 EUR', 'Umsatzsteuer 19 %\t19,00 EUR']);
    expect(read.pages[0]!.lines[2]!.words.map((word) => word.text)).toEqual(['Nettobetrag', '100,00', 'EUR']);
    expect(read.pages[0]!.lines[0]!.words[0]!.placement).toBeUndefined();
  });

  it('reads an Excel workbook: one page per sheet, rows as lines, cells as tab-separated values', async () => {
    const workbook = new ExcelJS.Workbook();
    const invoice = workbook.addWorksheet('Invoice');
    invoice.addRow(['Invoice number', 'INV-300']);
    invoice.addRow(['Issue date', new Date(Date.UTC(2024, 4, 17))]);
    invoice.addRow(['Total', { formula: 'B5*2', result: 240.5 }]);
    const lines = workbook.addWorksheet('Lines');
    lines.addRow(['Paper A4', 3, 12.5]);
    const xlsx = new Uint8Array(await workbook.xlsx.writeBuffer());

    const read = await readDocument(xlsx);

    expect(read.pageCount).toBe(2);
    expect(lineTexts(read, 0)).toEqual(['Invoice number\tINV-300', 'Issue date\t2024-05-17', 'Total\t240.5']);
    expect(lineTexts(read, 1)).toEqual(['Paper A4\t3\t12.5']);
  });

  it('refuses a Word file whose ZIP directory declares an implausible unpacked size (zip bomb)', async () => {
    const entries = docxEntries(['Rechnung']).map((entry) => (entry.name === 'word/document.xml' ? { ...entry, declaredSize: 3_000_000_000 } : entry));

    const rejection = await readDocument(zipArchive(entries)).catch((error: unknown) => error);

    expect(rejection).toBeInstanceOf(DocumentRejectedError);
    expect(rejection).toMatchObject({ reason: 'unsupported-format', message: expect.stringMatching(/unpacks to more than/) });
  });

  it('reports a cut-off Word file as damaged, not as an archive', async () => {
    const docx = docxFile(['Rechnung Nr. 2024-55']);

    const rejection = await readDocument(docx.subarray(0, Math.floor(docx.length * 0.6)), { fileName: 'Rechnung.docx' }).catch((error: unknown) => error);

    expect(rejection).toMatchObject({ reason: 'broken', message: expect.stringMatching(/Word file is damaged/) });
  });

  it('reads CSV records as lines with quoted fields intact', async () => {
    const csv = 'Field;Value\r\nInvoice;"R-2024-9"\r\nBuyer;"Meier; Sohn ""KG"""\r\nTotal;"1.190,00"\r\n';

    const read = await readDocument(encode(csv), { fileName: 'export.csv' });

    expect(read.mediaType).toBe('text/csv');
    expect(lineTexts(read)).toEqual(['Field\tValue', 'Invoice\tR-2024-9', 'Buyer\tMeier; Sohn "KG"', 'Total\t1.190,00']);
  });

  it('reads HTML as visible text: no scripts or styles, block elements as lines, entities decoded', async () => {
    const html = `<!doctype html><html><head><title>Mail</title><style>p { color: red }</style></head>
      <body><script>var total = "999";</script><h1>Facture n&deg; F-12</h1>
      <p>Montant&nbsp;total&nbsp;: 12,00&#8364;</p><!-- hidden -->
      <table><tr><td>Soci&eacute;t&eacute;</td><td>Dupont &amp; Fils</td></tr></table></body></html>`;

    const read = await readDocument(encode(html));

    expect(read.mediaType).toBe('text/html');
    expect(lineTexts(read)).toEqual(['Facture n° F-12', 'Montant total : 12,00€', 'Société\tDupont & Fils']);
  });

  it('reads plain text line by line, Windows-1252 included', async () => {
    // 0x80 is the euro sign in Windows-1252 and invalid as UTF-8.
    const windows1252 = Buffer.concat([Buffer.from('Rechnung Nr. 77\n\nBetrag: 50,00 ', 'latin1'), Buffer.from([0x80]), Buffer.from(' f\xfcr M\xfcller\n', 'latin1')]);

    const read = await readDocument(windows1252, { fileName: 'invoice.txt' });

    expect(read.mediaType).toBe('text/plain');
    expect(lineTexts(read)).toEqual(['Rechnung Nr. 77', 'Betrag: 50,00 € für Müller']);
  });

  it('reads a standalone e-invoice XML file: its text as lines and its values', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocument><ram:ID>X-1</ram:ID><ram:TypeCode>380</ram:TypeCode><ram:IssueDateTime><udt:DateTimeString format="102">20240131</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction><ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
    <ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:GrandTotalAmount>10.00</ram:GrandTotalAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement></rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>`;

    const read = await readDocument(encode(xml), { fileName: 'xrechnung.xml' });

    expect(read.mediaType).toBe('application/xml');
    expect(read.embeddedInvoice).toEqual({
      syntax: 'CII',
      values: { doc_type_code: '380', doc_type: 'invoice', invoice_number: 'X-1', issue_date: '2024-01-31', currency: 'EUR', total_amount: 10, line_item_count: 0 },
    });
    expect(lineTexts(read)).toEqual(['X-1', '380', '20240131', 'EUR', '10.00']);
  });

  it('rejects a standalone XML file that is not well-formed as broken', async () => {
    const rejection = await readDocument(encode('<?xml version="1.0"?><Invoice><ID>1</Invoice>')).catch((error: unknown) => error);

    expect(rejection).toMatchObject({ reason: 'broken' });
  });

  it('rejects a text document without any text as no-text', async () => {
    const rejection = await readDocument(encode('\n  \n\t\n'), { fileName: 'blank.txt' }).catch((error: unknown) => error);

    expect(rejection).toMatchObject({ reason: 'no-text' });
  });
});
