import { describe, expect, it } from 'vitest';
import { selectAmounts } from '../../../../src/extraction-engine/fields/amount-consistency.ts';
import { buildDocumentLayout } from '../../../../src/extraction-engine/fields/document-layout.ts';
import { extractFields } from '../../../../src/extraction-engine/fields/extract-fields.ts';
import type { FieldCandidate } from '../../../../src/extraction-engine/fields/field-candidate.ts';
import type { DocumentTypeSpecification, FieldSpecification } from '../../../../src/extraction-engine/fields/field-specification.ts';
import { compileLabelSources, findLabelMatches } from '../../../../src/extraction-engine/fields/label-anchors.ts';
import { invoiceSpecification } from '../../../../src/extraction-engine/prebuilt/prebuilt-document-types.ts';
import { placedDocument, textDocument, type Row } from './read-document-builder.ts';

function specificationWith(fields: FieldSpecification[]): DocumentTypeSpecification {
  return { docType: 'test', keywords: {}, fields, validations: [], duplicatePolicy: 'allow', distractorLabels: {} };
}

function field(name: string, type: FieldSpecification['type'], labels: string[], extra: Partial<FieldSpecification> = {}): FieldSpecification {
  return { name, type, required: false, labels: { en: labels }, patterns: [], ...extra };
}

function valueOf(rows: Row[], specification: DocumentTypeSpecification, name: string): unknown {
  return extractFields(placedDocument([rows]), specification).fields.find((result) => result.name === name)?.value;
}

describe('buildDocumentLayout', () => {
  it('joins lines delivered per column into one row and keeps columns as segments', () => {
    const layout = buildDocumentLayout(placedDocument([[[{ text: 'Invoice Number:', x: 0.4 }, { text: '42183017', x: 0.87 }], 'next line']]));
    expect(layout.pages[0]?.rows.map((row) => row.segments.map((segment) => segment.text))).toEqual([['Invoice Number:', '42183017'], ['next line']]);
  });

  it('keeps OCR words of one line together although their boxes hug glyphs of different heights', () => {
    const document = placedDocument([['x']], { source: 'ocr' });
    document.pages[0]!.lines = [
      { text: 'Grand Total', words: [{ text: 'Grand', placement: { x: 0.09, y: 0.3162, width: 0.05, height: 0.0072 } }, { text: 'Total', placement: { x: 0.15, y: 0.3162, width: 0.05, height: 0.0072 } }] },
      { text: 'Rs 1939', words: [{ text: 'Rs', placement: { x: 0.8, y: 0.3178, width: 0.02, height: 0.0081 } }, { text: '1939', placement: { x: 0.83, y: 0.3178, width: 0.04, height: 0.0081 } }] },
    ];
    expect(buildDocumentLayout(document).pages[0]?.rows).toHaveLength(1);
  });

  it('splits one line at a wide gap between words', () => {
    const document = placedDocument([['x']]);
    const line = document.pages[0]!.lines[0]!;
    line.text = 'Total 12.00';
    line.words = [
      { text: 'Total', placement: { x: 0.1, y: 0.05, width: 0.04, height: 0.012 } },
      { text: '12.00', placement: { x: 0.8, y: 0.05, width: 0.04, height: 0.012 } },
    ];
    expect(buildDocumentLayout(document).segments.map((segment) => segment.text)).toEqual(['Total', '12.00']);
  });

  it('splits plain text columns at runs of spaces and approximates boxes from character columns', () => {
    const layout = buildDocumentLayout(textDocument(['Nabywca:           GŁÓWNY URZĄD', 'NIP:               5261040828']));
    expect(layout.hasGeometry).toBe(false);
    const [first, second] = layout.pages[0]!.rows;
    expect(first?.segments.map((segment) => segment.text)).toEqual(['Nabywca:', 'GŁÓWNY URZĄD']);
    expect(second?.segments[1]?.box.x).toBeCloseTo(first?.segments[1]?.box.x ?? -1, 5);
  });
});

