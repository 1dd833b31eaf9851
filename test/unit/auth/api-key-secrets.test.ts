import { describe, expect, it } from 'vitest';
import {
  apiKeyFromAuthorizationHeader,
  displayPrefixOf,
  generateApiKeySecret,
  hashApiKey,
  isWellFormedApiKey,
} from '../../../src/auth/api-key-secrets.ts';

describe('API key secrets', () => {
  it('generates well-formed, distinct keys', () => {
    const first = generateApiKeySecret();
    const second = generateApiKeySecret();

    expect(first).toMatch(/^pf_live_[A-Za-z0-9_-]{43}$/);
    expect(isWellFormedApiKey(first)).toBe(true);
    expect(first).not.toBe(second);
  });

  it('stores a SHA-256 hash, never the key', () => {
    const hash = hashApiKey('pf_live_abcdefghijklmnop');

    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain('abcdefghijklmnop');
  });

  it('shows only a short prefix in listings', () => {
    expect(displayPrefixOf('pf_live_abcdefghijklmnop')).toBe('pf_live_abcd…');
  });

  it.each([
    ['api-key pf_live_abc', 'pf_live_abc'],
    ['API-KEY   pf_live_abc', 'pf_live_abc'],
    ['Bearer pf_live_abc', undefined],
    ['api-key', undefined],
    ['api-key a b', undefined],
    [undefined, undefined],
  ])('reads %j as %j', (header, expected) => {
    expect(apiKeyFromAuthorizationHeader(header)).toBe(expected);
  });
});
