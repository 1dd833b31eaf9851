import { describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration } from '../../../../src/extraction-engine/configuration/parse-extraction-configuration.ts';
import { extractDocument } from '../../../../src/extraction-engine/extract-document.ts';
import { readDocument } from '../../../../src/extraction-engine/read-document.ts';
import { textPdf } from '../../../support/document-builders.ts';
import { placedDocument, type Row } from './read-document-builder.ts';

/** The values of a layout's fields as the prebuilt types extract them (the extraction must complete). */
function fieldValuesOf(rows: Row[], language = 'en'): Record<string, unknown> {
  const outcome = extractDocument(placedDocument([rows], { language }), { configuration: defaultExtractionConfiguration });
  if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
  return Object.fromEntries(outcome.fields.map((field) => [field.name, field.value]));
}

// Invoice and receipt layouts from outside the development corpus, built the way a PDF text
// layer delivers them. They guard against tuning the prebuilt invoice to the corpus files.
const invoices: Record<string, [Row[], string]> = {
  english: [[
    { text: 'Invoice', x: 0.08, height: 0.024 },
    [{ text: 'Invoice number', x: 0.08 }, { text: 'ABCD1234-0001', x: 0.25 }],
    [{ text: 'Date of issue', x: 0.08 }, { text: 'March 5, 2024', x: 0.25 }],
    [{ text: 'Date due', x: 0.08 }, { text: 'April 4, 2024', x: 0.25 }],
    [{ text: 'Acme Software Ltd', x: 0.08 }, { text: 'Bill to', x: 0.5 }],
    [{ text: '1 Main Street', x: 0.08 }, { text: 'Jane Doe', x: 0.5 }],
    [{ text: 'London EC1A 1BB', x: 0.08 }, { text: 'jane@example.com', x: 0.5 }],
    'United Kingdom',
    'VAT GB123456789',
    { text: '£120.00 due April 4, 2024', x: 0.08, height: 0.018 },
    [{ text: 'Description', x: 0.08 }, { text: 'Qty', x: 0.5 }, { text: 'Unit price', x: 0.62 }, { text: 'Amount', x: 0.85 }],
    [{ text: 'Pro plan', x: 0.08 }, { text: '1', x: 0.5 }, { text: '£100.00', x: 0.62 }, { text: '£100.00', x: 0.85 }],
    [{ text: 'Subtotal', x: 0.62 }, { text: '£100.00', x: 0.85 }],
    [{ text: 'VAT (20%)', x: 0.62 }, { text: '£20.00', x: 0.85 }],
    [{ text: 'Total', x: 0.62 }, { text: '£120.00', x: 0.85 }],
    [{ text: 'Amount due', x: 0.62 }, { text: '£120.00', x: 0.85 }],
  ], 'en'],
  french: [[
    { text: 'FACTURE', x: 0.4, height: 0.024 },
    [{ text: 'SARL Dupont Plomberie', x: 0.08 }, { text: 'Client :', x: 0.55 }],
    [{ text: '12 rue de la Paix', x: 0.08 }, { text: 'M. Martin', x: 0.55 }],
    [{ text: '75002 Paris', x: 0.08 }, { text: '5 avenue Foch', x: 0.55 }],
    [{ text: 'SIRET 123 456 789 00012', x: 0.08 }, { text: '69006 Lyon', x: 0.55 }],
    'N° TVA : FR 40 123456789',
    [{ text: 'Facture N° : F2024-0158', x: 0.08 }, { text: 'Date : 12/03/2024', x: 0.55 }],
    'Échéance : 11/04/2024',
    [{ text: 'Désignation', x: 0.08 }, { text: 'Qté', x: 0.5 }, { text: 'PU HT', x: 0.62 }, { text: 'Total HT', x: 0.82 }],
    [{ text: 'Remplacement chauffe-eau', x: 0.08 }, { text: '1', x: 0.5 }, { text: '850,00', x: 0.62 }, { text: '850,00', x: 0.82 }],
    [{ text: "Main d'œuvre", x: 0.08 }, { text: '3', x: 0.5 }, { text: '55,00', x: 0.62 }, { text: '165,00', x: 0.82 }],
    [{ text: 'Total HT', x: 0.6 }, { text: '1 015,00 €', x: 0.82 }],
    [{ text: 'TVA 20 %', x: 0.6 }, { text: '203,00 €', x: 0.82 }],
    [{ text: 'Total TTC', x: 0.6 }, { text: '1 218,00 €', x: 0.82 }],
    'IBAN : FR76 3000 6000 0112 3456 7890 189',
  ], 'fr'],
  spanish: [[
    { text: 'FACTURA', x: 0.08, height: 0.024 },
    'Número de factura: 2024/0042',
    'Fecha: 15 de marzo de 2024',
    'Proveedor: Construcciones García S.L.',
    'CIF: B12345678',
    'Cliente: Hotel Sol S.A.',
    [{ text: 'Base imponible:', x: 0.5 }, { text: '1.000,00 €', x: 0.8 }],
    [{ text: 'IVA (21%):', x: 0.5 }, { text: '210,00 €', x: 0.8 }],
    [{ text: 'Total factura:', x: 0.5 }, { text: '1.210,00 €', x: 0.8 }],
  ], 'es'],
  italian: [[
    { text: 'FATTURA N. 125/2024 del 10/04/2024', x: 0.08, height: 0.02 },
    'Cedente: Rossi S.r.l. - P.IVA 01234567890',
    'Cessionario: Bianchi S.p.A.',
    [{ text: 'Imponibile', x: 0.5 }, { text: '500,00', x: 0.8 }],
    [{ text: 'IVA 22%', x: 0.5 }, { text: '110,00', x: 0.8 }],
    [{ text: 'Totale documento', x: 0.5 }, { text: '€ 610,00', x: 0.8 }],
  ], 'it'],
  dutch: [[
    { text: 'FACTUUR', x: 0.08, height: 0.024 },
    { text: 'Bakkerij de Vries B.V.', x: 0.6 },
    [{ text: 'Factuurnummer:', x: 0.08 }, { text: '2024-0311', x: 0.3 }],
    [{ text: 'Factuurdatum:', x: 0.08 }, { text: '3 april 2024', x: 0.3 }],
    [{ text: 'Vervaldatum:', x: 0.08 }, { text: '17 april 2024', x: 0.3 }],
    [{ text: 'Subtotaal', x: 0.5 }, { text: '€ 50,00', x: 0.8 }],
    [{ text: 'BTW 9%', x: 0.5 }, { text: '€ 4,50', x: 0.8 }],
    [{ text: 'Totaal', x: 0.5 }, { text: '€ 54,50', x: 0.8 }],
    'KvK 12345678   BTW-nummer NL123456789B01',
    'IBAN NL91ABNA0417164300',
  ], 'nl'],
  polishPdf: [[
    { text: 'Faktura VAT nr FV/12/2024', x: 0.3, height: 0.02 },
    [{ text: 'Data wystawienia: 2024-12-02', x: 0.6 }],
    [{ text: 'Sprzedawca:', x: 0.08 }, { text: 'Nabywca:', x: 0.55 }],
    [{ text: 'Firma ABC Sp. z o.o.', x: 0.08 }, { text: 'Jan Nowak', x: 0.55 }],
    [{ text: 'ul. Długa 5, 00-001 Warszawa', x: 0.08 }, { text: 'ul. Krótka 1, 30-001 Kraków', x: 0.55 }],
    [{ text: 'NIP: 123-456-32-18', x: 0.08 }],
    [{ text: 'Razem netto', x: 0.5 }, { text: '1 000,00 zł', x: 0.8 }],
    [{ text: 'VAT 23%', x: 0.5 }, { text: '230,00 zł', x: 0.8 }],
    [{ text: 'Do zapłaty', x: 0.5 }, { text: '1 230,00 zł', x: 0.8 }],
    'Termin płatności: 16.12.2024',
  ], 'pl'],
};

