// The prebuilt invoice and receipt types: field names as in the corpus ground truth and in the
// e-invoice readers' output, so embedded Factur-X/ZUGFeRD/UBL values map one to one.

import type { PrebuiltDocumentType, PrebuiltDocumentTypeConfiguration } from '../configuration/extraction-configuration-schema.ts';
import type { DocumentTypeSpecification, FieldSpecification } from '../fields/field-specification.ts';
import * as labels from './invoice-labels.ts';
import { lineItemColumns } from './line-item-columns.ts';

/** Languages the prebuilt labels cover; documents in others are rejected unless configured. */
export const PREBUILT_LANGUAGES = ['en', 'de', 'fr', 'nl', 'pl', 'es', 'it'] as const;

function field(specification: Omit<FieldSpecification, 'required' | 'patterns'> & Partial<Pick<FieldSpecification, 'required' | 'patterns'>>): FieldSpecification {
  return { required: false, patterns: [], ...specification };
}

const partyAndPaymentFields: FieldSpecification[] = [
  field({ name: 'seller_name', type: 'string', shape: 'party-name', role: 'seller-name', labels: labels.sellerNameLabels, weakLabels: labels.sellerNameWeakLabels }),
  field({ name: 'seller_vat_id', type: 'string', shape: 'vat-id', role: 'seller-vat-id', labels: labels.vatIdLabels }),
  field({ name: 'buyer_name', type: 'string', shape: 'party-name', role: 'buyer-name', labels: labels.buyerNameLabels }),
  field({
    name: 'buyer_vat_id',
    type: 'string',
    shape: 'vat-id',
    role: 'buyer-vat-id',
    labels: mergeLabels(labels.buyerVatIdLabels, labels.vatIdLabels),
  }),
];

function mergeLabels(...sources: labels.LabelsByLanguage[]): labels.LabelsByLanguage {
  const merged: labels.LabelsByLanguage = {};
  for (const source of sources) {
    for (const [language, phrases] of Object.entries(source)) merged[language] = [...(merged[language] ?? []), ...phrases];
  }
  return merged;
}

const amountFields: FieldSpecification[] = [
  field({ name: 'currency', type: 'currency', role: 'currency', labels: labels.currencyLabels }),
  field({ name: 'net_amount', type: 'amount', role: 'net-amount', labels: labels.netAmountLabels }),
  field({ name: 'tax_amount', type: 'amount', role: 'tax-amount', labels: labels.taxAmountLabels }),
  field({ name: 'total_amount', type: 'amount', role: 'total-amount', labels: labels.totalAmountLabels }),
  field({ name: 'amount_due', type: 'amount', role: 'amount-due', labels: labels.amountDueLabels }),
];

export const invoiceSpecification: DocumentTypeSpecification = {
  docType: 'invoice',
  keywords: labels.invoiceKeywords,
  languages: [...PREBUILT_LANGUAGES],
  duplicatePolicy: 'allow',
  distractorLabels: labels.invoiceDistractorLabels,
  priorPaymentLabels: labels.priorPaymentLabels,
  validations: [
    { rule: 'sum', fields: ['net_amount', 'tax_amount'], equals: 'total_amount', tolerance: 0.02 },
    { rule: 'before', field: 'issue_date', other: 'due_date', allowEqual: true },
  ],
  fields: [
    field({ name: 'invoice_number', type: 'string', shape: 'identifier', role: 'document-number', labels: labels.invoiceNumberLabels, weakLabels: labels.documentNumberWeakLabels }),
    field({ name: 'issue_date', type: 'date', role: 'issue-date', labels: labels.issueDateLabels }),
    field({ name: 'due_date', type: 'date', labels: labels.dueDateLabels }),
    field({ name: 'delivery_date', type: 'date', labels: labels.deliveryDateLabels, dateInRange: 'end' }),
    ...amountFields,
    ...partyAndPaymentFields,
    field({ name: 'buyer_reference', type: 'string', shape: 'identifier', labels: labels.buyerReferenceLabels }),
    field({ name: 'order_reference', type: 'string', shape: 'identifier', labels: labels.orderReferenceLabels }),
    field({ name: 'customer_number', type: 'string', shape: 'identifier', labels: labels.customerNumberLabels }),
    field({ name: 'iban', type: 'iban', role: 'iban', labels: labels.ibanLabels }),
    field({ name: 'line_items', type: 'table', role: 'line-items', labels: {}, columns: lineItemColumns }),
    field({ name: 'line_item_count', type: 'integer', role: 'line-item-count', labels: {} }),
  ],
};

