import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DocumentRejectedError, type ReadDocument } from '../../src/extraction-engine/document.ts';
import { OcrPool, readDocument } from '../../src/extraction-engine/read-document.ts';
import { corpusFile } from '../support/document-builders.ts';

// The shared corpus: real invoices with ground truth, and bad/ files with an expected behaviour each.

interface ExpectedDocument {
  document: string;
  language?: string;
  fields: Record<string, unknown> & { visible?: Record<string, unknown>; embedded_xml?: Record<string, unknown> };
}

function expectedOf(relativePath: string): ExpectedDocument {
  return JSON.parse(readFileSync(corpusFile(relativePath), 'utf8')) as ExpectedDocument;
}

function visibleText(read: ReadDocument): string {
  return read.pages.flatMap((page) => page.lines.map((line) => line.text)).join('\n');
}

async function rejectionOf(promise: Promise<unknown>): Promise<DocumentRejectedError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DocumentRejectedError);
  return error as DocumentRejectedError;
}

const ocr = new OcrPool({ size: 1 });
afterAll(() => ocr.terminate());

describe('corpus bad/ documents', () => {
  it('rejects the 0-byte file as empty', async () => {
    const rejection = await rejectionOf(readDocument(readFileSync(corpusFile('bad/empty_0_bytes.pdf')), { fileName: 'empty_0_bytes.pdf' }));

    expect(rejection.reason).toBe('empty');
    expect(rejection.message).toMatch(/empty/i);
  });

  it.each(['bad/encrypted_userpw_aes256r6.pdf', 'bad/encrypted_userpw_rc4_40.pdf'])('rejects %s as encrypted, asking for a password', async (path) => {
    const rejection = await rejectionOf(readDocument(readFileSync(corpusFile(path))));

    expect(rejection.reason).toBe('encrypted');
    expect(rejection.message).toMatch(/encrypted.*password/i);
  });

  it('rejects the truncated download as broken', async () => {
    const rejection = await rejectionOf(readDocument(readFileSync(corpusFile('bad/truncated_60pct_saeco.pdf'))));

    expect(rejection.reason).toBe('broken');
    expect(rejection.message).toMatch(/damaged or incomplete/i);
  });

  it('skips an embedded XML with an invalid encoding declaration and keeps the visible page', async () => {
    const expected = expectedOf('bad/invalid_embedded_xml_encoding.expected.json');

    const read = await readDocument(readFileSync(corpusFile('bad/invalid_embedded_xml_encoding.pdf')), { ocr });

    expect(read.embeddedInvoice).toBeUndefined();
    expect(visibleText(read)).toContain(String(expected.fields.visible!.invoice_number));
    expect(visibleText(read)).toContain(String(expected.fields.visible!.seller_vat_id));
  });

  it.each(['bad/xml_mismatch_atgp_facturx', 'bad/xml_mismatch_konik_acme'])(
    'reports both sides of %s: the embedded XML values and the conflicting visible text',
    async (name) => {
      const expected = expectedOf(`${name}.expected.json`);

      const read = await readDocument(readFileSync(corpusFile(`${name}.pdf`)), { ocr });

      expect(read.embeddedInvoice?.values).toMatchObject(expected.fields.embedded_xml!);
      expect(read.embeddedInvoice?.notOnPage).toEqual(['invoice_number', 'total_amount']);
      expect(visibleText(read)).toContain(String(expected.fields.visible!.invoice_number));
      expect(visibleText(read)).not.toContain(String(expected.fields.embedded_xml!.invoice_number));
    },
  );
});

describe('damaged copies of a corpus PDF', () => {
  /** Deterministic pseudo-random damage, so a failure can be replayed. */
  function damagedCopies(source: Uint8Array, count: number): Uint8Array[] {
    let seed = 20_240_601;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    return Array.from({ length: count }, (_, index) => {
      const copy = new Uint8Array(source);
      if (index % 3 === 0) for (let flip = 0; flip < 20; flip += 1) copy[Math.floor(random() * copy.length)] = Math.floor(random() * 256);
      if (index % 3 === 1) return copy.subarray(0, Math.floor(random() * copy.length));
      if (index % 3 === 2) copy.fill(0, Math.floor(random() * copy.length), Math.floor(random() * copy.length));
      return copy;
    });
  }

  // A copy that hangs the reader fails the test by its timeout; how long reading takes is for the
  // benchmarks, not for an assertion here.
  it('either reads or rejects every damaged copy, never with another error', async () => {
    const source = readFileSync(corpusFile('zugferd/zf20_EN16931_Einfach.pdf'));

    for (const damaged of damagedCopies(source, 12)) {
      const outcome = await readDocument(damaged, { ocr }).catch((error: unknown) => error);
      if (outcome instanceof Error) expect(outcome).toBeInstanceOf(DocumentRejectedError);
    }
  }, 120_000);
});

