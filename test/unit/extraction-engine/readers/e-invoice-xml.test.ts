import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readEInvoiceXml } from '../../../../src/extraction-engine/readers/e-invoice-xml.ts';
import { corpusFile } from '../../../support/document-builders.ts';

const encode = (text: string) => new TextEncoder().encode(text);

function ublInvoice(overrides: { root?: 'Invoice' | 'CreditNote'; typeCode?: string; extraLines?: string } = {}): string {
  const root = overrides.root ?? 'Invoice';
  const quantityElement = root === 'Invoice' ? 'InvoicedQuantity' : 'CreditedQuantity';
  const typeElement = root === 'Invoice' ? 'InvoiceTypeCode' : 'CreditNoteTypeCode';
  const lineElement = root === 'Invoice' ? 'InvoiceLine' : 'CreditNoteLine';
  return `<?xml version="1.0" encoding="UTF-8"?>
<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>INV-77</cbc:ID>
  <cbc:IssueDate>2024-02-29</cbc:IssueDate>
  <cbc:DueDate>2024-03-30</cbc:DueDate>
  <cbc:${typeElement}>${overrides.typeCode ?? (root === 'Invoice' ? '380' : '381')}</cbc:${typeElement}>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cbc:BuyerReference>04011000-12345-34</cbc:BuyerReference>
  <cac:OrderReference><cbc:ID>PO-9</cbc:ID></cac:OrderReference>
  <cac:AccountingSupplierParty><cac:Party>
    <cac:PartyName><cbc:Name>Trading Name</cbc:Name></cac:PartyName>
    <cac:PartyTaxScheme><cbc:CompanyID>DE111111111</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>Seller Legal GmbH</cbc:RegistrationName></cac:PartyLegalEntity>
  </cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party>
    <cac:PartyIdentification><cbc:ID>CUST-5</cbc:ID></cac:PartyIdentification>
    <cac:PartyName><cbc:Name>Buyer BV</cbc:Name></cac:PartyName>
    <cac:PartyTaxScheme><cbc:CompanyID>NL222222222B01</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
  </cac:Party></cac:AccountingCustomerParty>
  <cac:Delivery><cbc:ActualDeliveryDate>2024-02-28</cbc:ActualDeliveryDate></cac:Delivery>
  <cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>DE89 3704 0044 0532 0130 00</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">19.00</cbc:TaxAmount></cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">119.00</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">119.00</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  <cac:${lineElement}><cbc:ID>1</cbc:ID><cbc:${quantityElement} unitCode="C62">2</cbc:${quantityElement}><cbc:LineExtensionAmount currencyID="EUR">60.00</cbc:LineExtensionAmount></cac:${lineElement}>
  <cac:${lineElement}><cbc:ID>2</cbc:ID><cbc:${quantityElement} unitCode="C62">1</cbc:${quantityElement}><cbc:LineExtensionAmount currencyID="EUR">40.00</cbc:LineExtensionAmount></cac:${lineElement}>${overrides.extraLines ?? ''}
</${root}>`;
}

/**
 * The corpus counts every IncludedSupplyChainTradeLineItem; in these files one of them carries only a
 * note ("Wir erlauben uns Ihnen folgende Positionen ... in Rechnung zu stellen:"), no quantity and no
 * amount: a sentence on the page, not an item.
 */
const noteOnlyLinesOf: Record<string, number> = {
  'zf1_COMFORT_Rabatte.embedded.xml': 1,
  'zf1_EXTENDED_Kostenrechnung.embedded.xml': 1,
  'zf1_EXTENDED_Warenrechnung.embedded.xml': 1,
};

