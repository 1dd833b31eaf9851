import { createHmac, timingSafeEqual } from 'node:crypto';

// Pure: raw body and headers in, headers or a verdict out; no clock, no I/O. Two schemes are sent on
// every delivery (DESIGN.md, docs/webhooks.md), so receivers can verify with what they already have:
// - `X-Paperflow-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed by the secret
//   string as UTF-8: Stripe's format, which `stripe.webhooks.constructEvent` verifies.
// - Standard Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
//   "<id>.<t>.<body>">`, keyed by the base64-decoded part of the secret after `whsec_`.

export const signingSecretPrefix = 'whsec_';

/** Five minutes either way, as Stripe and Standard Webhooks verify by default. */
export const defaultToleranceSeconds = 300;

export interface WebhookSignatureInput {
  /** The subscription's signing secret, `whsec_` + base64. */
  secret: string;
  /**
   * The secret a rotation replaced, while its overlap lasts: the request is signed with both, so a
   * receiver verifying with either accepts it (two `v1=` values, two space-separated signatures).
   */
  previousSecret?: string;
  /** The event id: the Standard Webhooks message id, the same on every attempt. */
  eventId: string;
  /** The exact bytes that are sent as the request body. */
  body: string | Buffer;
  /** Send time, in Unix seconds. */
  timestamp: number;
}

export interface WebhookSignatureHeaders {
  'X-Paperflow-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signWebhook(input: WebhookSignatureInput): WebhookSignatureHeaders {
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) throw new TypeError('timestamp must be whole Unix seconds.');
  const timestamp = String(input.timestamp);
  const body = bodyBytes(input.body);
  const secrets = input.previousSecret === undefined ? [input.secret] : [input.secret, input.previousSecret];
  const paperflow = secrets.map((secret) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex'));
  const standard = secrets.map((secret) => createHmac('sha256', standardWebhooksKeyOf(secret)).update(`${input.eventId}.${timestamp}.`).update(body).digest('base64'));
  return {
    'X-Paperflow-Signature': [`t=${timestamp}`, ...paperflow.map((signature) => `v1=${signature}`)].join(','),
    'webhook-id': input.eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': standard.map((signature) => `v1,${signature}`).join(' '),
  };
}

export type WebhookSignatureFailure = 'malformed-header' | 'timestamp-outside-tolerance' | 'no-matching-signature';

/** Why a delivery's signature was refused; a receiver answers 400 (or 401) and drops the payload. */
export class WebhookSignatureError extends Error {
  constructor(
    readonly reason: WebhookSignatureFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export interface VerifyOptions {
  /** How far the signed time may be from `now`, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock, in Unix seconds (default: the system clock, read once). */
  now?: number;
}

/**
 * Verifies an `X-Paperflow-Signature` header against the raw body as received: any of the header's
 * `v1` values may match (more than one is sent while a secret is being rotated); the comparison is
 * constant-time. Returns the signed timestamp; throws `WebhookSignatureError` otherwise.
 */
export function verifyPaperflowSignature(body: string | Buffer, header: string | undefined, secret: string, options: VerifyOptions = {}): { timestamp: number } {
  const { timestamp, signatures } = parseSignatureHeader(header);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? defaultToleranceSeconds;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(bodyBytes(body)).digest();
  const matches = signatures.some((signature) => {
    const candidate = Buffer.from(signature, 'hex');
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
  if (!matches) throw new WebhookSignatureError('no-matching-signature', 'No v1 signature matches the body and the secret.');
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookSignatureError('timestamp-outside-tolerance', `The signature's timestamp is more than ${tolerance} s from now.`);
  }
  return { timestamp };
}

function parseSignatureHeader(header: string | undefined): { timestamp: number; signatures: string[] } {
  if (header === undefined || header.trim() === '') throw new WebhookSignatureError('malformed-header', 'The X-Paperflow-Signature header is missing.');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (separator < 0) continue;
    if (name === 't' && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined) throw new WebhookSignatureError('malformed-header', 'The signature header has no timestamp t=<unix seconds>.');
  if (signatures.length === 0) throw new WebhookSignatureError('malformed-header', 'The signature header has no v1=<hex> signature.');
  return { timestamp, signatures };
}

function standardWebhooksKeyOf(secret: string): Buffer {
  if (!secret.startsWith(signingSecretPrefix)) throw new TypeError(`A signing secret starts with ${signingSecretPrefix}.`);
  return Buffer.from(secret.slice(signingSecretPrefix.length), 'base64');
}

function bodyBytes(body: string | Buffer): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}
