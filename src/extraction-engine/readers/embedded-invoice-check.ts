import type { EmbeddedInvoice } from '../document.ts';

// An e-invoice attachment is meant to say what the page says, but producers do attach sample or stale
// XML (the corpus has two such PDFs). Checking that the invoice number and total are printed on the
// page is cheap and catches that without understanding the layout.

/** The embedded fields that should appear on the page of any invoice that carries them. */
const checkedFields = ['invoice_number', 'total_amount'] as const;

/** Names of checked fields whose embedded value does not appear in the visible text. */
export function embeddedFieldsNotOnPage(invoice: EmbeddedInvoice, visibleText: string): string[] {
  const compactText = visibleText.replace(/\s+/gu, '').toLowerCase();
  return checkedFields.filter((field) => {
    const value = invoice.values[field];
    if (value === undefined) return false;
    const printedForms = typeof value === 'number' ? printedAmounts(value) : [String(value).replace(/\s+/gu, '').toLowerCase()];
    return !printedForms.some((form) => compactText.includes(form));
  });
}

/** Thousands and decimal separators in use; a space as thousands separator disappears with the whitespace. */
const separatorConventions = [
  { thousands: '', decimal: '.' },
  { thousands: '', decimal: ',' },
  { thousands: ',', decimal: '.' },
  { thousands: '.', decimal: ',' },
  { thousands: "'", decimal: '.' },
  { thousands: '’', decimal: '.' },
] as const;

/** The ways an amount is commonly printed: 1589.8 as 1589.80, 1589,80, 1,589.80, 1.589,80, 1'589.80, ... */
export function printedAmounts(amount: number): string[] {
  const [integerDigits = '0', fraction = '00'] = Math.abs(amount).toFixed(2).split('.');
  const forms = separatorConventions.map(
    ({ thousands, decimal }) => `${integerDigits.replace(/\B(?=(\d{3})+(?!\d))/gu, thousands)}${decimal}${fraction}`,
  );
  return [...new Set(forms)];
}
