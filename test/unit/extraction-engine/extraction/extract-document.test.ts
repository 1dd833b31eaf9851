import { describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration } from '../../../../src/extraction-engine/configuration/parse-extraction-configuration.ts';
import { parseExtractionConfiguration } from '../../../../src/extraction-engine/configuration-text.ts';
import type { ExtractionConfiguration } from '../../../../src/extraction-engine/configuration/extraction-configuration-schema.ts';
import { duplicatePolicyOf, extractDocument, type ExtractedField, type ExtractionOutcome } from '../../../../src/extraction-engine/extract-document.ts';
import { placedDocument, sequentialIds, textDocument, type Row } from './read-document-builder.ts';

function fieldsOf(outcome: ExtractionOutcome): Record<string, ExtractedField> {
  if (outcome.status !== 'COMPLETED') throw new Error(`expected COMPLETED, got ${outcome.status}: ${outcome.message}`);
  return Object.fromEntries(outcome.fields.map((field) => [field.name, field]));
}

function valuesOf(outcome: ExtractionOutcome): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fieldsOf(outcome)).map(([name, field]) => [name, field.value]));
}

function configuration(yaml: string): ExtractionConfiguration {
  const result = parseExtractionConfiguration(yaml);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.configuration;
}

const germanInvoice: Row[] = [
  { text: 'Muster Maschinenbau GmbH', x: 0.08, height: 0.02 },
  { text: 'Muster Maschinenbau GmbH · Industriestraße 5 · 70173 Stuttgart', x: 0.08, height: 0.008 },
  [{ text: 'Firma', x: 0.08 }, { text: 'Rechnungsdatum: 14.03.2024', x: 0.6 }],
  [{ text: 'Beispiel Handel AG', x: 0.08 }, { text: 'Kundennummer: K-20931', x: 0.6 }],
  'Hauptstraße 1',
  '10115 Berlin',
  { text: 'Rechnung Nr. RE-2024-0042', x: 0.08, height: 0.016 },
  [{ text: 'Pos', x: 0.08 }, { text: 'Beschreibung', x: 0.15 }, { text: 'Menge', x: 0.5 }, { text: 'Einzelpreis', x: 0.62 }, { text: 'Gesamt', x: 0.82 }],
  [{ text: '1', x: 0.08 }, { text: 'Fräsmaschine Typ A', x: 0.15 }, { text: '2', x: 0.5 }, { text: '1.000,00', x: 0.62 }, { text: '2.000,00', x: 0.82 }],
  [{ text: '2', x: 0.08 }, { text: 'Wartung', x: 0.15 }, { text: '1', x: 0.5 }, { text: '250,00', x: 0.62 }, { text: '250,00', x: 0.82 }],
  [{ text: 'Zwischensumme', x: 0.5 }, { text: '2.250,00 €', x: 0.82 }],
  [{ text: 'Umsatzsteuer 19 %', x: 0.5 }, { text: '427,50 €', x: 0.82 }],
  [{ text: 'Gesamtbetrag', x: 0.5 }, { text: '2.677,50 €', x: 0.82 }],
  'Zahlbar bis zum 13.04.2024 ohne Abzug.',
  'IBAN: DE89 3704 0044 0532 0130 00 · USt-IdNr.: DE 123 456 789',
];

describe('extractDocument on a page OCR read only the paper of', () => {
  // The reader cut the receipt out of a photo of it on a table (DocumentPage.paper) and placed the lines
  // on that paper; a client draws the boxes over the photo it sent.
  const paper = { x: 0.3, y: 0.15, width: 0.4, height: 0.7 };
  const onPaper = (outcome: ExtractionOutcome) => {
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    return fieldsOf(outcome).total_amount!.metadata.placement!;
  };

  it('puts the boxes back on the photo as given', () => {
    const read = placedDocument([germanInvoice], { language: 'de', source: 'ocr' });
    const asRead = onPaper(extractDocument(read, { configuration: defaultExtractionConfiguration }));

    const outcome = extractDocument({ ...read, pages: read.pages.map((page) => ({ ...page, paper })) }, { configuration: defaultExtractionConfiguration });

    expect(onPaper(outcome)).toEqual({
      x: expect.closeTo(0.3 + asRead.x * 0.4, 6),
      y: expect.closeTo(0.15 + asRead.y * 0.7, 6),
      width: expect.closeTo(asRead.width * 0.4, 6),
      height: expect.closeTo(asRead.height * 0.7, 6),
    });
  });

  it('undoes the turn on the paper before placing it on the photo', () => {
    const read = placedDocument([germanInvoice], { language: 'de', source: 'ocr' });
    const asRead = onPaper(extractDocument(read, { configuration: defaultExtractionConfiguration }));

    // Turned 180° upright: on the paper as given the box is mirrored both ways, then placed on the photo.
    const outcome = extractDocument({ ...read, pages: read.pages.map((page) => ({ ...page, paper, turn: 180 as const })) }, { configuration: defaultExtractionConfiguration });

    const box = onPaper(outcome);
    expect(box.x).toBeCloseTo(0.3 + (1 - asRead.x - asRead.width) * 0.4, 6);
    expect(box.y).toBeCloseTo(0.15 + (1 - asRead.y - asRead.height) * 0.7, 6);
  });
});

