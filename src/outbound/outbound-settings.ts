import type { AddressPolicy } from './address-policy.ts';

export interface OutboundUrlPolicy extends AddressPolicy {
  allowHttp: boolean;
}

/** The policy of a deployed stack: https only, no loopback, private or reserved address. */
export const strictOutboundUrlPolicy: OutboundUrlPolicy = { allowHttp: false, allowLoopback: false };

/**
 * The one switch that relaxes outbound URL safety, for local development and tests
 * (PAPERFLOW_ALLOW_PRIVATE_URLS=true, read by src/composition/configuration.ts): plain http and
 * loopback addresses become reachable. Never set in a deployed stack (the CDK stack does not pass it).
 */
export function outboundUrlPolicyFor(allowPrivateUrls: boolean): OutboundUrlPolicy {
  return { allowHttp: allowPrivateUrls, allowLoopback: allowPrivateUrls };
}
