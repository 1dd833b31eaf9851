import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { EmbeddedInvoice, EmbeddedLineItem } from '../document.ts';

// Reads the structured data of an e-invoice: UN/CEFACT Cross Industry Invoice (ZUGFeRD 1 "CrossIndustryDocument",
// ZUGFeRD 2 / Factur-X / XRechnung "CrossIndustryInvoice") and OASIS UBL 2 (Invoice, CreditNote). Namespace
// prefixes differ between producers (rsm:/ram:, none, ns2:...), so they are stripped before navigating.
// Values use the corpus field names; anything absent from the XML is simply left out.

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Every element becomes an array, so paths read the same whether an element occurs once or many times.
  isArray: (_name, _path, _isLeafNode, isAttribute) => !isAttribute,
  // The callback ignores the path: spare the parser spelling it out as a string for every element.
  jPath: false,
  processEntities: true,
  maxNestedTags: 200,
});

/** UNTDID 1001 document type codes used by e-invoices, as the corpus names them. */
const documentTypeByCode: Record<string, string> = {
  '71': 'request_for_payment',
  '80': 'debit_note',
  '81': 'credit_note',
  '82': 'metered_services_invoice',
  '83': 'credit_note',
  '84': 'debit_note',
  '102': 'tax_notification',
  '130': 'invoicing_data_sheet',
  '202': 'direct_payment_valuation',
  '203': 'provisional_payment_valuation',
  '204': 'payment_valuation',
  '211': 'interim_application_for_payment',
  '261': 'self_billed_credit_note',
  '262': 'consolidated_credit_note',
  '295': 'price_variation_invoice',
  '296': 'credit_note',
  '308': 'delcredere_credit_note',
  '325': 'proforma_invoice',
  '326': 'partial_invoice',
  '380': 'invoice',
  '381': 'credit_note',
  '383': 'debit_note',
  '384': 'corrected_invoice',
  '385': 'consolidated_invoice',
  '386': 'prepayment_invoice',
  '387': 'hire_invoice',
  '388': 'tax_invoice',
  '389': 'self_billed_invoice',
  '390': 'delcredere_invoice',
  '393': 'factored_invoice',
  '394': 'lease_invoice',
  '395': 'consignment_invoice',
  '396': 'factored_credit_note',
  '420': 'optical_character_reading_payment_credit_note',
  '456': 'debit_advice',
  '457': 'reversal_of_debit',
  '458': 'reversal_of_credit',
  '527': 'self_billed_debit_note',
  '532': 'forwarders_credit_note',
  '553': 'forwarders_invoice_discrepancy_report',
  '575': 'insurers_invoice',
  '623': 'forwarders_invoice',
  '633': 'port_charges_documents',
  '751': 'invoice_information',
  '780': 'freight_invoice',
  '817': 'claim_notification',
  '870': 'consular_invoice',
  '875': 'partial_construction_invoice',
  '876': 'partial_final_construction_invoice',
  '877': 'final_construction_invoice',
  '935': 'customs_invoice',
};

/** Why an XML document yielded no invoice: not well-formed (or undecodable), or not an e-invoice at all. */
export type EInvoiceReading =
  | { kind: 'invoice'; invoice: EmbeddedInvoice }
  | { kind: 'malformed'; reason: string }
  | { kind: 'not-an-invoice' };

/** Parses e-invoice XML bytes; never throws. */
export function readEInvoiceXml(bytes: Uint8Array): EInvoiceReading {
  const decoded = decodeXml(bytes);
  if (!decoded.ok) return { kind: 'malformed', reason: decoded.reason };
  const validation = XMLValidator.validate(decoded.text);
  if (validation !== true) return { kind: 'malformed', reason: `${validation.err.msg} (line ${validation.err.line})` };
  let document: XmlNode;
  try {
    document = parser.parse(decoded.text) as XmlNode;
  } catch (error) {
    return { kind: 'malformed', reason: error instanceof Error ? error.message : String(error) };
  }
  const ciiV2 = first(document, 'CrossIndustryInvoice');
  if (ciiV2) return invoiceReading('CII', valuesOfCrossIndustryInvoice(ciiV2));
  const ciiV1 = first(document, 'CrossIndustryDocument');
  if (ciiV1) return invoiceReading('CII', valuesOfCrossIndustryDocument(ciiV1));
  const ublInvoice = first(document, 'Invoice');
  if (ublInvoice) return invoiceReading('UBL', valuesOfUbl(ublInvoice, 'Invoice'));
  const ublCreditNote = first(document, 'CreditNote');
  if (ublCreditNote) return invoiceReading('UBL', valuesOfUbl(ublCreditNote, 'CreditNote'));
  return { kind: 'not-an-invoice' };
}