describe('extractDocument with the prebuilt invoice', () => {
  it('reads a German invoice into normalized values', () => {
    const outcome = extractDocument(placedDocument([germanInvoice], { language: 'de' }), { configuration: defaultExtractionConfiguration, createFieldId: sequentialIds() });
    expect(outcome.status).toBe('COMPLETED');
    expect(valuesOf(outcome)).toMatchObject({
      invoice_number: 'RE-2024-0042',
      issue_date: '2024-03-14',
      due_date: '2024-04-13',
      currency: 'EUR',
      net_amount: 2250,
      tax_amount: 427.5,
      total_amount: 2677.5,
      seller_name: 'Muster Maschinenbau GmbH',
      seller_vat_id: 'DE123456789',
      buyer_name: 'Beispiel Handel AG',
      customer_number: 'K-20931',
      iban: 'DE89370400440532013000',
      line_item_count: 2,
    });
  });

  it('gives every field an id, a type and metadata; placements are page fractions', () => {
    const outcome = extractDocument(placedDocument([germanInvoice], { language: 'de' }), { configuration: defaultExtractionConfiguration, createFieldId: sequentialIds() });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    expect(outcome.docType).toBe('invoice');
    expect(outcome.pageCount).toBe(1);
    expect(outcome.fields[0]?.id).toBe('fld_test_1');
    const total = fieldsOf(outcome).total_amount;
    expect(total).toMatchObject({ type: 'amount', metadata: { extracted: true, page: 1 } });
    const placement = total?.metadata.placement;
    expect(placement?.x).toBeCloseTo(0.82, 2);
    expect(placement?.y).toBeCloseTo(0.05 + 12 * 0.02, 3);
    for (const field of outcome.fields.filter((candidate) => candidate.metadata.extracted)) {
      const box = field.metadata.placement;
      expect(box && box.x >= 0 && box.y >= 0 && box.x + box.width <= 1 && box.y + box.height <= 1).toBe(true);
      expect(field.metadata.confidence).toBeGreaterThan(0);
      expect(field.metadata.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('uses ULID-based ids by default', () => {
    const outcome = extractDocument(placedDocument([germanInvoice], { language: 'de' }), { configuration: defaultExtractionConfiguration });
    expect(outcome.status === 'COMPLETED' && outcome.fields[0]?.id).toMatch(/^fld_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('lists fields it did not find as not extracted, with a null value', () => {
    const outcome = extractDocument(placedDocument([germanInvoice], { language: 'de' }), { configuration: defaultExtractionConfiguration, createFieldId: sequentialIds() });
    expect(fieldsOf(outcome).buyer_reference).toMatchObject({ value: null, metadata: { extracted: false } });
    expect(fieldsOf(outcome).buyer_reference?.metadata.confidence).toBeUndefined();
  });

  it('trusts the net + tax = total triple more than a stronger single label', () => {
    const rows: Row[] = [
      { text: 'INVOICE', x: 0.08, height: 0.02 },
      'Invoice number: 7781',
      'Invoice date: 2024-02-01',
      [{ text: 'Subtotal', x: 0.5 }, { text: '$100.00', x: 0.8 }],
      [{ text: 'Tax', x: 0.5 }, { text: '$8.00', x: 0.8 }],
      [{ text: 'Total', x: 0.5 }, { text: '$108.00', x: 0.8 }],
      [{ text: 'Total paid to date', x: 0.5 }, { text: '$50.00', x: 0.8 }],
    ];
    const fields = fieldsOf(extractDocument(placedDocument([rows], { language: 'en' }), { configuration: defaultExtractionConfiguration }));
    expect(fields.total_amount?.value).toBe(108);
    expect(fields.total_amount?.metadata.confidence).toBeGreaterThanOrEqual(0.9);
    expect(fields.currency?.value).toBe('USD');
  });

  it('reads US month-first dates when a date in the document proves the order', () => {
    const rows: Row[] = [{ text: 'INVOICE', x: 0.08, height: 0.02 }, 'Invoice No: A-1', 'Invoice Date: 03/04/2024', 'Due Date: 03/19/2024', [{ text: 'Total', x: 0.5 }, { text: '$10.00', x: 0.8 }]];
    const values = valuesOf(extractDocument(placedDocument([rows], { language: 'en' }), { configuration: defaultExtractionConfiguration }));
    expect(values).toMatchObject({ issue_date: '2024-03-04', due_date: '2024-03-19' });
  });

  it('finds values in plain text without geometry and reports no placement', () => {
    const document = textDocument(
      [
        'Faktura VAT nr: FV 2024/03/117          Data wystawienia: 2024-03-05',
        'Sprzedawca: Piekarnia Złoty Kłos Sp. z o.o.',
        'NIP:               527-000-00-00',
        'Nabywca:           Jan Kowalski',
        'Razem netto: 100,00 zł   VAT: 23,00 zł   Razem brutto: 123,00 zł',
      ],
      { language: 'pl' },
    );
    const outcome = extractDocument(document, { configuration: defaultExtractionConfiguration });
    expect(valuesOf(outcome)).toMatchObject({
      invoice_number: 'FV 2024/03/117',
      issue_date: '2024-03-05',
      seller_name: 'Piekarnia Złoty Kłos Sp. z o.o.',
      seller_vat_id: '5270000000',
      buyer_name: 'Jan Kowalski',
      currency: 'PLN',
      net_amount: 100,
      tax_amount: 23,
      total_amount: 123,
    });
    expect(fieldsOf(outcome).total_amount?.metadata.placement).toBeUndefined();
    expect(fieldsOf(outcome).total_amount?.metadata.page).toBe(1);
  });

  it('scales confidence down with OCR confidence', () => {
    const rows = (confidence: number): Row[] => [
      { text: 'FACTURE', x: 0.08, height: 0.02 },
      { text: 'Facture n° F-889', x: 0.08, confidence },
      { text: 'Date : 05/06/2024', x: 0.08, confidence },
    ];
    const sharp = fieldsOf(extractDocument(placedDocument([rows(0.98)], { language: 'fr', source: 'ocr' }), { configuration: defaultExtractionConfiguration }));
    const blurry = fieldsOf(extractDocument(placedDocument([rows(0.4)], { language: 'fr', source: 'ocr' }), { configuration: defaultExtractionConfiguration }));
    expect(sharp.invoice_number?.value).toBe('F-889');
    expect(blurry.invoice_number?.value).toBe('F-889');
    expect(blurry.invoice_number?.metadata.confidence).toBeLessThan(sharp.invoice_number?.metadata.confidence ?? 0);
  });
});

describe('embedded e-invoice values', () => {
  const rows: Row[] = [{ text: 'Rechnung', x: 0.08, height: 0.02 }, 'Rechnungsnummer: 471102', 'Rechnungsdatum: 05.03.2018', [{ text: 'Gesamtbetrag', x: 0.5 }, { text: '529,87 €', x: 0.8 }]];
  const embeddedInvoice = { syntax: 'CII' as const, values: { invoice_number: '471102', issue_date: '2018-03-05', total_amount: 529.87, seller_name: 'Lieferant GmbH', currency: 'EUR' } };

  it('win with confidence 1 and keep the placement of the printed value', () => {
    const fields = fieldsOf(extractDocument(placedDocument([rows], { language: 'de', embeddedInvoice }), { configuration: defaultExtractionConfiguration }));
    expect(fields.seller_name).toMatchObject({ value: 'Lieferant GmbH', metadata: { extracted: true, confidence: 1 } });
    expect(fields.seller_name?.metadata.placement).toBeUndefined();
    expect(fields.total_amount).toMatchObject({ value: 529.87, metadata: { confidence: 1, page: 1 } });
    expect(fields.total_amount?.metadata.placement?.x).toBeCloseTo(0.8, 2);
  });

  it('are ignored when useEmbeddedInvoice is off', () => {
    const fields = fieldsOf(extractDocument(placedDocument([rows], { language: 'de', embeddedInvoice: { ...embeddedInvoice, values: { ...embeddedInvoice.values, invoice_number: 'OTHER-1' } } }), { configuration: defaultExtractionConfiguration, useEmbeddedInvoice: false }));
    expect(fields.invoice_number?.value).toBe('471102');
    expect(fields.invoice_number?.metadata.confidence).toBeLessThan(1);
    expect(fields.seller_name?.value).toBeNull();
  });

  it('are set aside, with a warning, when the XML describes another document than the page', () => {
    const otherInvoice = { ...embeddedInvoice, values: { ...embeddedInvoice.values, invoice_number: 'FA-2017-0010', total_amount: 671.15 }, notOnPage: ['invoice_number', 'total_amount'] };

    const outcome = extractDocument(placedDocument([rows], { language: 'de', embeddedInvoice: otherInvoice }), { configuration: defaultExtractionConfiguration });

    expect(valuesOf(outcome)).toMatchObject({ invoice_number: '471102', total_amount: 529.87 });
    expect(outcome.status === 'COMPLETED' && outcome.warnings).toEqual([
      { code: 'EMBEDDED_INVOICE_CONFLICT', message: expect.stringContaining('invoice_number, total_amount') },
    ]);
  });

  it('carry no warning when they agree with the page', () => {
    const outcome = extractDocument(placedDocument([rows], { language: 'de', embeddedInvoice: { ...embeddedInvoice, notOnPage: [] } }), { configuration: defaultExtractionConfiguration });

    expect(outcome.status === 'COMPLETED' && outcome.warnings).toBeUndefined();
  });
});

describe('routing and outcomes', () => {
  const receipt: Row[] = [{ text: 'PAYMENT RECEIPT', x: 0.3, height: 0.02 }, 'Receipt No: 55-1', 'Date: 2024-01-02', [{ text: 'Total', x: 0.5 }, { text: '€ 12,50', x: 0.8 }], 'Ask for an invoice at the desk.'];

  it('routes by title keywords', () => {
    const outcome = extractDocument(placedDocument([receipt], { language: 'en' }), { configuration: defaultExtractionConfiguration });
    expect(outcome.status === 'COMPLETED' && outcome.docType).toBe('receipt');
    expect(valuesOf(outcome)).toMatchObject({ invoice_number: '55-1', total_amount: 12.5, currency: 'EUR' });
  });

  it('lets labels.docType force a type and fails naming an unknown one', () => {
    const forced = extractDocument(placedDocument([receipt], { language: 'en' }), { configuration: defaultExtractionConfiguration, labels: { docType: 'invoice' } });
    expect(forced.status === 'COMPLETED' && forced.docType).toBe('invoice');
    const unknown = extractDocument(placedDocument([receipt], { language: 'en' }), { configuration: defaultExtractionConfiguration, labels: { docType: 'delivery_note' } });
    expect(unknown).toMatchObject({ status: 'FAILED', code: 'DOCUMENT_NOT_ROUTED', message: expect.stringContaining('"delivery_note"') });
  });

  it('fails with DOCUMENT_NOT_ROUTED when nothing matches', () => {
    const letter: Row[] = ['Dear Sir or Madam,', 'thank you for your letter of last week.', 'Kind regards'];
    expect(extractDocument(placedDocument([letter], { language: 'en' }), { configuration: defaultExtractionConfiguration })).toMatchObject({ status: 'FAILED', code: 'DOCUMENT_NOT_ROUTED' });
  });

  it('rejects a language the routed type does not accept', () => {
    const config = configuration('documentTypes:\n  - prebuilt: invoice\n    languages: [de, en]\n');
    const french: Row[] = [{ text: 'FACTURE', x: 0.08, height: 0.02 }, 'Facture n° 12', 'Total TTC : 12,00 €'];
    const outcome = extractDocument(placedDocument([french], { language: 'fr' }), { configuration: config });
    expect(outcome).toMatchObject({ status: 'REJECTED', reason: 'language-not-accepted', message: expect.stringContaining('French (fr)') });
  });

  it('exposes the duplicate policy of the routed type', () => {
    const config = configuration('documentTypes:\n  - prebuilt: invoice\n    duplicatePolicy: reject\n  - prebuilt: receipt\n');
    expect(duplicatePolicyOf(config, 'invoice')).toBe('reject');
    expect(duplicatePolicyOf(config, 'receipt')).toBe('allow');
  });
});

describe('custom document types', () => {
  const purchaseOrders = configuration(`
documentTypes:
  - docType: purchase_order
    keywords: { en: [purchase order] }
    fields:
      - { name: po_number, type: string, required: true, labels: { en: [PO Number] } }
      - { name: status, type: enum, values: [open, closed], labels: { en: [Status] } }
      - { name: reference, type: string, patterns: ['REF-(\\d{4})'] }
      - { name: net, type: amount, labels: { en: [Net] } }
      - { name: tax, type: amount, labels: { en: [Tax] } }
      - { name: total, type: amount, required: true, labels: { en: [Total] } }
      - { name: contact, type: email, labels: { en: [Contact] } }
    validations:
      - { rule: sum, fields: [net, tax], equals: total }
`);

  it('extracts configured fields by label, enum value and pattern', () => {
    const rows: Row[] = [{ text: 'PURCHASE ORDER', x: 0.08, height: 0.02 }, 'PO Number: 4500017', 'Status: Closed', 'Our file REF-2291 applies.', 'Contact: Buyer@Example.com', 'Net: 10.00', 'Tax: 2.00', 'Total: 12.00'];
    const outcome = extractDocument(placedDocument([rows], { language: 'en' }), { configuration: purchaseOrders });
    expect(outcome.status === 'COMPLETED' && outcome.docType).toBe('purchase_order');
    expect(valuesOf(outcome)).toEqual({ po_number: '4500017', status: 'closed', reference: '2291', net: 10, tax: 2, total: 12, contact: 'buyer@example.com' });
  });

  it('fails naming a required field that is missing', () => {
    const rows: Row[] = [{ text: 'PURCHASE ORDER', x: 0.08, height: 0.02 }, 'Total: 12.00'];
    expect(extractDocument(placedDocument([rows], { language: 'en' }), { configuration: purchaseOrders })).toMatchObject({
      status: 'FAILED',
      code: 'DOCUMENT_EXTRACTION_FAILED',
      message: expect.stringContaining('po_number'),
    });
  });

  it('fails when a validation involving a required field is broken', () => {
    const rows: Row[] = [{ text: 'PURCHASE ORDER', x: 0.08, height: 0.02 }, 'PO Number: 4500017', 'Net: 10.00', 'Tax: 2.00', 'Total: 15.00'];
    expect(extractDocument(placedDocument([rows], { language: 'en' }), { configuration: purchaseOrders })).toMatchObject({
      status: 'FAILED',
      code: 'DOCUMENT_EXTRACTION_FAILED',
      message: expect.stringMatching(/total.*net \+ tax = 12, but total is 15/),
    });
  });
});

describe('documents that do not name their type or currency', () => {
  it('routes a till receipt without the word "receipt" by its labels', () => {
    const till: Row[] = ['BÄCKEREI SONNENSCHEIN', 'Datum: 02.01.2024', 'Brötchen 3x       1,50', 'Summe netto: 1,40', 'MwSt 7%: 0,10', 'Gesamtbetrag: 1,50'];
    const outcome = extractDocument(placedDocument([till], { language: 'de' }), { configuration: defaultExtractionConfiguration });
    expect(outcome.status).toBe('COMPLETED');
    expect(valuesOf(outcome)).toMatchObject({ issue_date: '2024-01-02', total_amount: 1.5 });
  });

  it('implies the currency from the IBAN country, with low confidence', () => {
    const rows: Row[] = [{ text: 'Factuur', x: 0.08, height: 0.02 }, 'Factuurnummer: 2024-17', 'Totaal: 121,00', 'IBAN: NL91 ABNA 0417 1643 00'];
    const currency = fieldsOf(extractDocument(placedDocument([rows], { language: 'nl' }), { configuration: defaultExtractionConfiguration })).currency;
    expect(currency?.value).toBe('EUR');
    expect(currency?.metadata.confidence).toBeLessThan(0.6);
  });
});