describe('findLabelMatches', () => {
  const labels = compileLabelSources([
    { fieldName: 'invoice_number', labels: { en: ['invoice'], de: ['rechnung nr'] } },
    { fieldName: 'issue_date', labels: { en: ['invoice date'] } },
    { fieldName: 'tax_amount', labels: { de: ['ust'] } },
    { fieldName: 'buyer_name', labels: { de: ['kunde'] } },
  ]);
  const matchesIn = (text: string) => findLabelMatches(buildDocumentLayout(placedDocument([[text]])), labels);

  it('lets a longer label claim its words', () => {
    expect(matchesIn('Invoice Date: 05.03.2018').map((match) => match.fieldName)).toEqual(['issue_date']);
  });

  it('matches German compounds ending in a label, weaker than the plain label', () => {
    const [compound] = matchesIn('Handelsrechnung Nr. 471102');
    const [plain] = matchesIn('Rechnung Nr. 471102');
    expect(compound?.fieldName).toBe('invoice_number');
    expect(compound?.strength).toBeLessThan(plain?.strength ?? 0);
  });

  it('flags labels inside parentheses and ignores hyphenated compounds', () => {
    expect(matchesIn('Summe Netto (excl. USt.) 473,00').find((match) => match.fieldName === 'tax_amount')?.qualifiesLabelBefore).toBe(true);
    expect(matchesIn('MUSTER-KUNDE GMBH').filter((match) => match.fieldName === 'buyer_name')).toEqual([]);
  });

  it('tolerates a currency between label words', () => {
    const net = compileLabelSources([{ fieldName: 'net_amount', labels: { fr: ['montant ht'] } }]);
    expect(findLabelMatches(buildDocumentLayout(placedDocument([['Montant EUR HT']])), net)).toHaveLength(1);
  });
});

describe('values next to labels', () => {
  const specification = specificationWith([
    field('invoice_number', 'string', ['invoice no'], { shape: 'identifier' }),
    field('issue_date', 'date', ['date']),
    field('total', 'amount', ['total']),
    field('reference', 'string', ['reference'], { shape: 'identifier' }),
  ]);

  it('reads the value right of the label, in the same segment or the next column', () => {
    expect(valueOf(['Invoice No: A-77'], specification, 'invoice_number')).toBe('A-77');
    expect(valueOf([[{ text: 'Invoice No', x: 0.1 }, { text: 'A-78', x: 0.7 }]], specification, 'invoice_number')).toBe('A-78');
  });

  it('reads values under header labels, each under its own column', () => {
    const rows: Row[] = [
      [{ text: 'Date', x: 0.1 }, { text: 'Reference', x: 0.3 }, { text: 'Total', x: 0.6 }],
      [{ text: '12.05.2021', x: 0.1 }, { text: 'PO-5', x: 0.3 }, { text: '99,50', x: 0.6 }],
    ];
    expect(valueOf(rows, specification, 'issue_date')).toBe('2021-05-12');
    expect(valueOf(rows, specification, 'reference')).toBe('PO-5');
    expect(valueOf(rows, specification, 'total')).toBe(99.5);
  });

  it('stops at the next label on the row instead of stealing its value', () => {
    expect(valueOf(['Invoice No: Date: 12.05.2021'], specification, 'invoice_number')).toBeUndefined();
  });

  it('reports nothing when there is no label and no pattern', () => {
    expect(valueOf(['Something else entirely 123'], specification, 'total')).toBeUndefined();
  });
});

describe('parties', () => {
  it('reads seller and buyer from the sender line above an address window', () => {
    const rows: Row[] = [
      { text: 'Acme GmbH | Europa-Allee 1 | 60486 Frankfurt', x: 0.12, height: 0.008 },
      { text: 'Herr', x: 0.12 },
      { text: 'Karl Coyote', x: 0.12 },
      { text: 'Uferstraße 113', x: 0.12 },
      { text: 'Rechnung Nr. 42', x: 0.12, height: 0.016 },
    ];
    const results = extractFields(placedDocument([rows], { language: 'de' }), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'seller_name')?.value).toBe('Acme GmbH');
    expect(results.find((result) => result.name === 'buyer_name')?.value).toBe('Karl Coyote');
  });

  it('gives a VAT id in the buyer block to the buyer and one in the footer to the seller', () => {
    const rows: Row[] = ['Rechnung Nr. 7', 'Kunde:', 'Beispiel Handel AG', 'USt-IdNr.: DE 111 111 111', '', '', '', '', '', '', '', 'Muster GmbH · USt-IdNr.: DE 222 222 222'];
    const results = extractFields(placedDocument([rows], { language: 'de' }), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'buyer_vat_id')?.value).toBe('DE111111111');
    expect(results.find((result) => result.name === 'seller_vat_id')?.value).toBe('DE222222222');
    expect(results.find((result) => result.name === 'buyer_name')?.value).toBe('Beispiel Handel AG');
  });
});