function invoiceReading(syntax: EmbeddedInvoice['syntax'], read: EInvoiceValues): EInvoiceReading {
  // Profiles without lines (MINIMUM, BASIC WL) carry no line_items: the page's table is used then.
  return { kind: 'invoice', invoice: { syntax, values: read.values, ...(read.lineItems.length > 0 ? { lineItems: read.lineItems } : {}) } };
}

/**
 * Decodes with the encoding the XML declaration names. An encoding no decoder knows is a fatal error for
 * any conforming XML processor, and producers that get the declaration wrong may get the content wrong
 * too, so such a document is treated as malformed rather than guessed at.
 */
export function decodeXml(bytes: Uint8Array): { ok: true; text: string } | { ok: false; reason: string } {
  const hasUtf8Bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const hasUtf16Bom = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  let encoding = 'utf-8';
  if (hasUtf16Bom) encoding = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be';
  else {
    const prolog = new TextDecoder('latin1').decode(bytes.subarray(hasUtf8Bom ? 3 : 0, 300));
    const declared = prolog.match(/^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']/u)?.[1];
    if (declared !== undefined) encoding = declared;
  }
  try {
    const text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
    return { ok: true, text: text.replace(/^\uFEFF/u, '') };
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, reason: `unsupported encoding "${encoding}"` };
    return { ok: false, reason: `bytes are not valid ${encoding}` };
  }
}

// ---- Navigation over the parsed tree (every element is an array of nodes or strings) ----

function children(node: unknown, name: string): unknown[] {
  if (typeof node !== 'object' || node === null) return [];
  const value = (node as XmlNode)[name];
  return Array.isArray(value) ? value : [];
}

/** All nodes reached by following the element names from `node`. */
function all(node: unknown, ...names: string[]): unknown[] {
  return names.reduce<unknown[]>((nodes, name) => nodes.flatMap((current) => children(current, name)), [node]);
}

function first(node: unknown, ...names: string[]): XmlNode | undefined {
  const found = all(node, ...names)[0];
  return typeof found === 'object' && found !== null ? (found as XmlNode) : undefined;
}

function textOf(node: unknown): string | undefined {
  if (typeof node === 'string') return node;
  if (typeof node === 'number') return String(node);
  if (typeof node === 'object' && node !== null) {
    const text = (node as XmlNode)['#text'];
    if (typeof text === 'string' || typeof text === 'number') return String(text);
  }
  return undefined;
}

function attributeOf(node: unknown, name: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const value = (node as XmlNode)[`@${name}`];
  return typeof value === 'string' ? value : undefined;
}

/** First non-empty text at the path, whitespace collapsed (names in CII often span lines). */
function text(node: unknown, ...names: string[]): string | undefined {
  for (const found of all(node, ...names)) {
    const value = textOf(found)?.replace(/\s+/gu, ' ').trim();
    if (value) return value;
  }
  return undefined;
}

function amount(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value.replace(/\s/gu, ''));
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** The amount in the invoice currency when an amount is given in several (CII tax total in tax currency). */
function amountInCurrency(nodes: unknown[], currency: string | undefined): number | undefined {
  const matching = nodes.find((node) => currency !== undefined && attributeOf(node, 'currencyID') === currency) ?? nodes[0];
  return amount(textOf(matching)?.trim());
}