function withoutLabels(source: labels.LabelsByLanguage, removed: string[]): labels.LabelsByLanguage {
  return Object.fromEntries(Object.entries(source).map(([language, phrases]) => [language, phrases.filter((phrase) => !removed.includes(phrase))]));
}

/** The amount fields with the totals, nets and distractors tills print. */
const receiptAmountFields: FieldSpecification[] = amountFields.map((amount) => {
  if (amount.role === 'total-amount') return { ...amount, labels: mergeLabels(labels.receiptTotalLabels, amount.labels) };
  // A till's "Net Total" is what is paid after discounts, not an amount before tax.
  if (amount.role === 'net-amount') return { ...amount, labels: withoutLabels(mergeLabels(labels.receiptNetAmountLabels, amount.labels), ['net total']) };
  if (amount.role === 'tax-amount') return { ...amount, labels: mergeLabels(labels.receiptTaxAmountLabels, amount.labels) };
  return amount;
});

/**
 * What asks to be paid later: a due date, payment terms, a bank account to pay into. Not "due" alone:
 * it keys a due date ("Due: 28/10/2026") but also ends "Amount due" and "Balance due", which tills print
 * above the card payment that settles them.
 */
const payLaterLabels = mergeLabels(withoutLabels(labels.dueDateLabels, ['due']), {
  en: ['iban', 'bank account', 'payment terms'],
  de: ['iban', 'bankverbindung', 'zahlungsbedingungen'],
  fr: ['iban', 'rib', 'conditions de paiement'],
  nl: ['iban', 'rekeningnummer', 'betalingsvoorwaarden'],
  pl: ['iban', 'numer rachunku', 'nr rachunku', 'nr konta'],
  es: ['iban', 'condiciones de pago'],
  it: ['iban', 'condizioni di pagamento'],
});

export const receiptSpecification: DocumentTypeSpecification = {
  docType: 'receipt',
  keywords: labels.receiptKeywords,
  supportingKeywords: labels.tillReceiptKeywords,
  printedOnRolls: { unlessLabelled: payLaterLabels },
  languages: [...PREBUILT_LANGUAGES],
  duplicatePolicy: 'allow',
  distractorLabels: mergeLabels(labels.invoiceDistractorLabels, labels.receiptDistractorLabels),
  sellerHeadsDocument: true,
  validations: [{ rule: 'sum', fields: ['net_amount', 'tax_amount'], equals: 'total_amount', tolerance: 0.02 }],
  fields: [
    field({
      name: 'invoice_number',
      type: 'string',
      shape: 'identifier',
      role: 'document-number',
      labels: mergeLabels(labels.receiptNumberLabels, labels.invoiceNumberLabels),
      weakLabels: mergeLabels(labels.documentNumberWeakLabels, labels.receiptKeywords),
    }),
    field({ name: 'issue_date', type: 'date', role: 'issue-date', labels: labels.issueDateLabels }),
    ...receiptAmountFields,
    ...partyAndPaymentFields,
    field({ name: 'order_reference', type: 'string', shape: 'identifier', labels: labels.orderReferenceLabels }),
    field({ name: 'line_items', type: 'table', role: 'line-items', labels: {}, columns: lineItemColumns }),
    field({ name: 'line_item_count', type: 'integer', role: 'line-item-count', labels: {} }),
  ],
};

const PREBUILT_SPECIFICATIONS: Record<PrebuiltDocumentType, DocumentTypeSpecification> = {
  invoice: invoiceSpecification,
  receipt: receiptSpecification,
};

/** The prebuilt type with the workspace's overrides (accepted languages, duplicate policy) applied. */
export function prebuiltSpecification(configuration: PrebuiltDocumentTypeConfiguration): DocumentTypeSpecification {
  const base = PREBUILT_SPECIFICATIONS[configuration.prebuilt];
  return {
    ...base,
    duplicatePolicy: configuration.duplicatePolicy,
    ...(configuration.languages ? { languages: configuration.languages } : {}),
  };
}
