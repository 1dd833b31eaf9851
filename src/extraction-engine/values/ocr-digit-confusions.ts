// Digits OCR mistakes for one another on receipts and scans, for repairs that look for the one reading
// the page's own evidence supports: a date that exists, a line that multiplies to its amount.

/**
 * Closed loops read as open ones (6, 8, 9 for 0), a thin 1 for a 7, a 3 for the left half of an 8. Each
 * digit as read maps to the digits it may have been.
 */
export const CONFUSED_DIGITS: Readonly<Record<string, string>> = {
  '0': '689',
  '1': '7',
  '2': '7',
  '3': '8',
  '4': '1',
  '5': '6',
  '6': '058',
  '7': '1',
  '8': '0369',
  '9': '08',
};

/** Each text with one digit replaced by a digit OCR may have read it for. */
export function withOneDigitConfused(text: string): string[] {
  const readings: string[] = [];
  for (let position = 0; position < text.length; position += 1) {
    for (const replacement of CONFUSED_DIGITS[text[position]!] ?? '') readings.push(text.slice(0, position) + replacement + text.slice(position + 1));
  }
  return readings;
}