/** CII dates: format 102 is YYYYMMDD; ISO dates (UBL, some CII producers) pass through. */
function isoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const compact = value.match(/^(\d{4})(\d{2})(\d{2})$/u);
  if (compact) return `${compact[1]}-${compact[2]}-${compact[3]}`;
  const iso = value.match(/^(\d{4})-(\d{2})-(\d{2})/u);
  return iso ? `${iso[1]}-${iso[2]}-${iso[3]}` : undefined;
}

function ciiDate(node: unknown, ...names: string[]): string | undefined {
  for (const dateTime of all(node, ...names)) {
    const date = isoDate(text(dateTime, 'DateTimeString') ?? textOf(dateTime)?.trim());
    if (date) return date;
  }
  return undefined;
}

function iban(value: string | undefined): string | undefined {
  return value?.replace(/\s/gu, '').toUpperCase() || undefined;
}

function taxRegistration(party: unknown, scheme: 'VA' | 'FC'): string | undefined {
  const registration = all(party, 'SpecifiedTaxRegistration', 'ID').find((id) => attributeOf(id, 'schemeID') === scheme);
  return textOf(registration)?.trim() || undefined;
}

function documentType(code: string | undefined, fallback: string): string {
  return (code && documentTypeByCode[code]) || fallback;
}

interface EInvoiceValues {
  values: Record<string, string | number>;
  lineItems: EmbeddedLineItem[];
}

function withLineItems(values: Record<string, string | number | undefined>, lineItems: EmbeddedLineItem[]): EInvoiceValues {
  return { values: withoutEmpty(values), lineItems };
}

function withoutEmpty(values: Record<string, string | number | undefined>): Record<string, string | number> {
  return Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== ''));
}

// ---- The three syntaxes ----