describe('companies in the envelope window', () => {
  it('prefer the footer company as seller over the addressee in the window', () => {
    const rows: Row[] = ['', '', '', '', '', '', { text: 'Kunde Beispiel Ltd.', x: 0.11 }, { text: '93B Sai Yu Chung', x: 0.11 }, { text: 'Hong Kong', x: 0.11 }, 'Rechnung Nr. 30064443'];
    for (let filler = 0; filler < 30; filler += 1) rows.push('');
    rows.push({ text: 'Hosting Beispiel AG Vorstand: Max Muster', x: 0.09, height: 0.008 });
    const results = extractFields(placedDocument([rows], { language: 'de' }), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'seller_name')?.value).toBe('Hosting Beispiel AG');
  });
});

describe('tax of a table', () => {
  it('reports no negative tax, and no net from it, for a positive total', () => {
    // A scanned table whose header "Tax (₹)" reads "Tax (7)": accounts print a negative amount in parentheses.
    const rows: Row[] = [
      'Invoice No: BLR-4711',
      [{ text: 'Product', x: 0.05 }, { text: 'Qty Price Tax(%)', x: 0.5 }, { text: 'Tax (7)', x: 0.8 }, { text: 'Total (7)', x: 0.9 }],
      [{ text: 'Memory card', x: 0.05 }, { text: '1 278.61 14.50% 40.39 319.00', x: 0.5 }],
      [{ text: 'Grand Total', x: 0.6 }, { text: '319.00', x: 0.9 }],
    ];
    const results = extractFields(placedDocument([rows]), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'total_amount')?.value).toBe(319);
    expect(results.find((result) => result.name === 'tax_amount')?.value).not.toBe(-7);
    expect(results.find((result) => result.name === 'net_amount')?.value).not.toBe(326);
  });

  it('takes the net and tax of an invoice from the row that sums the item table, under its header (only a till\'s item header gives no amounts)', () => {
    const rows: Row[] = [
      'Invoice No: BLR-4711',
      [{ text: 'Product', x: 0.05 }, { text: 'Qty', x: 0.45 }, { text: 'Price', x: 0.55 }, { text: 'Tax', x: 0.7 }, { text: 'Total', x: 0.85 }],
      [{ text: 'Memory card', x: 0.05 }, { text: '1', x: 0.45 }, { text: '278.61', x: 0.55 }, { text: '40.39', x: 0.7 }, { text: '319.00', x: 0.85 }],
      [{ text: 'Total', x: 0.05 }, { text: '1', x: 0.45 }, { text: '278.61', x: 0.55 }, { text: '40.39', x: 0.7 }, { text: '319.00', x: 0.85 }],
      [{ text: 'Grand Total', x: 0.6 }, { text: '319.00', x: 0.85 }],
    ];
    const results = extractFields(placedDocument([rows]), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'tax_amount')?.value).toBe(40.39);
    expect(results.find((result) => result.name === 'total_amount')?.value).toBe(319);
  });
});

describe('letterhead', () => {
  it('ignores spaced-out title letters as read by OCR', () => {
    const rows: Row[] = [{ text: 'F ACTU U R.', x: 0.08, height: 0.02 }, 'Factuurnummer: 12', 'Totaal: € 5,00'];
    const results = extractFields(placedDocument([rows], { language: 'nl' }), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'seller_name')?.value).toBeUndefined();
  });
});

describe('centred letterhead', () => {
  it('takes a centred name with no legal form as the seller when its street line is centred under it', () => {
    const rows: Row[] = [
      { text: 'NORTHGATE PAINT SUPPLIES', x: 0.3 },
      { text: '14 Mill Lane, Hexham NE46 3PA', x: 0.27 },
      { text: 'Tel 01434 600 321', x: 0.36 },
      { text: 'INVOICE', x: 0.42 },
      'Invoice No: 4471',
      'Date: 12/03/2024',
      'Total: 48.00',
    ];
    const results = extractFields(placedDocument([rows], { language: 'en' }), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'seller_name')?.value).toBe('NORTHGATE PAINT SUPPLIES');
  });
});