describe('corpus documents with a text layer', () => {
  const textDocuments = ['invoice2data', 'zugferd'].flatMap((folder) =>
    readdirSync(corpusFile(folder))
      .filter((name) => name.endsWith('.expected.json'))
      .map((name) => `${folder}/${name}`)
      .filter((path) => /\.(pdf|txt)$/u.test(expectedOf(path).document)),
  );

  it.each(textDocuments)('reads the printed invoice number and the language of %s', async (expectedPath) => {
    const expected = expectedOf(expectedPath);
    const documentPath = expectedPath.replace(/[^/]+$/u, expected.document);

    const read = await readDocument(readFileSync(corpusFile(documentPath)), { fileName: expected.document, ocrImagesOnTextPages: false });

    expect(visibleText(read).replace(/\s+/gu, ' ')).toContain(String(expected.fields.invoice_number));
    expect(read.language).toBe(expected.language);
  });

  it('returns the embedded Factur-X values of a ZUGFeRD PDF, and omits them when asked not to read XML', async () => {
    const expected = expectedOf('zugferd/zf20_EN16931_Rechnungskorrektur.expected.json');
    const bytes = readFileSync(corpusFile('zugferd/zf20_EN16931_Rechnungskorrektur.pdf'));

    const withXml = await readDocument(bytes, { ocrImagesOnTextPages: false });
    const withoutXml = await readDocument(bytes, { ocrImagesOnTextPages: false, readEmbeddedXml: false });

    expect(withXml.embeddedInvoice?.syntax).toBe('CII');
    expect(withXml.embeddedInvoice?.values).toMatchObject(expected.fields);
    expect(withXml.embeddedInvoice?.notOnPage).toEqual([]);
    expect(withoutXml.embeddedInvoice).toBeUndefined();
    expect(visibleText(withoutXml)).toBe(visibleText(withXml));
  });

  it('returns the embedded UBL values of a PDF with a UBL attachment', async () => {
    const read = await readDocument(readFileSync(corpusFile('invoice2data/AzureInterior.pdf')), { ocrImagesOnTextPages: false });

    expect(read.embeddedInvoice?.syntax).toBe('UBL');
    expect(read.embeddedInvoice?.values).toMatchObject({ invoice_number: 'INV/2023/03/0008', currency: 'USD', total_amount: 279.84 });
  });

  it('OCRs the seller block that saeco.pdf only has as an embedded image', async () => {
    const expected = expectedOf('invoice2data/saeco.expected.json');

    const read = await readDocument(readFileSync(corpusFile('invoice2data/saeco.pdf')), { ocr });

    const text = visibleText(read);
    expect(text).toContain(String(expected.fields.iban));
    expect(text).toContain(String(expected.fields.seller_name));
    const ibanLine = read.pages[0]!.lines.find((line) => line.text.includes(String(expected.fields.iban)))!;
    expect(ibanLine.confidence).toBeGreaterThan(0.5);
    expect(ibanLine.placement!.y).toBeGreaterThan(0.85);
  });
});

describe('corpus rasters', () => {
  it('OCRs the scanned invoice SammyMaystoneLinesTest.png in its language', async () => {
    const expected = expectedOf('invoice2data/SammyMaystoneLinesTest.png.expected.json');

    const read = await readDocument(readFileSync(corpusFile('invoice2data/SammyMaystoneLinesTest.png')), { ocr });

    const text = visibleText(read);
    expect(read.pages[0]!.source).toBe('ocr');
    expect(text).toContain(String(expected.fields.invoice_number));
    expect(text).toContain(String(expected.fields.order_reference));
    expect(text).toContain(String(expected.fields.buyer_name));
    expect(read.language).toBe(expected.language);
  });
});
