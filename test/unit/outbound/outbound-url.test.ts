import { describe, expect, it } from 'vitest';
import { checkOutboundUrl } from '../../../src/outbound/outbound-url.ts';

const strict = { allowHttp: false, allowLoopback: false };
const local = { allowHttp: true, allowLoopback: true };
const documentRules = { refuseFragment: true };

describe('checkOutboundUrl', () => {
  it('accepts a public https URL', () => {
    const result = checkOutboundUrl('https://example.com/invoices/1.pdf?x=1', documentRules, strict);
    expect(result.ok).toBe(true);
  });

  it.each([
    ['http://example.com/a.pdf', 'must use https'],
    ['ftp://example.com/a.pdf', 'must use https'],
    ['file:///etc/passwd', 'must use https'],
    ['not a url', 'must be an absolute URL'],
    ['https://user:secret@example.com/a.pdf', 'must not contain user credentials'],
    ['https://user@example.com/a.pdf', 'must not contain user credentials'],
    ['https://example.com/a.pdf#page=2', 'must not contain a fragment'],
    ['https://example.com/a.pdf#', 'must not contain a fragment'],
  ])('refuses %s', (url, issue) => {
    expect(checkOutboundUrl(url, documentRules, strict)).toEqual({ ok: false, issue });
  });

  it.each([
    'https://127.0.0.1/a.pdf',
    'https://127.1/a.pdf',
    'https://2130706433/a.pdf',
    'https://0x7f000001/a.pdf',
    'https://0x7f.0.0.1/a.pdf',
    'https://0177.0.0.1/a.pdf',
    'https://%31%32%37.0.0.1/a.pdf',
    'https://[::1]/a.pdf',
    'https://[::ffff:127.0.0.1]/a.pdf',
    'https://[::ffff:a9fe:a9fe]/latest/meta-data',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/a.pdf',
    'https://192.168.0.10/a.pdf',
    'https://100.64.1.1/a.pdf',
    'https://[fd00::1]/a.pdf',
    'https://[fe80::1]/a.pdf',
    'https://0.0.0.0/a.pdf',
    'https://localhost/a.pdf',
    'https://LOCALHOST./a.pdf',
    'https://api.localhost/a.pdf',
  ])('refuses the private or loopback literal host of %s', (url) => {
    expect(checkOutboundUrl(url, documentRules, strict)).toEqual({
      ok: false,
      issue: 'must not point to a private, loopback or reserved address',
    });
  });

  it('allows http and loopback only with the local setting', () => {
    expect(checkOutboundUrl('http://127.0.0.1:8080/a.pdf', documentRules, local).ok).toBe(true);
    expect(checkOutboundUrl('http://localhost:8080/a.pdf', documentRules, local).ok).toBe(true);
    expect(checkOutboundUrl('http://10.0.0.1/a.pdf', documentRules, local).ok).toBe(false);
  });

  it('lets webhook URLs carry a fragment when the rules allow it', () => {
    expect(checkOutboundUrl('https://example.com/hook#x', { refuseFragment: false }, strict).ok).toBe(true);
  });
});
