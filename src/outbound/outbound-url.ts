import { ipLiteralOf, isAddressAllowed } from './address-policy.ts';
import type { OutboundUrlPolicy } from './outbound-settings.ts';

export interface OutboundUrlRules {
  /** Document URLs refuse fragments (DESIGN.md); webhook endpoints ignore the question. */
  refuseFragment: boolean;
  /**
   * false leaves the host to a later check under the deployment's policy: a request schema checks only
   * the URL's form, so the policy's answer (https first, then the address) is the one the caller sees.
   */
  checkHost?: boolean;
}

export type OutboundUrlCheck = { ok: true; url: URL } | { ok: false; issue: string };

// Host names that always mean this machine, whatever DNS says.
const localHostNames = /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)\.?$|\.localhost\.?$/i;

/**
 * What can be decided from the URL text alone, so the API can answer 422 before accepting anything:
 * scheme, user info, fragment, and hosts that are IP literals (in any of the numeric spellings the
 * WHATWG parser normalises: 0x7f.1, 2130706433, 0177.0.0.1, [::ffff:127.0.0.1]) or local names.
 * Names that resolve to bad addresses are caught at send time by the outbound fetch.
 */
export function checkOutboundUrl(raw: string, rules: OutboundUrlRules, policy: OutboundUrlPolicy): OutboundUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, issue: 'must be an absolute URL' };
  }
  const schemeAllowed = url.protocol === 'https:' || (policy.allowHttp && url.protocol === 'http:');
  if (!schemeAllowed) return { ok: false, issue: 'must use https' };
  if (url.username !== '' || url.password !== '') return { ok: false, issue: 'must not contain user credentials' };
  if (rules.refuseFragment && (url.hash !== '' || raw.includes('#'))) return { ok: false, issue: 'must not contain a fragment' };
  if (url.hostname === '') return { ok: false, issue: 'must name a host' };
  if (rules.checkHost === false) return { ok: true, url };
  const literal = ipLiteralOf(url.hostname);
  if (literal !== undefined) {
    if (!isAddressAllowed(literal, policy)) return { ok: false, issue: 'must not point to a private, loopback or reserved address' };
  } else if (localHostNames.test(url.hostname) && !policy.allowLoopback) {
    return { ok: false, issue: 'must not point to a private, loopback or reserved address' };
  }
  return { ok: true, url };
}
