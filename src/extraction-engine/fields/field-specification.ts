// What the field finder needs to know about a field, whether it comes from a prebuilt type or from a
// workspace's configuration: one shape for both, so both are extracted by the same code.

import type { DuplicatePolicy, FieldValidation } from '../configuration/extraction-configuration-schema.ts';
import type { DateInRange, FieldType, StringShape } from '../values/field-value.ts';
import type { TableColumnSpecification } from './table-specification.ts';

/**
 * Prebuilt fields whose values are also looked for with document-wide evidence beyond their labels
 * (company legal forms, valid IBANs anywhere, the net + tax = total relation, item table rows).
 */
export type FieldRole =
  | 'seller-name'
  | 'buyer-name'
  | 'seller-vat-id'
  | 'buyer-vat-id'
  | 'issue-date'
  | 'net-amount'
  | 'tax-amount'
  | 'total-amount'
  | 'amount-due'
  | 'currency'
  | 'iban'
  | 'document-number'
  | 'line-item-count'
  /** The item table whose rows line-item-count counts. */
  | 'line-items';

export interface FieldSpecification {
  name: string;
  type: FieldType;
  required: boolean;
  /** Label phrases per ISO 639-1 language. */
  labels: Record<string, string[]>;
  /** Phrases that hint at the field but often label something else ("Account holder" for the seller). */
  weakLabels?: Record<string, string[]>;
  patterns: RegExp[];
  allowedValues?: string[];
  shape?: StringShape;
  role?: FieldRole;
  /** Which date of a printed range ("01.09.13 - 30.09.13") a date field takes; the first by default. */
  dateInRange?: DateInRange;
  /** The columns of a `table` field. */
  columns?: TableColumnSpecification[];
}

export interface DocumentTypeSpecification {
  docType: string;
  keywords: Record<string, string[]>;
  /**
   * Weaker routing evidence than keywords (a till's "cashier", "change", "rounding"): each distinct
   * one found adds a little, never weighted up in the title area, so one alone does not route.
   */
  supportingKeywords?: Record<string, string[]>;
  /**
   * The type is printed on narrow paper rolls (till receipts): a first page that holds few characters
   * across is routing evidence for it, whatever its title says, unless the page has one of these
   * labels (a due date, a bank account: a slip that asks to be paid later is an invoice).
   */
  printedOnRolls?: { unlessLabelled: Record<string, string[]> };
  mediaTypes?: string[];
  /** Accepted document languages; undefined accepts any. */
  languages?: string[];
  fields: FieldSpecification[];
  validations: FieldValidation[];
  duplicatePolicy: DuplicatePolicy;
  /**
   * Phrases that are labels of things this type does not extract ("Order Date", "Steuernummer"):
   * they claim their words so that a shorter field label inside them ("Date") does not match there.
   */
  distractorLabels: Record<string, string[]>;
  /**
   * Phrases that show a payment already made ("paid", "deposit", "Anzahlung"). A type that has them
   * owes its total until paid: when no amount due is printed and none of them appears, the amount due
   * is the total. Without them (receipts, which are paid), an amount due is only ever read.
   */
  priorPaymentLabels?: Record<string, string[]>;
  /** The seller's name is the first line of the document (till receipts), not after a label. */
  sellerHeadsDocument?: boolean;
}
