import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DocumentRejectedError, type ReadDocument } from '../../../../src/extraction-engine/document.ts';
import { readDocument } from '../../../../src/extraction-engine/read-document.ts';
import { pdfHeaderOffset, rebuildPdfStructure } from '../../../../src/extraction-engine/readers/pdf-repair.ts';
import { sniffContent } from '../../../../src/files/content-sniffing.ts';
import { textPdf } from '../../../support/extraction-documents.ts';
import { corpusFile } from '../../../support/document-builders.ts';

// Damaged variants of real corpus PDFs, made the way they are damaged in the wild: junk prepended by a
// mail gateway or scanner, a lost %%EOF, a cross-reference table with wrong offsets, and the whole
// xref section and trailer cut away. Each must read like the undamaged file, or be rejected as broken.

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');
const bytesOf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));

const damages: Record<string, (pdf: string) => Uint8Array> = {
  'text junk before the header': (pdf) => bytesOf(`From: scanner@example.com\r\nContent-Type: application/pdf\r\n\r\n${pdf}`),
  'binary junk before the header': (pdf) => new Uint8Array([...Array.from({ length: 700 }, (_, index) => (index * 37 + 11) % 256), ...bytesOf(pdf)]),
  'no %%EOF': (pdf) => bytesOf(pdf.replace(/%%EOF\s*$/, '')),
  'startxref pointing elsewhere': (pdf) => bytesOf(pdf.replace(/startxref\s+(\d+)/g, (_, offset: string) => `startxref\n${Number(offset) + 77}`)),
  'xref entries all zero': (pdf) => bytesOf(pdf.replace(/\d{10} \d{5} n/g, '0000000000 00000 n')),
  'xref and trailer cut off': (pdf) => bytesOf(pdf.replace(/\nxref\r?\n0 \d+[\s\S]*$/, '\n')),
  'junk before the header and no xref or trailer': (pdf) => bytesOf(`JUNK\n${pdf.replace(/\nxref\r?\n0 \d+[\s\S]*$/, '\n')}`),
};

function pageText(document: ReadDocument): string[] {
  return document.pages.map((page) => page.lines.map((line) => line.text).join('\n'));
}

describe.each(['invoice2data/saeco.pdf', 'invoice2data/AzureInterior.pdf'])('damaged variants of %s', (path) => {
  const original = new Uint8Array(readFileSync(corpusFile(path)));

  it.each(Object.keys(damages))('reads the file with %s like the undamaged one, and upload sniffing accepts it as PDF', async (damage) => {
    const damaged = damages[damage]!(latin1(original));
    const expected = await readDocument(original, { ocrImagesOnTextPages: false });

    const read = await readDocument(damaged, { ocrImagesOnTextPages: false });
    const verdict = await sniffContent(damaged.subarray(0, 4096), false);

    expect(read.pageCount).toBe(expected.pageCount);
    expect(pageText(read)).toEqual(pageText(expected));
    expect(verdict).toMatchObject({ accepted: true, mimeType: 'application/pdf', kind: 'pdf' });
  });
});

describe('rebuildPdfStructure', () => {
  const saeco = latin1(new Uint8Array(readFileSync(corpusFile('invoice2data/saeco.pdf'))));

  it('builds a page tree and catalog over the pages found when the catalog is lost too', async () => {
    const withoutCatalogOrTrailer = bytesOf(saeco.replace(/\/Type\s*\/Catalog/, '/Type /Junk').replace(/\nxref\r?\n0 \d+[\s\S]*$/, '\n'));

    const read = await readDocument(withoutCatalogOrTrailer, { ocrImagesOnTextPages: false });

    expect(read.pageCount).toBe(1);
    expect(pageText(read)[0]).toContain('Factuuradres');
  });

  it('gives up on a download cut off before any page, and the reader rejects it as broken', async () => {
    const truncated = new Uint8Array(readFileSync(corpusFile('bad/truncated_60pct_saeco.pdf')));

    const rejection = await readDocument(truncated).catch((error: unknown) => error);

    expect(rebuildPdfStructure(truncated)).toBeUndefined();
    expect(rejection).toBeInstanceOf(DocumentRejectedError);
    expect(rejection).toMatchObject({ reason: 'broken', message: expect.stringMatching(/damaged or incomplete/) });
  });

  it('unpacks the catalog and pages from object streams when the xref stream that indexed them is lost', async () => {
    const original = await textPdf(['Object streams of PDF 1.5', 'Total amount: 12.00 EUR']);
    const withoutXrefStream = bytesOf(latin1(original).slice(0, latin1(original).search(/\d+ 0 obj\s*<<(?:(?!endobj)[\s\S])*\/Type\s*\/XRef/)));

    const rebuilt = rebuildPdfStructure(withoutXrefStream);
    const read = await readDocument(withoutXrefStream, { ocrImagesOnTextPages: false });

    expect(latin1(original)).toMatch(/\/Type\s*\/ObjStm/);
    expect(latin1(rebuilt!)).toMatch(/\/Type\s*\/Catalog/);
    expect(pageText(read)).toEqual(['Object streams of PDF 1.5\nTotal amount: 12.00 EUR']);
  });

  it('rejects as broken a file whose object stream holding the catalog and pages is corrupt, with no other pages', async () => {
    const original = latin1(await textPdf(['Object streams of PDF 1.5']));
    const withoutXrefStream = original.slice(0, original.search(/\d+ 0 obj\s*<<(?:(?!endobj)[\s\S])*\/Type\s*\/XRef/));
    // The compressed bytes of the object stream overwritten: nothing decompresses.
    const corrupt = withoutXrefStream.replace(/(\/Type\s*\/ObjStm[\s\S]*?stream\r?\n)([\s\S]{40})/, (_, head: string, data: string) => head + 'x'.repeat(data.length));

    const rejection = await readDocument(bytesOf(corrupt)).catch((error: unknown) => error);

    expect(rejection).toBeInstanceOf(DocumentRejectedError);
    expect(rejection).toMatchObject({ reason: 'broken', message: expect.stringMatching(/damaged or incomplete/) });
  });

  it('finds the header only within the first kilobyte, as PDF readers do', () => {
    expect(pdfHeaderOffset(bytesOf('%PDF-1.4\n'))).toBe(0);
    expect(pdfHeaderOffset(bytesOf(`${'x'.repeat(1000)}%PDF-1.7\n`))).toBe(1000);
    expect(pdfHeaderOffset(bytesOf(`${'x'.repeat(1100)}%PDF-1.7\n`))).toBe(-1);
    expect(pdfHeaderOffset(bytesOf('a note about %PDF-files'))).toBe(-1);
  });
});

describe('upload sniffing of PDFs with a late header', () => {
  it('does not take text with a PDF header past the first kilobyte for a PDF', async () => {
    const verdict = await sniffContent(bytesOf(`${'Notes about the invoice.\n'.repeat(60)}%PDF-1.7\n`), true);

    expect(verdict).toMatchObject({ accepted: true, mimeType: 'text/plain' });
  });
});
