// E-mail addresses: a pragmatic subset of RFC 5322 that matches what invoices print.

const EMAIL = /[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}/;

export function findEmail(text: string): { email: string; index: number; length: number } | undefined {
  const match = EMAIL.exec(text);
  return match ? { email: match[0].toLowerCase(), index: match.index, length: match[0].length } : undefined;
}

export function parseEmail(text: string): string | undefined {
  const trimmed = text.trim().replace(/^mailto:/i, '');
  const found = findEmail(trimmed);
  return found && found.length === trimmed.length ? found.email : undefined;
}