describe('unlabelled address blocks', () => {
  it('take the block that is not the seller\'s as the buyer', () => {
    const rows: Row[] = [
      [{ text: 'FACTUUR. Voorbeeld B.V.', x: 0.08, height: 0.02 }, { text: 'Kerkstraat 1', x: 0.7 }],
      [{ text: 'Pino Bluebird', x: 0.08 }, { text: '3012 CN Rotterdam', x: 0.7 }],
      'Sessamestreet 32',
      '1025 RX Amsterdam',
      'Factuurnummer: 993548900',
    ];
    const results = extractFields(placedDocument([rows], { language: 'nl' }), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'seller_name')?.value).toBe('Voorbeeld B.V.');
    expect(results.find((result) => result.name === 'buyer_name')).toMatchObject({ value: 'Pino Bluebird', evidence: 'unlabelled address block' });
  });

  it('take the addressee, not the document title printed above it in the same column', () => {
    const rows: Row[] = [
      [{ text: 'Voorbeeld B.V.', x: 0.08, height: 0.02 }, { text: 'Kerkstraat 1', x: 0.7 }],
      [{ text: 'TAX INVOICE', x: 0.08 }, { text: '3012 CN Rotterdam', x: 0.7 }],
      'Pino Bluebird',
      'Sessamestreet 32',
      '1025 RX Amsterdam',
      'Invoice number: 993548900',
    ];
    const results = extractFields(placedDocument([rows], { language: 'en' }), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'buyer_name')?.value).toBe('Pino Bluebird');
  });

  it('take no block headed by the seller\'s name with a few letters misread', () => {
    const rows: Row[] = [
      [{ text: 'FACTUUR', x: 0.08, height: 0.02 }, { text: 'Voorbeeld Handel B.V.', x: 0.7 }],
      [{ text: 'Voorbeeid Handel B.V.', x: 0.08 }, { text: 'Kerkstraat 1', x: 0.7 }],
      'Sessamestreet 32',
      '1025 RX Amsterdam',
      'Factuurnummer: 993548900',
    ];
    const results = extractFields(placedDocument([rows], { language: 'nl', source: 'ocr' }), invoiceSpecification).fields;
    expect(results.find((result) => result.name === 'seller_name')?.value).toBe('Voorbeeld Handel B.V.');
    expect(results.find((result) => result.name === 'buyer_name')?.value ?? null).toBeNull();
  });
});

describe('line items', () => {
  const header: Row = [{ text: 'Pos.', x: 0.08 }, { text: 'Beschreibung', x: 0.15 }, { text: 'Menge', x: 0.5 }, { text: 'Betrag', x: 0.8 }];
  const subHeader: Row = { text: 'MwSt.', x: 0.8 };
  const item = (number: number, amount: string): Row => [{ text: String(number), x: 0.08 }, { text: `Artikel ${number}`, x: 0.15 }, { text: '1', x: 0.5 }, { text: amount, x: 0.8 }];
  const count = (pages: Row[][]): unknown =>
    extractFields(placedDocument(pages, { language: 'de' }), invoiceSpecification).fields.find((result) => result.name === 'line_item_count')?.value;

  it('counts rows ending in money under the header, across pages with a repeated header, until the totals', () => {
    const first: Row[] = ['Rechnung Nr. 1', header, subHeader, item(1, '10,00'), 'Beschreibung ohne Betrag', item(2, '20,00')];
    const second: Row[] = [header, subHeader, item(3, '5,00'), [{ text: 'Gesamtbetrag', x: 0.5 }, { text: '35,00', x: 0.8 }], [{ text: 'Bankgebühr', x: 0.15 }, { text: '1,00', x: 0.8 }]];
    expect(count([first, second])).toBe(3);
  });

  it('does not count discounts, or stop at a tax rate printed inside an item', () => {
    const rows: Row[] = ['Rechnung Nr. 1', header, item(1, '10,00'), { text: 'MwSt: 19%', x: 0.15 }, item(2, '20,00'), [{ text: 'Rabatt 10 %', x: 0.15 }, { text: '-3,00', x: 0.8 }], [{ text: 'Summe', x: 0.5 }, { text: '27,00', x: 0.8 }]];
    expect(count([rows])).toBe(2);
  });
});

