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

let configuredPolicy: () => OutboundUrlPolicy = () => strictOutboundUrlPolicy;

/**
 * Where the policy of the running process comes from. The composition root sets it once; the builders
 * it wires pass the policy in as a parameter. Only what is built at import time and so cannot be given
 * one (the request schemas of the route table, the admin CLI's publishing default) asks here.
 */
export function useOutboundUrlPolicy(source: () => OutboundUrlPolicy): void {
  configuredPolicy = source;
}

/** The policy of the running process: strict until the composition root says otherwise. */
export function configuredOutboundUrlPolicy(): OutboundUrlPolicy {
  return configuredPolicy();
}
