import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyPaperflowSignature, WebhookSignatureError } from '../../../src/webhooks/webhook-signature.ts';

// What we sign is checked with the verifiers receivers really use: Stripe's constructEvent for
// X-Paperflow-Signature and the Standard Webhooks library for the webhook-* headers.

const aSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const stripe = new Stripe('sk_test_unused');
const nowSeconds = () => Math.floor(Date.now() / 1000);

function aDelivery(overrides: Partial<{ secret: string; eventId: string; body: string; timestamp: number }> = {}) {
  return {
    secret: aSecret(),
    eventId: 'evt_01JBZ8Q4Y3N7V6X2K9M5R1T0AB',
    body: JSON.stringify({ eventId: 'evt_01JBZ8Q4Y3N7V6X2K9M5R1T0AB', eventType: 'document-insights.extraction.completed', data: { note: 'é ✓ 😀' } }),
    timestamp: nowSeconds(),
    ...overrides,
  };
}

describe('signWebhook, verified by the stock libraries', () => {
  it('signs X-Paperflow-Signature so that stripe.webhooks.constructEvent accepts it', () => {
    const delivery = aDelivery();

    const headers = signWebhook(delivery);
    const event = stripe.webhooks.constructEvent(delivery.body, headers['X-Paperflow-Signature'], delivery.secret);

    expect(event).toEqual(JSON.parse(delivery.body));
    expect(headers['X-Paperflow-Signature']).toMatch(new RegExp(`^t=${delivery.timestamp},v1=[0-9a-f]{64}$`));
  });

  it('signs the Standard Webhooks headers so that standardwebhooks verifies them', () => {
    const delivery = aDelivery();

    const headers = signWebhook(delivery);
    const payload = new Webhook(delivery.secret).verify(delivery.body, headers);

    expect(payload).toEqual(JSON.parse(delivery.body));
    expect(headers['webhook-id']).toBe(delivery.eventId);
    expect(headers['webhook-timestamp']).toBe(String(delivery.timestamp));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('is refused by both libraries under another secret or for another body', () => {
    const delivery = aDelivery();
    const headers = signWebhook(delivery);

    expect(() => stripe.webhooks.constructEvent(delivery.body, headers['X-Paperflow-Signature'], aSecret())).toThrow();
    expect(() => stripe.webhooks.constructEvent(`${delivery.body} `, headers['X-Paperflow-Signature'], delivery.secret)).toThrow();
    expect(() => new Webhook(aSecret()).verify(delivery.body, headers)).toThrow();
    expect(() => new Webhook(delivery.secret).verify(delivery.body, { ...headers, 'webhook-id': 'evt_other' })).toThrow();
  });

  it('signs with both secrets during a rotation: either one verifies with both libraries, a third does not', () => {
    const delivery = aDelivery();
    const previousSecret = aSecret();

    const headers = signWebhook({ ...delivery, previousSecret });

    expect(headers['X-Paperflow-Signature']).toMatch(new RegExp(`^t=${delivery.timestamp},v1=[0-9a-f]{64},v1=[0-9a-f]{64}$`));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    for (const secret of [delivery.secret, previousSecret]) {
      expect(stripe.webhooks.constructEvent(delivery.body, headers['X-Paperflow-Signature'], secret)).toEqual(JSON.parse(delivery.body));
      expect(new Webhook(secret).verify(delivery.body, headers)).toEqual(JSON.parse(delivery.body));
      expect(verifyPaperflowSignature(delivery.body, headers['X-Paperflow-Signature'], secret, { now: delivery.timestamp })).toEqual({ timestamp: delivery.timestamp });
    }
    expect(() => stripe.webhooks.constructEvent(delivery.body, headers['X-Paperflow-Signature'], aSecret())).toThrow();
    expect(() => new Webhook(aSecret()).verify(delivery.body, headers)).toThrow();
  });

  it('signs the same bytes whether the body is given as text or as a Buffer', () => {
    const delivery = aDelivery();

    expect(signWebhook({ ...delivery, body: Buffer.from(delivery.body) })).toEqual(signWebhook(delivery));
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => signWebhook(aDelivery({ timestamp: Date.now() + 0.5 }))).toThrow(TypeError);
  });
});

describe('verifyPaperflowSignature', () => {
  it('accepts what signWebhook produced and returns the signed time', () => {
    const delivery = aDelivery();
    const headers = signWebhook(delivery);

    expect(verifyPaperflowSignature(delivery.body, headers['X-Paperflow-Signature'], delivery.secret)).toEqual({ timestamp: delivery.timestamp });
  });

  it('accepts a header Stripe generated for the same secret', () => {
    const delivery = aDelivery();
    const header = stripe.webhooks.generateTestHeaderString({ payload: delivery.body, secret: delivery.secret, timestamp: delivery.timestamp });

    expect(verifyPaperflowSignature(delivery.body, header, delivery.secret, { now: delivery.timestamp })).toEqual({ timestamp: delivery.timestamp });
  });

  it('accepts any of several v1 signatures (a secret being rotated)', () => {
    const delivery = aDelivery();
    const signed = signWebhook(delivery)['X-Paperflow-Signature'];
    const header = `t=${delivery.timestamp},v1=${'0'.repeat(64)},${signed.split(',')[1]}`;

    expect(verifyPaperflowSignature(delivery.body, header, delivery.secret, { now: delivery.timestamp }).timestamp).toBe(delivery.timestamp);
  });

  it.each([
    ['another secret', (delivery: ReturnType<typeof aDelivery>) => ({ ...delivery, secret: aSecret() })],
    ['a changed body', (delivery: ReturnType<typeof aDelivery>) => ({ ...delivery, body: delivery.body.replace('completed', 'failed') })],
  ])('refuses %s as no-matching-signature', (_case, change) => {
    const delivery = aDelivery();
    const header = signWebhook(delivery)['X-Paperflow-Signature'];
    const received = change(delivery);

    expect(failureOf(() => verifyPaperflowSignature(received.body, header, received.secret, { now: delivery.timestamp }))).toBe('no-matching-signature');
  });

  it('refuses a timestamp moved without re-signing', () => {
    const delivery = aDelivery();
    const header = signWebhook(delivery)['X-Paperflow-Signature'].replace(`t=${delivery.timestamp}`, `t=${delivery.timestamp + 1}`);

    expect(failureOf(() => verifyPaperflowSignature(delivery.body, header, delivery.secret, { now: delivery.timestamp }))).toBe('no-matching-signature');
  });

  it('refuses a genuine signature outside the tolerance, and accepts it at the edge', () => {
    const delivery = aDelivery({ timestamp: 1_700_000_000 });
    const header = signWebhook(delivery)['X-Paperflow-Signature'];

    expect(verifyPaperflowSignature(delivery.body, header, delivery.secret, { now: 1_700_000_300 }).timestamp).toBe(1_700_000_000);
    expect(failureOf(() => verifyPaperflowSignature(delivery.body, header, delivery.secret, { now: 1_700_000_301 }))).toBe('timestamp-outside-tolerance');
    expect(failureOf(() => verifyPaperflowSignature(delivery.body, header, delivery.secret, { now: 1_700_000_010, toleranceSeconds: 5 }))).toBe(
      'timestamp-outside-tolerance',
    );
  });

  it.each([undefined, '', 'v1=abc', `t=1700000000`, `v1=${'a'.repeat(64)}`, `t=soon,v1=${'a'.repeat(64)}`, `t=1700000000,v1=${'A'.repeat(64)}`])(
    'refuses the malformed header %j',
    (header) => {
      expect(failureOf(() => verifyPaperflowSignature('{}', header, aSecret(), { now: 1_700_000_000 }))).toBe('malformed-header');
    },
  );
});

function failureOf(verify: () => unknown): string | undefined {
  try {
    verify();
  } catch (error) {
    if (error instanceof WebhookSignatureError) return error.reason;
    throw error;
  }
  return undefined;
}