describe('selectAmounts', () => {
  const candidate = (fieldName: string, value: number, score: number): FieldCandidate => ({
    fieldName,
    value,
    score,
    pageNumber: 1,
    box: { x: 0, y: 0, width: 0.1, height: 0.01 },
    segmentId: Math.round(value * 100),
    evidence: 'test',
  });

  it('prefers the consistent triple over stronger single labels', () => {
    const selection = selectAmounts({
      net: [candidate('net', 100, 0.6)],
      tax: [candidate('tax', 19, 0.5)],
      total: [candidate('total', 50, 0.95), candidate('total', 119, 0.6)],
      due: [],
    });
    expect([selection.net?.candidate.value, selection.tax?.candidate.value, selection.total?.candidate.value]).toEqual([100, 19, 119]);
    expect(selection.total?.confidence).toBeGreaterThanOrEqual(0.88);
  });

  it('adds up tax printed per rate', () => {
    const selection = selectAmounts({
      net: [candidate('net', 473, 0.8)],
      tax: [candidate('tax', 19.25, 0.6), candidate('tax', 37.62, 0.6)],
      total: [candidate('total', 529.87, 0.8)],
      due: [],
    });
    expect(selection.tax?.candidate.value).toBe(56.87);
  });

  it('doubles a tax printed on two lines of its own only where net plus the double gives the total, and never doubts the tax for the double', () => {
    const onLine = (value: number, segmentId: number): FieldCandidate => ({ ...candidate('tax', value, 0.6), segmentId });
    // CGST and SGST, the same half of the rate each.
    const split = selectAmounts({ net: [candidate('net', 50250, 0.8)], tax: [onLine(1256.25, 1), onLine(1256.25, 2)], total: [candidate('total', 52762.5, 0.8)], due: [] });
    expect(split.tax?.candidate.value).toBe(2512.5);
    // A tax printed in the totals and again in a summary, with no total to check against: the tax as printed, at least as sure as when printed once.
    const twice = selectAmounts({ net: [candidate('net', 30.84, 0.6)], tax: [onLine(3.89, 1), onLine(3.89, 2)], total: [], due: [] });
    const once = selectAmounts({ net: [candidate('net', 30.84, 0.6)], tax: [onLine(3.89, 1)], total: [], due: [] });
    expect(twice.tax?.candidate.value).toBe(3.89);
    expect(twice.tax?.confidence).toBeGreaterThanOrEqual(once.tax!.confidence);
  });

  it('derives the net amount from total and tax when it is not printed', () => {
    const selection = selectAmounts({ net: [], tax: [candidate('tax', 0, 0.7)], total: [candidate('total', 4.11, 0.9)], due: [] });
    expect(selection.net?.candidate.value).toBe(4.11);
    expect(selection.net?.confidence).toBeLessThan(selection.total?.confidence ?? 0);
  });

  it('takes no negative tax for a positive total, and derives no net from one; a credit note keeps its negative tax', () => {
    // "Tax (₹)" of a table header, its symbol read as 7: in parentheses, as accounts print a negative amount.
    const misread = selectAmounts({ net: [], tax: [candidate('tax', -7, 0.75)], total: [candidate('total', 319, 0.9)], due: [] });
    expect(misread.tax).toBeUndefined();
    expect(misread.net).toBeUndefined();
    expect(misread.total?.candidate.value).toBe(319);

    const creditNote = selectAmounts({ net: [candidate('net', -100, 0.7)], tax: [candidate('tax', -19, 0.7)], total: [candidate('total', -119, 0.9)], due: [] });
    expect([creditNote.net?.candidate.value, creditNote.tax?.candidate.value]).toEqual([-100, -19]);
  });

  it('takes the amount due as the total when no total is printed', () => {
    const selection = selectAmounts({ net: [], tax: [], total: [], due: [candidate('due', 571.04, 0.9)] });
    expect(selection.total?.candidate.value).toBe(571.04);
  });
});
