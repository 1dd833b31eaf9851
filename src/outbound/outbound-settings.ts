import type { AddressPolicy } from './address-policy.ts';

/**
 * The one switch that relaxes outbound URL safety, for local development and tests: plain http and
 * loopback addresses become reachable. Never set in a deployed stack (the CDK stack does not pass it).
 */
export function allowPrivateUrls(): boolean {
  return process.env.PAPERFLOW_ALLOW_PRIVATE_URLS === 'true';
}

export interface OutboundUrlPolicy extends AddressPolicy {
  allowHttp: boolean;
}

export function outboundUrlPolicyFromEnvironment(): OutboundUrlPolicy {
  const relaxed = allowPrivateUrls();
  return { allowHttp: relaxed, allowLoopback: relaxed };
}