describe('readEInvoiceXml', () => {
  const corpusXmlFiles = readdirSync(corpusFile('zugferd')).filter((name) => name.endsWith('.embedded.xml'));

  it.each(corpusXmlFiles)('reads every ground-truth field of corpus zugferd/%s', (fileName) => {
    const expected = JSON.parse(readFileSync(corpusFile(`zugferd/${fileName.replace('.embedded.xml', '.expected.json')}`), 'utf8')) as { fields: Record<string, unknown> };

    const reading = readEInvoiceXml(readFileSync(corpusFile(`zugferd/${fileName}`)));

    expect(reading.kind).toBe('invoice');
    if (reading.kind !== 'invoice') return;
    expect(reading.invoice.syntax).toBe('CII');
    const noteOnlyLines = noteOnlyLinesOf[fileName] ?? 0;
    expect(reading.invoice.values).toMatchObject({ ...expected.fields, ...(noteOnlyLines > 0 ? { line_item_count: Number(expected.fields.line_item_count) - noteOnlyLines } : {}) });
  });

  it('reads a UBL invoice, preferring the legal name and normalising the IBAN', () => {
    const reading = readEInvoiceXml(encode(ublInvoice()));

    expect(reading).toEqual({
      kind: 'invoice',
      invoice: {
        syntax: 'UBL',
        lineItems: [
          { quantity: 2, unit: 'C62', amount: 60 },
          { quantity: 1, unit: 'C62', amount: 40 },
        ],
        values: {
          doc_type_code: '380',
          doc_type: 'invoice',
          invoice_number: 'INV-77',
          issue_date: '2024-02-29',
          due_date: '2024-03-30',
          delivery_date: '2024-02-28',
          currency: 'EUR',
          net_amount: 100,
          tax_amount: 19,
          total_amount: 119,
          amount_due: 119,
          seller_name: 'Seller Legal GmbH',
          seller_vat_id: 'DE111111111',
          buyer_name: 'Buyer BV',
          buyer_vat_id: 'NL222222222B01',
          buyer_reference: '04011000-12345-34',
          order_reference: 'PO-9',
          customer_number: 'CUST-5',
          iban: 'DE89370400440532013000',
          line_item_count: 2,
        },
      },
    });
  });

  it('leaves out lines that bill nothing and count nothing (section headings, notes), and keeps a free item', () => {
    const heading = '<cac:InvoiceLine><cbc:ID>3</cbc:ID><cbc:LineExtensionAmount currencyID="EUR">0.00</cbc:LineExtensionAmount><cac:Item><cbc:Name>--- Food Products ---</cbc:Name></cac:Item></cac:InvoiceLine>';
    const freeItem = '<cac:InvoiceLine><cbc:ID>4</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">0.00</cbc:LineExtensionAmount><cac:Item><cbc:Name>Sample</cbc:Name></cac:Item></cac:InvoiceLine>';

    const reading = readEInvoiceXml(encode(ublInvoice({ extraLines: heading + freeItem })));

    expect(reading.kind === 'invoice' && reading.invoice.lineItems?.map((row) => row.description ?? row.amount)).toEqual([60, 40, 'Sample']);
    expect(reading.kind === 'invoice' && reading.invoice.values.line_item_count).toBe(3);
  });

  it('reads a UBL credit note as a credit note', () => {
    const reading = readEInvoiceXml(encode(ublInvoice({ root: 'CreditNote' })));

    expect(reading.kind === 'invoice' && reading.invoice.values).toMatchObject({ doc_type: 'credit_note', doc_type_code: '381', line_item_count: 2 });
  });

  it('names CII type code 381 a credit note', () => {
    const creditNote = readFileSync(corpusFile('zugferd/zf20_EN16931_Einfach.embedded.xml'), 'utf8').replace('<ram:TypeCode>380</ram:TypeCode>', '<ram:TypeCode>381</ram:TypeCode>');

    const reading = readEInvoiceXml(encode(creditNote));

    expect(reading.kind === 'invoice' && reading.invoice.values.doc_type).toBe('credit_note');
  });

  it('reports an encoding no decoder knows as malformed instead of guessing', () => {
    const xml = ublInvoice().replace('encoding="UTF-8"', 'encoding="UTF-8-W/O-BOM"');

    expect(readEInvoiceXml(encode(xml))).toEqual({ kind: 'malformed', reason: 'unsupported encoding "UTF-8-W/O-BOM"' });
  });

  it('reports XML that is not well-formed as malformed', () => {
    const reading = readEInvoiceXml(encode(ublInvoice().replace('</cbc:IssueDate>', '')));

    expect(reading.kind).toBe('malformed');
  });

  it('decodes the declared single-byte encoding', () => {
    const xml = ublInvoice().replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').replace('Buyer BV', 'Müller & Söhne').replace('&', '&amp;');

    const reading = readEInvoiceXml(Buffer.from(xml, 'latin1'));

    expect(reading.kind === 'invoice' && reading.invoice.values.buyer_name).toBe('Müller & Söhne');
  });

  it('recognises XML that is not an e-invoice', () => {
    expect(readEInvoiceXml(encode('<?xml version="1.0"?><catalog><item>Paper</item></catalog>'))).toEqual({ kind: 'not-an-invoice' });
  });
});