const expectedValues: Record<string, Record<string, unknown>> = {
  english: {
    invoice_number: 'ABCD1234-0001', issue_date: '2024-03-05', due_date: '2024-04-04', currency: 'GBP', net_amount: 100, tax_amount: 20,
    total_amount: 120, amount_due: 120, seller_name: 'Acme Software Ltd', seller_vat_id: 'GB123456789', buyer_name: 'Jane Doe', line_item_count: 1,
  },
  french: {
    invoice_number: 'F2024-0158', issue_date: '2024-03-12', due_date: '2024-04-11', currency: 'EUR', net_amount: 1015, tax_amount: 203,
    total_amount: 1218, seller_name: 'SARL Dupont Plomberie', seller_vat_id: 'FR40123456789', iban: 'FR7630006000011234567890189', line_item_count: 2,
  },
  spanish: {
    invoice_number: '2024/0042', issue_date: '2024-03-15', currency: 'EUR', net_amount: 1000, tax_amount: 210, total_amount: 1210,
    seller_name: 'Construcciones García S.L.', seller_vat_id: 'B12345678', buyer_name: 'Hotel Sol S.A.',
  },
  italian: {
    invoice_number: '125/2024', issue_date: '2024-04-10', currency: 'EUR', net_amount: 500, tax_amount: 110, total_amount: 610,
    seller_name: 'Rossi S.r.l.', seller_vat_id: '01234567890', buyer_name: 'Bianchi S.p.A.',
  },
  dutch: {
    invoice_number: '2024-0311', issue_date: '2024-04-03', due_date: '2024-04-17', currency: 'EUR', net_amount: 50, tax_amount: 4.5,
    total_amount: 54.5, seller_name: 'Bakkerij de Vries B.V.', seller_vat_id: 'NL123456789B01', iban: 'NL91ABNA0417164300',
  },
  polishPdf: {
    invoice_number: 'FV/12/2024', issue_date: '2024-12-02', due_date: '2024-12-16', currency: 'PLN', net_amount: 1000, tax_amount: 230,
    total_amount: 1230, amount_due: 1230, seller_name: 'Firma ABC Sp. z o.o.', seller_vat_id: '1234563218', buyer_name: 'Jan Nowak',
  },
};