/** ZUGFeRD 2.x / Factur-X / XRechnung CII (EN 16931). */
function valuesOfCrossIndustryInvoice(root: XmlNode): EInvoiceValues {
  const header = first(root, 'ExchangedDocument');
  const transaction = first(root, 'SupplyChainTradeTransaction');
  const agreement = first(transaction, 'ApplicableHeaderTradeAgreement');
  const settlement = first(transaction, 'ApplicableHeaderTradeSettlement');
  const totals = first(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  return valuesOfCii({
    profile: text(root, 'ExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID'),
    header,
    agreement,
    delivery: first(transaction, 'ApplicableHeaderTradeDelivery'),
    settlement,
    totals,
    orderReference: text(agreement, 'BuyerOrderReferencedDocument', 'IssuerAssignedID'),
    lineItems: all(transaction, 'IncludedSupplyChainTradeLineItem').flatMap((line) =>
      billedItems(ciiLineItem(line, {
        agreement: 'SpecifiedLineTradeAgreement',
        delivery: 'SpecifiedLineTradeDelivery',
        settlement: 'SpecifiedLineTradeSettlement',
        totals: 'SpecifiedTradeSettlementLineMonetarySummation',
        rate: 'RateApplicablePercent',
      })),
    ),
  });
}

/** ZUGFeRD 1.0. Same vocabulary, older element names. */
function valuesOfCrossIndustryDocument(root: XmlNode): EInvoiceValues {
  const transaction = first(root, 'SpecifiedSupplyChainTradeTransaction');
  const agreement = first(transaction, 'ApplicableSupplyChainTradeAgreement');
  const settlement = first(transaction, 'ApplicableSupplyChainTradeSettlement');
  return valuesOfCii({
    profile: text(root, 'SpecifiedExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID'),
    header: first(root, 'HeaderExchangedDocument'),
    agreement,
    delivery: first(transaction, 'ApplicableSupplyChainTradeDelivery'),
    settlement,
    totals: first(settlement, 'SpecifiedTradeSettlementMonetarySummation'),
    orderReference: text(agreement, 'BuyerOrderReferencedDocument', 'ID'),
    lineItems: all(transaction, 'IncludedSupplyChainTradeLineItem').flatMap((line) =>
      billedItems(ciiLineItem(line, {
        agreement: 'SpecifiedSupplyChainTradeAgreement',
        delivery: 'SpecifiedSupplyChainTradeDelivery',
        settlement: 'SpecifiedSupplyChainTradeSettlement',
        totals: 'SpecifiedTradeSettlementMonetarySummation',
        rate: 'ApplicablePercent',
      })),
    ),
  });
}

interface CiiParts {
  profile: string | undefined;
  header: XmlNode | undefined;
  agreement: XmlNode | undefined;
  delivery: XmlNode | undefined;
  settlement: XmlNode | undefined;
  totals: XmlNode | undefined;
  orderReference: string | undefined;
  lineItems: EmbeddedLineItem[];
}

/** Element names of a CII line's parts: ZUGFeRD 1 and CII D16B name them differently. */
interface CiiLineNames {
  agreement: string;
  delivery: string;
  settlement: string;
  totals: string;
  rate: string;
}

/** One IncludedSupplyChainTradeLineItem as a row of the prebuilt line_items table. */
function ciiLineItem(line: unknown, names: CiiLineNames): EmbeddedLineItem {
  const product = first(line, 'SpecifiedTradeProduct');
  const quantity = first(line, names.delivery, 'BilledQuantity');
  const settlement = first(line, names.settlement);
  return withoutEmptyRow({
    description: text(product, 'Name'),
    product_code: text(product, 'SellerAssignedID') ?? text(product, 'BuyerAssignedID') ?? text(product, 'GlobalID'),
    quantity: amount(textOf(quantity)?.trim()),
    unit: attributeOf(quantity, 'unitCode'),
    unit_price: amount(text(line, names.agreement, 'NetPriceProductTradePrice', 'ChargeAmount')),
    tax_rate: amount(text(settlement, 'ApplicableTradeTax', names.rate)),
    amount: amount(text(settlement, names.totals, 'LineTotalAmount')),
  });
}

/** One UBL InvoiceLine or CreditNoteLine as a row of the prebuilt line_items table. */
function ublLineItem(line: unknown, quantityName: 'InvoicedQuantity' | 'CreditedQuantity'): EmbeddedLineItem {
  const item = first(line, 'Item');
  const quantity = first(line, quantityName);
  return withoutEmptyRow({
    description: text(item, 'Name') ?? text(item, 'Description'),
    product_code: text(item, 'SellersItemIdentification', 'ID') ?? text(item, 'StandardItemIdentification', 'ID'),
    quantity: amount(textOf(quantity)?.trim()),
    unit: attributeOf(quantity, 'unitCode'),
    unit_price: amount(text(line, 'Price', 'PriceAmount')),
    tax_rate: amount(text(item, 'ClassifiedTaxCategory', 'Percent')),
    amount: amount(text(line, 'LineExtensionAmount')),
  });
}

/**
 * The line as an item, or nothing when it has no quantity and nothing to pay: a section heading or a
 * note that an invoicing program wrote as a line (Odoo's "--- Food Products ---"), where the page
 * shows no item either. A free item keeps its quantity, so it stays.
 */
function billedItems(row: EmbeddedLineItem): EmbeddedLineItem[] {
  const billsNothing = (row.amount === undefined || row.amount === 0) && (row.quantity === undefined || row.quantity === 0);
  return billsNothing ? [] : [row];
}

function withoutEmptyRow(values: Record<string, string | number | undefined>): EmbeddedLineItem {
  return withoutEmpty(values);
}

function valuesOfCii(parts: CiiParts): EInvoiceValues {
  const { header, agreement, delivery, settlement, totals } = parts;
  const seller = first(agreement, 'SellerTradeParty');
  const buyer = first(agreement, 'BuyerTradeParty');
  const currency = text(settlement, 'InvoiceCurrencyCode');
  const typeCode = text(header, 'TypeCode');
  return withLineItems({
    profile: parts.profile,
    doc_type_code: typeCode,
    doc_type: documentType(typeCode, 'invoice'),
    invoice_number: text(header, 'ID'),
    issue_date: ciiDate(header, 'IssueDateTime'),
    due_date: ciiDate(settlement, 'SpecifiedTradePaymentTerms', 'DueDateDateTime'),
    delivery_date: ciiDate(delivery, 'ActualDeliverySupplyChainEvent', 'OccurrenceDateTime'),
    currency,
    net_amount: amount(text(totals, 'TaxBasisTotalAmount')),
    tax_amount: amountInCurrency(all(totals, 'TaxTotalAmount'), currency),
    total_amount: amount(text(totals, 'GrandTotalAmount')),
    amount_due: amount(text(totals, 'DuePayableAmount')),
    seller_name: text(seller, 'Name'),
    seller_vat_id: taxRegistration(seller, 'VA'),
    seller_tax_number: taxRegistration(seller, 'FC'),
    buyer_name: text(buyer, 'Name'),
    buyer_vat_id: taxRegistration(buyer, 'VA'),
    buyer_reference: text(agreement, 'BuyerReference'),
    order_reference: parts.orderReference,
    customer_number: text(buyer, 'ID'),
    payment_reference: text(settlement, 'PaymentReference'),
    iban: iban(text(settlement, 'SpecifiedTradeSettlementPaymentMeans', 'PayeePartyCreditorFinancialAccount', 'IBANID')),
    line_item_count: parts.lineItems.length,
  }, parts.lineItems);
}

function ublPartyName(party: unknown): string | undefined {
  return text(party, 'PartyLegalEntity', 'RegistrationName') ?? text(party, 'PartyName', 'Name');
}

function ublVatId(party: unknown): string | undefined {
  const schemes = all(party, 'PartyTaxScheme');
  const vatScheme = schemes.find((scheme) => text(scheme, 'TaxScheme', 'ID')?.toUpperCase() === 'VAT') ?? schemes[0];
  return text(vatScheme, 'CompanyID');
}

/** UBL 2.x Invoice and CreditNote (PEPPOL BIS, XRechnung UBL). */
function valuesOfUbl(root: XmlNode, rootName: 'Invoice' | 'CreditNote'): EInvoiceValues {
  const seller = first(root, 'AccountingSupplierParty', 'Party');
  const customerParty = first(root, 'AccountingCustomerParty');
  const buyer = first(customerParty, 'Party');
  const totals = first(root, 'LegalMonetaryTotal');
  const currency = text(root, 'DocumentCurrencyCode');
  const typeCode = text(root, rootName === 'Invoice' ? 'InvoiceTypeCode' : 'CreditNoteTypeCode');
  const taxAmounts = all(root, 'TaxTotal', 'TaxAmount');
  const lineItems = all(root, rootName === 'Invoice' ? 'InvoiceLine' : 'CreditNoteLine').flatMap((line) => billedItems(ublLineItem(line, rootName === 'Invoice' ? 'InvoicedQuantity' : 'CreditedQuantity')));
  return withLineItems({
    profile: text(root, 'CustomizationID'),
    doc_type_code: typeCode,
    doc_type: documentType(typeCode, rootName === 'Invoice' ? 'invoice' : 'credit_note'),
    invoice_number: text(root, 'ID'),
    issue_date: isoDate(text(root, 'IssueDate')),
    due_date: isoDate(text(root, 'DueDate') ?? text(root, 'PaymentMeans', 'PaymentDueDate')),
    delivery_date: isoDate(text(root, 'Delivery', 'ActualDeliveryDate')),
    currency,
    net_amount: amount(text(totals, 'TaxExclusiveAmount')),
    tax_amount: amountInCurrency(taxAmounts, currency),
    total_amount: amount(text(totals, 'TaxInclusiveAmount')),
    amount_due: amount(text(totals, 'PayableAmount')),
    seller_name: ublPartyName(seller),
    seller_vat_id: ublVatId(seller),
    buyer_name: ublPartyName(buyer),
    buyer_vat_id: ublVatId(buyer),
    buyer_reference: text(root, 'BuyerReference'),
    order_reference: text(root, 'OrderReference', 'ID'),
    customer_number: text(customerParty, 'CustomerAssignedAccountID') ?? text(buyer, 'PartyIdentification', 'ID'),
    payment_reference: text(root, 'PaymentMeans', 'PaymentID'),
    iban: iban(text(root, 'PaymentMeans', 'PayeeFinancialAccount', 'ID')),
    line_item_count: lineItems.length,
  }, lineItems);
}
