import { createHash, randomBytes } from 'node:crypto';

// Keys are shown to their owner once and stored only as a SHA-256 hash: a leaked table reveals no key.
const apiKeyPrefix = 'pf_live_';
const wellFormedApiKey = /^pf_live_[A-Za-z0-9_-]{16,128}$/;

export function generateApiKeySecret(): string {
  return apiKeyPrefix + randomBytes(32).toString('base64url');
}

export function isWellFormedApiKey(secret: string): boolean {
  return wellFormedApiKey.test(secret);
}

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Enough of a key to recognise it in a listing, never enough to use it. */
export function displayPrefixOf(secret: string): string {
  return `${secret.slice(0, apiKeyPrefix.length + 4)}…`;
}

/** `Authorization: api-key <key>`; the scheme is case-insensitive as in RFC 9110. */
export function apiKeyFromAuthorizationHeader(header: string | undefined): string | undefined {
  const match = /^api-key[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}