describe('prebuilt invoice on layouts outside the corpus', () => {
  it.each(Object.keys(invoices))('reads the %s invoice', (name) => {
    const [rows, language] = invoices[name] as [Row[], string];
    const outcome = extractDocument(placedDocument([rows], { language }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    expect(outcome.docType).toBe('invoice');
    const values = Object.fromEntries(outcome.fields.filter((field) => field.value !== null).map((field) => [field.name, field.value]));
    expect(values).toMatchObject(expectedValues[name] as Record<string, unknown>);
  });
});

const receipts: Record<string, [Row[], string]> = {
  enTill: [[
    { text: 'FRESH MART', x: 0.35, height: 0.02 },
    { text: '221 Baker Street, London NW1 6XE', x: 0.2 },
    { text: 'VAT No: GB 987 6543 21', x: 0.3 },
    [{ text: 'Milk 2L', x: 0.1 }, { text: '1.45', x: 0.8 }],
    [{ text: 'Bread', x: 0.1 }, { text: '1.10', x: 0.8 }],
    [{ text: 'Coffee beans', x: 0.1 }, { text: '6.99', x: 0.8 }],
    [{ text: 'TOTAL', x: 0.1 }, { text: '£9.54', x: 0.8 }],
    [{ text: 'CASH', x: 0.1 }, { text: '£20.00', x: 0.8 }],
    [{ text: 'CHANGE', x: 0.1 }, { text: '£10.46', x: 0.8 }],
    [{ text: '14/02/2024 17:32', x: 0.1 }, { text: 'Receipt 0042-1187', x: 0.55 }],
    { text: 'Thank you for shopping with us', x: 0.2 },
  ], 'en'],
  deKassenbon: [[
    { text: 'Backhaus Müller GmbH', x: 0.3, height: 0.018 },
    { text: 'Marktplatz 3, 80331 München', x: 0.28 },
    [{ text: '2 x Brezel', x: 0.1 }, { text: '1,80 A', x: 0.8 }],
    [{ text: 'Kaffee', x: 0.1 }, { text: '2,90 B', x: 0.8 }],
    [{ text: 'SUMME EUR', x: 0.1 }, { text: '4,70', x: 0.8 }],
    [{ text: 'Bar', x: 0.1 }, { text: '10,00', x: 0.8 }],
    [{ text: 'Rückgeld', x: 0.1 }, { text: '5,30', x: 0.8 }],
    [{ text: 'MwSt A 7%', x: 0.1 }, { text: '0,12', x: 0.8 }],
    [{ text: 'MwSt B 19%', x: 0.1 }, { text: '0,46', x: 0.8 }],
    'Datum: 03.02.2024  Uhrzeit: 08:12  Bon-Nr. 4711',
  ], 'de'],
};

const expectedReceiptValues: Record<string, Record<string, unknown>> = {
  enTill: { invoice_number: '0042-1187', issue_date: '2024-02-14', currency: 'GBP', total_amount: 9.54, seller_name: 'FRESH MART', seller_vat_id: 'GB987654321' },
  deKassenbon: { invoice_number: '4711', issue_date: '2024-02-03', currency: 'EUR', tax_amount: 0.58, total_amount: 4.7, seller_name: 'Backhaus Müller GmbH' },
};

describe('prebuilt receipt on till receipts', () => {
  it.each(Object.keys(receipts))('reads the %s receipt', (name) => {
    const [rows, language] = receipts[name] as [Row[], string];
    const outcome = extractDocument(placedDocument([rows], { language }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    expect(outcome.docType).toBe('receipt');
    const values = Object.fromEntries(outcome.fields.filter((field) => field.value !== null).map((field) => [field.name, field.value]));
    expect(values).toMatchObject(expectedReceiptValues[name] as Record<string, unknown>);
    // Tendered cash and change are not the total.
    expect(values.total_amount).not.toBe(name === 'enTill' ? 20 : 10);
  });
});

describe('totals tables and the amount due', () => {
  // A German totals table: one row per tax rate, then the unlabelled row that adds them up.
  const totalsTable = (extraRows: Row[] = []): Row[] => [
    { text: 'RECHNUNG', x: 0.6, height: 0.024 },
    [{ text: 'Muster Handel GmbH', x: 0.08 }, { text: 'Rechnungsnummer', x: 0.6 }, { text: 'R-2024-77', x: 0.85 }],
    [{ text: 'Hauptstraße 1, 10115 Berlin', x: 0.08 }, { text: 'Rechnungsdatum', x: 0.6 }, { text: '02.05.2024', x: 0.85 }],
    [{ text: 'Artikel', x: 0.08 }, { text: 'Menge', x: 0.5 }, { text: 'Betrag', x: 0.85 }],
    [{ text: 'Kaffee', x: 0.08 }, { text: '10', x: 0.5 }, { text: '100,00', x: 0.85 }],
    [{ text: 'Tassen', x: 0.08 }, { text: '20', x: 0.5 }, { text: '200,00', x: 0.85 }],
    ...extraRows,
    [{ text: 'Warenwert', x: 0.08 }, { text: 'Nettobetrag', x: 0.55 }, { text: 'MwSt-Betrag', x: 0.69 }, { text: 'Endbetrag', x: 0.87 }],
    [{ text: '100,00', x: 0.1 }, { text: '100,00', x: 0.58 }, { text: '7,00', x: 0.71 }, { text: '107,00', x: 0.89 }],
    [{ text: '200,00', x: 0.1 }, { text: '200,00', x: 0.58 }, { text: '38,00', x: 0.71 }, { text: '238,00', x: 0.89 }],
    [{ text: '300,00', x: 0.1 }, { text: '300,00', x: 0.58 }, { text: '45,00', x: 0.71 }, { text: '345,00', x: 0.89 }],
    'Zahlbar innerhalb von 14 Tagen ohne Abzug.',
  ];

  function valuesOf(rows: Row[], language: string) {
    const outcome = extractDocument(placedDocument([rows], { language }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    return Object.fromEntries(outcome.fields.map((field) => [field.name, field]));
  }

  it('takes the row that adds up the per-rate rows as the document\'s amounts', () => {
    const fields = valuesOf(totalsTable(), 'de');
    expect(fields.net_amount?.value).toBe(300);
    expect(fields.tax_amount?.value).toBe(45);
    expect(fields.total_amount?.value).toBe(345);
  });

  it('reports the total as the amount due of an invoice that prints none and shows no payment, rated lower', () => {
    const fields = valuesOf(totalsTable(), 'de');
    expect(fields.amount_due?.value).toBe(345);
    expect(fields.amount_due!.metadata.confidence!).toBeLessThan(fields.total_amount!.metadata.confidence!);
  });

  it('infers no amount due when a payment was already made', () => {
    const fields = valuesOf(totalsTable([[{ text: 'Anzahlung vom 20.04.2024', x: 0.08 }, { text: '-100,00', x: 0.85 }]]), 'de');
    expect(fields.total_amount?.value).toBe(345);
    expect(fields.amount_due?.value ?? null).toBeNull();
  });

  it('infers no amount due on a receipt, which is paid', () => {
    const [rows, language] = receipts.enTill as [Row[], string];
    const outcome = extractDocument(placedDocument([rows], { language }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    expect(outcome.docType).toBe('receipt');
    expect(outcome.fields.find((field) => field.name === 'amount_due')?.value ?? null).toBeNull();
  });
});

describe('parties', () => {
  const invoiceWithShipTo = (sellerName: string, processLines: number): Row[] => [
    { text: 'RECHNUNG Nr. 2024-118 vom 03.06.2024', x: 0.08 },
    // Process data first, as e-invoice viewers print it: the parties follow in mid-page.
    ...Array.from({ length: processLines }, (_, line) => [{ text: `Angabe ${line + 1}`, x: 0.08 }, { text: `: Wert ${line + 1}`, x: 0.3 }]),
    { text: 'Verkäufer:', x: 0.08 },
    [{ text: 'Nummer', x: 0.08 }, { text: ': 55501', x: 0.225 }],
    { text: sellerName, x: 0.08 },
    { text: 'Hafenstraße 4, 24103 Kiel', x: 0.08 },
    { text: 'Käufer:', x: 0.08 },
    [{ text: 'Nummer', x: 0.08 }, { text: ': 90017', x: 0.225 }],
    { text: 'Metallbau Süd GmbH & Co. KG', x: 0.08 },
    { text: 'Werkstraße 9, 80331 München', x: 0.08 },
    [{ text: 'Nettobetrag', x: 0.08 }, { text: '1.000,00', x: 0.8 }],
    [{ text: 'MwSt. 19 %', x: 0.08 }, { text: '190,00', x: 0.8 }],
    [{ text: 'Gesamtbetrag EUR', x: 0.08 }, { text: '1.190,00', x: 0.8 }],
    // Terms and notes down to the lower part of the page, where the ship-to block sits.
    ...Array.from({ length: 12 }, (_, line) => ({ text: `Hinweis ${line + 1}: Lieferung frei Haus, Versand per Spedition.`, x: 0.08 })),
    { text: 'Abweichender Warenempfänger:', x: 0.08 },
    { text: 'Metallbau Süd GmbH & Co. KG', x: 0.08 },
    { text: 'Lagerweg 2, 85748 Garching', x: 0.08 },
  ];

  it('does not take the buyer\'s company, printed again in a ship-to block, for the seller', () => {
    expect(fieldValuesOf(invoiceWithShipTo('Stahlhandel Nord', 14), 'de')).toMatchObject({ seller_name: 'Stahlhandel Nord', buyer_name: 'Metallbau Süd GmbH & Co. KG', total_amount: 1190 });
  });

  it('reads the subscriber of a French telecom invoice as the buyer', () => {
    const rows: Row[] = [
      { text: 'Réseau Fibre SAS', x: 0.07 },
      { text: '12 avenue de la Gare, 75010 Paris', x: 0.07 },
      [{ text: 'Adresse email de contact', x: 0.07 }, { text: "Nom de l’abonné", x: 0.43 }],
      [{ text: 'marie@example.fr', x: 0.07 }, { text: 'Durand Marie', x: 0.43 }],
      { text: 'Facture n°88120455 du 02 Juillet 2024', x: 0.07 },
      [{ text: 'Total facture', x: 0.07 }, { text: '24,99', x: 0.56 }, { text: '5,00', x: 0.72 }, { text: '29,99', x: 0.89 }],
    ];
    const outcome = extractDocument(placedDocument([rows], { language: 'fr' }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    expect(outcome.fields.find((field) => field.name === 'buyer_name')?.value).toBe('Durand Marie');
  });

  it('keeps the words after a legal form that the name\'s line goes on with', () => {
    expect(fieldValuesOf(invoiceWithShipTo('Stahlhandel Nord AG Kiel', 0), 'de')).toMatchObject({ seller_name: 'Stahlhandel Nord AG Kiel' });
  });
});

describe('line items', () => {
  function lineItemCount(rows: Row[]): unknown {
    const outcome = extractDocument(placedDocument([rows], { language: 'en' }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    return outcome.fields.find((field) => field.name === 'line_item_count')?.value;
  }
  const header: Row = [{ text: 'Description', x: 0.05 }, { text: 'Quantity', x: 0.43 }, { text: 'Unit Price', x: 0.56 }, { text: 'Amount', x: 0.88 }];
  const item = (name: string, amount: string): Row => [{ text: name, x: 0.05 }, { text: '1.00', x: 0.45 }, { text: amount, x: 0.59 }, { text: `$ ${amount}`, x: 0.88 }];

  it('counts the items of every section when sections close with their own subtotal', () => {
    const rows: Row[] = [
      { text: 'Invoice INV/2024/0042', x: 0.05 },
      [{ text: 'Invoice Date:', x: 0.05 }, { text: '03/20/2024', x: 0.3 }],
      header,
      '--- Hardware ---',
      item('Desk lamp', '42.00'),
      item('Office chair', '70.00'),
      { text: 'Subtotal $ 112.00', x: 0.81 },
      '--- Services ---',
      item('Assembly', '30.00'),
      { text: 'Subtotal $ 30.00', x: 0.81 },
      [{ text: 'Subtotal', x: 0.52 }, { text: '$ 142.00', x: 0.88 }],
      [{ text: 'Tax 10%', x: 0.52 }, { text: '$ 14.20', x: 0.88 }],
      [{ text: 'Total', x: 0.52 }, { text: '$ 156.20', x: 0.88 }],
    ];
    expect(lineItemCount(rows)).toBe(3);
  });

  it('does not count a payment line between the total and the balance as an item', () => {
    const rows: Row[] = [
      { text: 'Invoice 7781', x: 0.05 },
      [{ text: 'Invoice Date:', x: 0.05 }, { text: '03/20/2024', x: 0.3 }],
      header,
      item('Room night', '100.00'),
      [{ text: 'Grand Total', x: 0.05 }, { text: '$ 100.00', x: 0.88 }],
      [{ text: 'Payment received', x: 0.05 }, { text: 'Paid by card (100.00)', x: 0.5 }, { text: '$ 100.00', x: 0.88 }],
      [{ text: 'Balance', x: 0.05 }, { text: '$ 0.00', x: 0.88 }],
    ];
    expect(lineItemCount(rows)).toBe(1);
  });
});

describe('a UK invoice addressed with "To:" and items priced "Net | VAT"', () => {
  const ukInvoice = (addressee: Row[], itemHeader: Row, item: Row, paymentLine?: Row): Row[] => [
    [{ text: 'Brightside Consulting Ltd', x: 0.08 }, { text: 'Invoice', x: 0.65, height: 0.02 }],
    [{ text: '14 Canal Street, Manchester M1 3HU', x: 0.08 }, { text: 'Invoice No. BC-0917', x: 0.65 }],
    [{ text: 'Invoice Date: 3 November 2026', x: 0.65 }],
    ...addressee,
    itemHeader,
    item,
    [{ text: 'Total due', x: 0.65 }, { text: '£2,880.00', x: 0.8 }],
    ...(paymentLine ? [paymentLine] : []),
  ];
  const netVatHeader: Row = [{ text: 'Description', x: 0.08 }, { text: 'Net', x: 0.65 }, { text: 'VAT', x: 0.8 }];
  const netVatItem: Row = [{ text: 'Strategy workshop (2 days)', x: 0.08 }, { text: '£2,400.00', x: 0.65 }, { text: '£480.00', x: 0.8 }];

  it.each([
    { case: 'on the line of the key', addressee: [{ text: 'To: Harper & Sons Ltd, 2 Mill Lane, Leeds LS1 4AB', x: 0.08 }] },
    { case: 'under the key', addressee: [{ text: 'To:', x: 0.08 }, { text: 'Harper & Sons Ltd', x: 0.08 }, { text: '2 Mill Lane, Leeds LS1 4AB', x: 0.08 }] },
  ])('reads the party after "To:" as the buyer, $case', ({ addressee }) => {
    expect(fieldValuesOf(ukInvoice(addressee, netVatHeader, netVatItem))).toMatchObject({ buyer_name: 'Harper & Sons Ltd', seller_name: 'Brightside Consulting Ltd', total_amount: 2880 });
  });

  it('reads the party after a Dutch "Aan:" as the buyer', () => {
    const rows = ukInvoice([{ text: 'Aan: Familie de Vries', x: 0.08 }], netVatHeader, netVatItem);
    const outcome = extractDocument(placedDocument([rows], { language: 'nl' }), { configuration: defaultExtractionConfiguration });
    expect(outcome.status === 'COMPLETED' && outcome.fields.find((field) => field.name === 'buyer_name')?.value).toBe('Familie de Vries');
  });

  it('reads the party an Italian invoice addresses with "Spett.le" as the buyer, on its line or under it', () => {
    const italian = (addressee: Row[]): Row[] => [
      { text: 'Rossi S.r.l.', x: 0.08, height: 0.02 },
      'Via Roma 12, 20121 Milano - P.IVA 01234567890',
      { text: 'FATTURA N. 125/2024 del 10/04/2024', x: 0.08 },
      ...addressee,
      { text: 'Via Verdi 3, 10121 Torino', x: 0.55 },
      [{ text: 'Imponibile', x: 0.5 }, { text: '500,00', x: 0.8 }],
      [{ text: 'IVA 22%', x: 0.5 }, { text: '110,00', x: 0.8 }],
      [{ text: 'Totale documento', x: 0.5 }, { text: '€ 610,00', x: 0.8 }],
    ];
    const expected = { seller_name: 'Rossi S.r.l.', buyer_name: 'Bianchi S.p.A.', total_amount: 610 };
    expect(fieldValuesOf(italian([{ text: 'Spett.le Bianchi S.p.A.', x: 0.55 }]), 'it')).toMatchObject(expected);
    expect(fieldValuesOf(italian([{ text: 'Spett.le', x: 0.55 }, { text: 'Bianchi S.p.A.', x: 0.55 }]), 'it')).toMatchObject(expected);
  });

  it('does not take the payee of a "Pay to:" line for the buyer', async () => {
    // As a PDF's text layer places it: in Helvetica "Pay " is narrow enough that the payee's line starts
    // inside the block the "to:" key would open.
    const texts: [number, number, string][] = [
      [50, 50, 'Brightside Consulting Ltd'], [400, 50, 'Invoice'], [50, 64, '14 Canal Street, Manchester M1 3HU'], [400, 70, 'Invoice No. BC-0917'],
      [400, 84, 'Invoice Date: 3 November 2026'], [50, 220, 'Description'], [400, 220, 'Net'], [490, 220, 'VAT'], [50, 240, 'Strategy workshop (2 days)'],
      [400, 240, '£2,400.00'], [490, 240, '£480.00'], [400, 336, 'Total due'], [490, 336, '£2,880.00'], [50, 380, 'Pay to: Brightside Consulting Ltd, sort code 12-34-56'],
    ];
    const pdf = await textPdf([texts.map(([x, y, text]) => ({ text, x, y: 792 - y, size: 10 }))]);
    const outcome = extractDocument(await readDocument(pdf, { mediaType: 'application/pdf' }), { configuration: defaultExtractionConfiguration });
    if (outcome.status !== 'COMPLETED') throw new Error(outcome.message);
    expect(Object.fromEntries(outcome.fields.map((field) => [field.name, field.value]))).toMatchObject({ seller_name: 'Brightside Consulting Ltd', buyer_name: null, total_amount: 2880 });
  });

  it('reads an item under a "Net" column, and a "VAT" column of money as no tax rate', () => {
    const items = fieldValuesOf(ukInvoice([{ text: 'To: Harper & Sons Ltd', x: 0.08 }], netVatHeader, netVatItem)).line_items;
    expect(items).toEqual([{ description: 'Strategy workshop (2 days)', amount: 2400 }]);
  });

  it('still reads a "VAT" column of rates as the tax rate', () => {
    const header: Row = [{ text: 'Description', x: 0.08 }, { text: 'VAT', x: 0.5 }, { text: 'Net', x: 0.65 }];
    const item: Row = [{ text: 'Strategy workshop (2 days)', x: 0.08 }, { text: '20%', x: 0.5 }, { text: '£2,400.00', x: 0.65 }];
    const items = fieldValuesOf(ukInvoice([{ text: 'To: Harper & Sons Ltd', x: 0.08 }], header, item)).line_items;
    expect(items).toEqual([{ description: 'Strategy workshop (2 days)', tax_rate: 20, amount: 2400 }]);
  });
});

describe('invoices of federal countries, with a sales tax line per level of government', () => {
  it('adds a Canadian GST and QST into the tax, and takes the total both are in', () => {
    const rows: Row[] = [
      [{ text: 'Maple Leaf Design Inc.', x: 0.08 }, { text: 'INVOICE', x: 0.65, height: 0.02 }],
      [{ text: '1200 Rue Sainte-Catherine O, Montréal QC H3B 1K9', x: 0.08 }, { text: 'No. MLD-2291', x: 0.65 }],
      [{ text: 'Date: November 2, 2026', x: 0.65 }],
      { text: 'Client:', x: 0.08 },
      { text: 'Northern Lights Café', x: 0.08 },
      [{ text: 'Item', x: 0.08 }, { text: 'Hours', x: 0.62 }, { text: 'Rate', x: 0.72 }, { text: 'Total', x: 0.85 }],
      [{ text: 'Brand identity package', x: 0.08 }, { text: '24', x: 0.62 }, { text: '85.00', x: 0.72 }, { text: '2,040.00', x: 0.85 }],
      [{ text: 'Subtotal', x: 0.65 }, { text: '2,040.00', x: 0.85 }],
      [{ text: 'GST 5%', x: 0.65 }, { text: '102.00', x: 0.85 }],
      [{ text: 'QST 9.975%', x: 0.65 }, { text: '203.49', x: 0.85 }],
      [{ text: 'Total (CAD)', x: 0.65 }, { text: '2,345.49', x: 0.85 }],
    ];
    expect(fieldValuesOf(rows)).toMatchObject({ currency: 'CAD', net_amount: 2040, tax_amount: 305.49, total_amount: 2345.49 });
  });

  it('reads an Indian tax invoice: taxable value, CGST and SGST, and items with a serial number and an HSN code', () => {
    const rows: Row[] = [
      [{ text: 'Sharma Textiles Pvt. Ltd.', x: 0.08 }, { text: 'TAX INVOICE', x: 0.62, height: 0.02 }],
      [{ text: 'GSTIN: 27AABCS1429B1ZB', x: 0.08 }, { text: 'Invoice No: ST/2026/0871', x: 0.62 }],
      [{ text: 'Plot 14, MIDC, Pune, Maharashtra 411019', x: 0.08 }, { text: 'Invoice Date: 05-11-2026', x: 0.62 }],
      { text: 'Buyer:', x: 0.08 },
      { text: 'Kulkarni Garments LLP', x: 0.08 },
      [{ text: 'S.No', x: 0.08 }, { text: 'Description of Goods', x: 0.15 }, { text: 'HSN', x: 0.49 }, { text: 'Qty', x: 0.57 }, { text: 'Rate', x: 0.66 }, { text: 'Amount', x: 0.82 }],
      [{ text: '1', x: 0.08 }, { text: 'Cotton fabric', x: 0.15 }, { text: '5208', x: 0.49 }, { text: '200', x: 0.57 }, { text: '180.00', x: 0.66 }, { text: '36,000.00', x: 0.82 }],
      [{ text: '2', x: 0.08 }, { text: 'Polyester lining', x: 0.15 }, { text: '5407', x: 0.49 }, { text: '150', x: 0.57 }, { text: '95.00', x: 0.66 }, { text: '14,250.00', x: 0.82 }],
      [{ text: 'Taxable Value', x: 0.62 }, { text: '50,250.00', x: 0.82 }],
      [{ text: 'CGST @ 2.5%', x: 0.62 }, { text: '1,256.25', x: 0.82 }],
      [{ text: 'SGST @ 2.5%', x: 0.62 }, { text: '1,256.25', x: 0.82 }],
      [{ text: 'Grand Total', x: 0.62 }, { text: 'Rs. 52,762.50', x: 0.82 }],
    ];
    const values = fieldValuesOf(rows);
    expect(values).toMatchObject({ currency: 'INR', net_amount: 50250, tax_amount: 2512.5, total_amount: 52762.5 });
    expect(values.line_items).toEqual([
      { description: 'Cotton fabric', product_code: '5208', quantity: 200, unit_price: 180, amount: 36000 },
      { description: 'Polyester lining', product_code: '5407', quantity: 150, unit_price: 95, amount: 14250 },
    ]);
  });

  it('reads the date after a bare "Due:" key as the due date', () => {
    const rows: Row[] = [
      [{ text: 'Koala Plumbing Pty Ltd', x: 0.08 }, { text: 'TAX INVOICE', x: 0.65, height: 0.02 }],
      [{ text: '22 George St, Sydney NSW 2000', x: 0.08 }, { text: 'Invoice # 10457', x: 0.65 }],
      [{ text: 'Date: 14/10/2026', x: 0.65 }],
      [{ text: 'Due: 28/10/2026', x: 0.65 }],
      [{ text: 'Subtotal', x: 0.65 }, { text: '$1,735.00', x: 0.85 }],
      [{ text: 'GST', x: 0.65 }, { text: '$173.50', x: 0.85 }],
      [{ text: 'Total AUD', x: 0.65 }, { text: '$1,908.50', x: 0.85 }],
    ];
    expect(fieldValuesOf(rows)).toMatchObject({ issue_date: '2026-10-14', due_date: '2026-10-28', currency: 'AUD', total_amount: 1908.5 });
  });
});

describe('invoices of other countries: totals and item columns', () => {
  it('does not take the subtotal under the item table\'s "Total" column for the total, and reads an "Item #" column as the product code', () => {
    const rows: Row[] = [
      [{ text: 'Pine Ridge Supply Co.', x: 0.08 }, { text: 'INVOICE', x: 0.68, height: 0.02 }],
      [{ text: '455 Industrial Pkwy, Denver, CO 80216', x: 0.08 }, { text: 'Invoice No: PR-55310', x: 0.68 }],
      [{ text: 'Invoice Date: 11/12/2026', x: 0.68 }],
      [{ text: 'Item #', x: 0.08 }, { text: 'Description', x: 0.18 }, { text: 'Qty', x: 0.54 }, { text: 'Unit Price', x: 0.62 }, { text: 'Total', x: 0.82 }],
      [{ text: 'LB-2x4', x: 0.08 }, { text: 'Lumber 2x4x8', x: 0.18 }, { text: '120', x: 0.54 }, { text: '4.25', x: 0.62 }, { text: '510.00', x: 0.82 }],
      [{ text: 'NL-16D', x: 0.08 }, { text: 'Nails 16d (50 lb)', x: 0.18 }, { text: '2', x: 0.54 }, { text: '89.00', x: 0.62 }, { text: '178.00', x: 0.82 }],
      [{ text: 'Subtotal', x: 0.65 }, { text: '688.00', x: 0.82 }],
      [{ text: 'Shipping', x: 0.65 }, { text: '45.00', x: 0.82 }],
      [{ text: 'Sales Tax 8.81%', x: 0.65 }, { text: '60.61', x: 0.82 }],
      [{ text: 'Total', x: 0.65 }, { text: '$793.61', x: 0.82 }],
    ];
    const values = fieldValuesOf(rows);
    expect(values).toMatchObject({ net_amount: 688, tax_amount: 60.61, total_amount: 793.61 });
    expect(values.line_items).toEqual([
      { product_code: 'LB-2x4', description: 'Lumber 2x4x8', quantity: 120, unit_price: 4.25, amount: 510 },
      { product_code: 'NL-16D', description: 'Nails 16d (50 lb)', quantity: 2, unit_price: 89, amount: 178 },
    ]);
  });

  it('reads totals "excl. GST" and "incl. GST" as the net and the total', () => {
    const rows: Row[] = [
      [{ text: 'Kiwi Web Ltd', x: 0.08 }, { text: 'TAX INVOICE', x: 0.68, height: 0.02 }],
      [{ text: 'Level 2, 45 Queen St, Auckland 1010', x: 0.08 }, { text: 'Invoice: KW-1204', x: 0.68 }],
      [{ text: 'Issued: 1 November 2026', x: 0.68 }],
      [{ text: 'Description', x: 0.08 }, { text: 'Amount NZD', x: 0.68 }],
      [{ text: 'Website hosting (12 months)', x: 0.08 }, { text: '1,200.00', x: 0.68 }],
      [{ text: 'Domain renewal', x: 0.08 }, { text: '35.00', x: 0.68 }],
      [{ text: 'Total excl. GST', x: 0.54 }, { text: '1,235.00', x: 0.74 }],
      [{ text: 'GST 15%', x: 0.54 }, { text: '185.25', x: 0.74 }],
      [{ text: 'Total incl. GST', x: 0.54 }, { text: '1,420.25', x: 0.74 }],
    ];
    expect(fieldValuesOf(rows)).toMatchObject({ currency: 'NZD', net_amount: 1235, tax_amount: 185.25, total_amount: 1420.25 });
  });

  it('reads the description under an "Articles" header', () => {
    const rows: Row[] = [
      [{ text: 'Manila Bay Printing Corp.', x: 0.08 }, { text: 'SALES INVOICE', x: 0.68, height: 0.02 }],
      [{ text: '88 Roxas Blvd, Manila', x: 0.08 }, { text: 'No. 004512', x: 0.68 }],
      [{ text: 'Date: Nov. 6, 2026', x: 0.68 }],
      [{ text: 'Articles', x: 0.08 }, { text: 'Qty', x: 0.49 }, { text: 'Unit Price', x: 0.59 }, { text: 'Amount', x: 0.78 }],
      [{ text: 'Tarpaulin banner 3x6', x: 0.08 }, { text: '10', x: 0.49 }, { text: '1,200.00', x: 0.59 }, { text: '12,000.00', x: 0.78 }],
      [{ text: 'VATable Sales', x: 0.62 }, { text: '12,000.00', x: 0.78 }],
      [{ text: 'VAT (12%)', x: 0.62 }, { text: '1,440.00', x: 0.78 }],
      [{ text: 'TOTAL AMOUNT DUE', x: 0.62 }, { text: 'PHP 13,440.00', x: 0.78 }],
    ];
    const values = fieldValuesOf(rows);
    expect(values).toMatchObject({ currency: 'PHP', total_amount: 13440 });
    expect(values.line_items).toEqual([{ description: 'Tarpaulin banner 3x6', quantity: 10, unit_price: 1200, amount: 12000 }]);
  });
});
