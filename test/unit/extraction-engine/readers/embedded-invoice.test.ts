import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readDocument } from '../../../../src/extraction-engine/read-document.ts';
import { corpusFile, pdfWithAttachmentAnnotation, textPdf } from '../../../support/document-builders.ts';

const visiblePage = [{ text: 'Rechnung 471102', x: 72, y: 720, size: 12 }];
const facturX = readFileSync(corpusFile('zugferd/zf20_EN16931_Einfach.embedded.xml'));

describe('e-invoice XML attached to a PDF', () => {
  it('returns the values of an attached factur-x.xml beside the visible text', async () => {
    const pdf = await textPdf([visiblePage], { attachments: [{ fileName: 'factur-x.xml', content: facturX }] });

    const read = await readDocument(pdf);

    expect(read.embeddedInvoice?.syntax).toBe('CII');
    expect(read.embeddedInvoice?.values).toMatchObject({ invoice_number: '471102', total_amount: 529.87, seller_name: 'Lieferant GmbH' });
    expect(read.pages[0]!.lines[0]!.text).toBe('Rechnung 471102');
  });

  it('prefers the standard attachment name over other XML attachments', async () => {
    const otherInvoice = facturX.toString('utf8').replace('<ram:ID>471102</ram:ID>', '<ram:ID>OTHER-1</ram:ID>');
    const pdf = await textPdf([visiblePage], {
      attachments: [
        { fileName: 'archive-copy.xml', content: otherInvoice },
        { fileName: 'factur-x.xml', content: facturX },
      ],
    });

    const read = await readDocument(pdf);

    expect(read.embeddedInvoice?.values.invoice_number).toBe('471102');
  });

  it('ignores an attachment that is not well-formed and keeps the visible text', async () => {
    const truncated = facturX.subarray(0, Math.floor(facturX.length / 2));
    const pdf = await textPdf([visiblePage], { attachments: [{ fileName: 'factur-x.xml', content: truncated }] });

    const read = await readDocument(pdf);

    expect(read.embeddedInvoice).toBeUndefined();
    expect(read.pages[0]!.lines[0]!.text).toBe('Rechnung 471102');
  });

  it('finds an invoice attached through a file-attachment annotation', async () => {
    const pdf = await pdfWithAttachmentAnnotation(visiblePage, { fileName: 'ZUGFeRD-invoice.xml', content: facturX });

    const read = await readDocument(pdf);

    expect(read.embeddedInvoice?.values).toMatchObject({ invoice_number: '471102', total_amount: 529.87 });
  });

  it('ignores attachments that are not XML', async () => {
    const pdf = await textPdf([visiblePage], { attachments: [{ fileName: 'invoice.txt', content: facturX }] });

    const read = await readDocument(pdf);

    expect(read.embeddedInvoice).toBeUndefined();
  });
});
