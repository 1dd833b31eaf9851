import { fetchOutbound, OutboundRequestError, type HostResolver, type OutboundConnectionPool, type OutboundFailureKind } from '../outbound/outbound-fetch.ts';
import type { OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import { deliveryRequestHeaders } from './delivery-headers.ts';
import type { AttemptError, AttemptErrorKind, AttemptResult } from './delivery-records.ts';

/** The signature headers of one request (the pure signature module, bound to the subscription's secret). */
export type SignRequest = (body: string, eventId: string, timestamp: number) => Record<string, string>;

export interface WebhookRequest {
  endpointUrl: string;
  /** The event envelope, exactly as `GET /events/{id}` shows it. */
  body: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
}

export interface WebhookSenderSettings {
  timeoutMs: number;
  policy: () => OutboundUrlPolicy;
  now?: () => Date;
  resolveHost?: HostResolver;
  /** Kept-alive connections shared by the sends of this process (each still resolved, checked and pinned). */
  connections?: OutboundConnectionPool;
  /**
   * Runs each POST when one of the process's POST slots is free (PostSlots): a send waits for a
   * slot before its clock starts, so a burst waits in line instead of timing out on a busy process.
   */
  slots?: PostSlots;
}

/** Runs `post` once fewer than a fixed number of others are running (p-limit's limit function). */
export type PostSlots = <T>(post: () => Promise<T>) => Promise<T>;

/** Only the start of a receiver's answer is kept (DESIGN.md: the first 4 KB). */
export const recordedResponseBytes = 4 * 1024;

export const webhookTimeoutVariable = 'PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS';
export const defaultWebhookTimeoutSeconds = 10;

const redacted = '[redacted]';

/** `PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS` (default 10): a positive number of seconds, else a start-up error. */
export function webhookTimeoutMsFrom(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return defaultWebhookTimeoutSeconds * 1000;
  const seconds = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(seconds > 0)) {
    throw new Error(`${webhookTimeoutVariable} must be a positive number of seconds (default ${defaultWebhookTimeoutSeconds}); got "${raw}".`);
  }
  return Math.round(seconds * 1000);
}

export const maxConcurrentPostsVariable = 'PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS';
export const defaultMaxConcurrentPosts = 100;

/** `PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS` (default 100): a positive whole number, else a start-up error. */
export function maxConcurrentPostsFrom(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return defaultMaxConcurrentPosts;
  if (!/^[1-9]\d*$/.test(raw.trim())) {
    throw new Error(`${maxConcurrentPostsVariable} must be a positive whole number (default ${defaultMaxConcurrentPosts}); got "${raw}".`);
  }
  return Number(raw);
}

const errorKindByFailure: Record<OutboundFailureKind, AttemptErrorKind> = {
  'refused-url': 'blocked address',
  'refused-address': 'blocked address',
  dns: 'dns',
  connection: 'connection refused',
  tls: 'tls',
  timeout: 'timeout',
  'too-large': 'http status',
  'too-many-redirects': 'redirect',
};

/**
 * One POST of a delivery: the envelope with the delivery headers and the signature, through the
 * outbound guard (the endpoint's address resolved, checked and pinned now, not when the subscription
 * was saved), no redirects followed, one deadline for the whole exchange. Whatever happens on the
 * wire becomes the attempt's result; only a fault of our own is thrown.
 */
export class WebhookSender {
  private readonly now: () => Date;

  constructor(private readonly settings: WebhookSenderSettings) {
    this.now = settings.now ?? (() => new Date());
  }

  async send(request: WebhookRequest, sign: SignRequest): Promise<AttemptResult> {
    return this.settings.slots ? this.settings.slots(() => this.post(request, sign)) : this.post(request, sign);
  }

  private async post(request: WebhookRequest, sign: SignRequest): Promise<AttemptResult> {
    const started = this.now();
    const timestamp = Math.floor(started.getTime() / 1000);
    const signatureHeaders = sign(request.body, request.eventId, timestamp);
    const headers = deliveryRequestHeaders(request, signatureHeaders);
    const requestHeaders = { ...headers };
    for (const name of Object.keys(signatureHeaders)) if (/signature/i.test(name)) requestHeaders[name] = redacted;
    const startedAt = started.toISOString();
    const clockStart = performance.now();
    const elapsed = () => Math.round(performance.now() - clockStart);
    try {
      const response = await fetchOutbound(
        { url: request.endpointUrl, method: 'POST', headers, body: request.body },
        {
          policy: this.settings.policy(),
          urlRules: { refuseFragment: false },
          timeoutMs: this.settings.timeoutMs,
          maxResponseBytes: recordedResponseBytes,
          oversizedBody: 'truncate',
          maxRedirects: 0,
          resolveHost: this.settings.resolveHost,
          connections: this.settings.connections,
        },
      );
      const succeeded = response.status >= 200 && response.status <= 299;
      return {
        startedAt,
        durationMs: elapsed(),
        requestHeaders,
        responseStatus: response.status,
        responseBody: response.body.toString('utf8'),
        error: succeeded ? null : statusError(response.status, response.headers.location),
        outcome: succeeded ? 'succeeded' : 'failed',
      };
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      return {
        startedAt,
        durationMs: elapsed(),
        requestHeaders,
        responseStatus: null,
        responseBody: null,
        error: { kind: errorKindByFailure[error.kind], message: error.message },
        outcome: 'failed',
      };
    }
  }
}

function statusError(status: number, location: string | undefined): AttemptError {
  if (status >= 300 && status <= 399) {
    return { kind: 'redirect', message: `The endpoint answered HTTP ${status}${location ? ` to ${location}` : ''}; redirects are not followed.` };
  }
  return { kind: 'http status', message: `The endpoint answered HTTP ${status}.` };
}
