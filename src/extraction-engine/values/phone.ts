// Phone numbers to E.164 ("+4960519164410") where the country is known from a "+"/"00" prefix or
// the document's language; otherwise the digits as printed, since guessing a country is worse.

const CALLING_CODES_BY_LANGUAGE: Record<string, string> = {
  de: '49', fr: '33', nl: '31', pl: '48', es: '34', it: '39', da: '45', sv: '46', fi: '358', cs: '420',
};

export interface PhoneContext {
  /** ISO 639-1 language; only used when the language maps to one country's calling code. */
  language?: string;
}

export function parsePhone(text: string, context: PhoneContext = {}): string | undefined {
  const trimmed = text.trim().replace(/^(?:tel|phone|telefon|tél|fax|mobile?)\.?\s*:?\s*/i, '');
  if (!/^[+(]?[\d\s().\-/]{6,}$/.test(trimmed)) return undefined;
  const withoutOptionalZero = trimmed.replace(/\(0\)/g, '');
  const digits = withoutOptionalZero.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 15) return undefined;
  if (withoutOptionalZero.startsWith('+')) return `+${digits}`;
  if (digits.startsWith('00')) return `+${digits.slice(2)}`;
  const callingCode = context.language ? CALLING_CODES_BY_LANGUAGE[context.language] : undefined;
  if (callingCode && digits.startsWith('0') && !digits.startsWith('00')) return `+${callingCode}${digits.slice(1)}`;
  return digits;
}
