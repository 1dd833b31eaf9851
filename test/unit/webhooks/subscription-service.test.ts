import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../../../src/platform/errors.ts';
import { outboundUrlPolicyFor, strictOutboundUrlPolicy, type OutboundUrlPolicy } from '../../../src/outbound/outbound-settings.ts';
import { SubscriptionService } from '../../../src/webhooks/subscription-service.ts';
import { StoredSubscriptionLookup } from '../../../src/webhooks/subscription-lookup.ts';
import { SigningSecretCipher } from '../../../src/webhooks/subscription-secrets.ts';
import { InMemoryDataKeys } from '../../support/memory/data-keys.ts';
import { InMemorySubscriptionQuota, InMemorySubscriptionStore } from '../../support/memory/webhook-subscriptions.ts';
import { captureLogLines, type CapturedLogLines } from '../../support/log-lines.ts';

// The subscription service over the in-memory store, quota and data keys (no emulator): what a caller
// of the subscriptions API sees, and what the delivery engine then reads.

let log: CapturedLogLines | undefined;
afterEach(() => {
  log?.restore();
  log = undefined;
});

const request = { name: 'Hook', endpointUrl: 'https://hooks.example.com/h', eventTypes: ['workflow.run.failed' as const] };

function aService(options: { limit?: number; now?: () => Date; endpointUrlPolicy?: OutboundUrlPolicy } = {}) {
  const store = new InMemorySubscriptionStore();
  const quota = new InMemorySubscriptionQuota(options.limit);
  const keys = new InMemoryDataKeys();
  const released: string[] = [];
  const service = new SubscriptionService({
    store,
    quota,
    cipher: () => new SigningSecretCipher(keys),
    releaseHeldDeliveries: async (subscriptionId) => {
      released.push(subscriptionId);
      return 1;
    },
    endpointUrlPolicy: options.endpointUrlPolicy ?? strictOutboundUrlPolicy,
    now: options.now,
  });
  const lookup = (now?: () => Date) => new StoredSubscriptionLookup(store, () => new SigningSecretCipher(keys), now);
  return { service, store, quota, released, lookup };
}

describe('the endpoint URL under the deployment\'s policy', () => {
  const refusal = async (created: Promise<unknown>) => {
    const error = await created.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details;
  };

  it.each([
    ['http', 'http://hooks.example.com/x', 'must use https'],
    ['plain http to the metadata address (https is said first, as for any URL)', 'http://169.254.169.254/latest', 'must use https'],
    ['a loopback literal', 'https://127.0.0.1/x', 'must not point to a private, loopback or reserved address'],
    ['a loopback in another spelling', 'https://0x7f.1/x', 'must not point to a private, loopback or reserved address'],
    ['a private literal', 'https://10.0.0.8/x', 'must not point to a private, loopback or reserved address'],
    ['the metadata address', 'https://169.254.169.254/latest', 'must not point to a private, loopback or reserved address'],
    ['an IPv6 loopback', 'https://[::1]/x', 'must not point to a private, loopback or reserved address'],
    ['localhost', 'https://localhost/x', 'must not point to a private, loopback or reserved address'],
  ])('refuses %s deployed, writing nothing and taking no quota slot', async (_case, endpointUrl, issue) => {
    const { service, store, quota } = aService();

    expect(await refusal(service.createSubscription('ws_a', { ...request, endpointUrl }))).toEqual([{ field: 'endpointUrl', issue }]);
    expect(await store.listWorkspace('ws_a')).toEqual([]);
    expect([...quota.slotsOf('ws_a')]).toEqual([]);
  });

  it('refuses the same in an update, leaving the subscription as it was', async () => {
    const { service } = aService();
    const created = await service.createSubscription('ws_a', request);

    expect(await refusal(service.updateSubscription('ws_a', created.id, { endpointUrl: 'https://192.168.0.1/h' }))).toEqual([
      { field: 'endpointUrl', issue: 'must not point to a private, loopback or reserved address' },
    ]);
    expect(await service.getSubscription('ws_a', created.id)).toMatchObject({ endpointUrl: request.endpointUrl });
  });

  it('lets http and loopback through where local development allows private URLs', async () => {
    const { service } = aService({ endpointUrlPolicy: outboundUrlPolicyFor(true) });

    const created = await service.createSubscription('ws_a', { ...request, endpointUrl: 'http://127.0.0.1:9999/hooks' });
    const updated = await service.updateSubscription('ws_a', created.id, { endpointUrl: 'http://localhost:9999/other' });

    expect(updated.endpointUrl).toBe('http://localhost:9999/other');
  });
});

describe('SubscriptionService over in-memory adapters', () => {
  it('creates an active subscription, shows its secret once, stores it only encrypted and takes a quota slot', async () => {
    const { service, store, quota } = aService();

    const created = await service.createSubscription('ws_a', request);

    expect(created).toMatchObject({ name: 'Hook', status: 'active', filters: {}, signingSecret: expect.stringMatching(/^whsec_/) });
    expect(await service.getSubscription('ws_a', created.id)).not.toHaveProperty('signingSecret');
    expect(JSON.stringify([...store.subscriptions.values()])).not.toContain(created.signingSecret.slice('whsec_'.length, 20));
    expect(await service.signingSecretOf('ws_a', created.id)).toBe(created.signingSecret);
    expect([...quota.slotsOf('ws_a')]).toEqual([created.id]);
  });

  it('refuses a create beyond the quota with 409, writing nothing', async () => {
    const { service, store } = aService({ limit: 2 });
    await service.createSubscription('ws_a', request);
    await service.createSubscription('ws_a', request);

    await expect(service.createSubscription('ws_a', request)).rejects.toThrow(ConflictError);

    expect(await store.listWorkspace('ws_a')).toHaveLength(2);
    // Another workspace has its own quota.
    await expect(service.createSubscription('ws_b', request)).resolves.toMatchObject({ status: 'active' });
  });

  it('gives the slot back when the write fails after the reservation', async () => {
    const { service, store, quota } = aService();
    store.failNextCreate = true;

    await expect(service.createSubscription('ws_a', request)).rejects.toThrow('could not be written');

    expect(quota.slotsOf('ws_a').size).toBe(0);
    expect(await store.listWorkspace('ws_a')).toEqual([]);
  });

  it('frees the slot on delete; a second delete is 404', async () => {
    const { service, quota } = aService({ limit: 1 });
    const created = await service.createSubscription('ws_a', request);

    await service.deleteSubscription('ws_a', created.id);

    expect(quota.slotsOf('ws_a').size).toBe(0);
    await expect(service.deleteSubscription('ws_a', created.id)).rejects.toThrow(NotFoundError);
    await expect(service.createSubscription('ws_a', request)).resolves.toMatchObject({ status: 'active' });
  });

  it('answers a delete whose slot release fails, and logs it', async () => {
    const { service, quota } = aService();
    const created = await service.createSubscription('ws_a', request);
    quota.failNextRelease = true;
    log = captureLogLines();

    await expect(service.deleteSubscription('ws_a', created.id)).resolves.toBeUndefined();

    await expect(service.getSubscription('ws_a', created.id)).rejects.toThrow(NotFoundError);
    expect(log.lines.filter((line) => line.level === 'warn')).toEqual([expect.objectContaining({ subscriptionId: created.id })]);
  });

  it("answers another workspace's subscription as a missing one", async () => {
    const { service } = aService();
    const created = await service.createSubscription('ws_a', request);

    await expect(service.getSubscription('ws_b', created.id)).rejects.toThrow(NotFoundError);
    await expect(service.updateSubscription('ws_b', created.id, { name: 'taken' })).rejects.toThrow(NotFoundError);
    await expect(service.rotateSigningSecret('ws_b', created.id)).rejects.toThrow(NotFoundError);
    await expect(service.deleteSubscription('ws_b', created.id)).rejects.toThrow(NotFoundError);
    await expect(service.signingSecretOf('ws_b', created.id)).rejects.toThrow(NotFoundError);
    expect(await service.getSubscription('ws_a', created.id)).toMatchObject({ name: 'Hook' });
  });

  it('releases held deliveries when a subscription is set active, not when it is paused', async () => {
    const { service, released } = aService();
    const created = await service.createSubscription('ws_a', request);

    await service.updateSubscription('ws_a', created.id, { status: 'paused' });
    expect(released).toEqual([]);
    const resumed = await service.updateSubscription('ws_a', created.id, { status: 'active' });

    expect(resumed.status).toBe('active');
    expect(released).toEqual([created.id]);
  });

  it("the sweeper releases once more what a resume older than its grace held, then clears the resume's mark", async () => {
    let now = new Date('2026-05-01T10:00:00.000Z');
    const { service, released } = aService({ now: () => now });
    const resumed = await service.createSubscription('ws_a', request);
    const pausedAgain = await service.createSubscription('ws_a', request);
    await service.updateSubscription('ws_a', resumed.id, { status: 'active' });
    await service.updateSubscription('ws_a', pausedAgain.id, { status: 'active' });
    await service.updateSubscription('ws_a', pausedAgain.id, { status: 'paused' });
    released.length = 0;

    // Within the grace: nothing yet.
    expect(await service.releaseHeldOfResumed(60_000)).toEqual({ subscriptions: 0, released: 0 });
    now = new Date(now.getTime() + 61_000);
    const first = await service.releaseHeldOfResumed(60_000);
    const second = await service.releaseHeldOfResumed(60_000);

    expect(first).toEqual({ subscriptions: 1, released: 1 });
    expect(released).toEqual([resumed.id]);
    expect(second).toEqual({ subscriptions: 0, released: 0 });
  });

  it('rotates the secret: both sign during the overlap, whose end is a whole second; the old one is then removed on first read', async () => {
    let now = new Date('2026-05-01T10:00:00.400Z');
    const { service, store, lookup } = aService({ now: () => now });
    const created = await service.createSubscription('ws_a', request);

    const rotated = await service.rotateSigningSecret('ws_a', created.id, 1);

    expect(rotated).toEqual({ subscriptionId: created.id, signingSecret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: '2026-05-01T11:00:00.000Z' });
    expect(rotated.signingSecret).not.toBe(created.signingSecret);
    const during = await lookup(() => now).findWithSecret('ws_a', created.id);
    expect(during).toMatchObject({ secret: rotated.signingSecret, previousSecret: { secret: created.signingSecret, expiresAt: '2026-05-01T11:00:00.000Z' } });

    now = new Date('2026-05-01T11:00:00.000Z');
    const after = await lookup(() => now).findWithSecret('ws_a', created.id);
    expect(after).toEqual({ subscription: expect.objectContaining({ id: created.id }), secret: rotated.signingSecret });
    expect((await store.getForDelivery('ws_a', created.id))?.previousSecret).toBeUndefined();
  });

  it('a rotation without overlap removes the old secret at once, and a rotation within an overlap keeps only the latest previous one', async () => {
    const { service, lookup } = aService();
    const created = await service.createSubscription('ws_a', request);

    const first = await service.rotateSigningSecret('ws_a', created.id, 24);
    const second = await service.rotateSigningSecret('ws_a', created.id, 24);
    expect((await lookup().findWithSecret('ws_a', created.id))?.previousSecret?.secret).toBe(first.signingSecret);

    const immediate = await service.rotateSigningSecret('ws_a', created.id, 0);
    expect(immediate.previousSecretExpiresAt).toBeNull();
    expect(await lookup().findWithSecret('ws_a', created.id)).toEqual({ subscription: expect.objectContaining({ id: created.id }), secret: immediate.signingSecret });
    expect(second.signingSecret).not.toBe(immediate.signingSecret);
  });

  it('answers 404 for ids that cannot exist', async () => {
    const { service } = aService();

    for (const id of ['sub_1', 'ext_01JZ0000000000000000000000', 'x'.repeat(2000)]) {
      await expect(service.getSubscription('ws_a', id)).rejects.toThrow(NotFoundError);
      await expect(service.updateSubscription('ws_a', id, { name: 'x' })).rejects.toThrow(NotFoundError);
      await expect(service.deleteSubscription('ws_a', id)).rejects.toThrow(NotFoundError);
      await expect(service.rotateSigningSecret('ws_a', id)).rejects.toThrow(NotFoundError);
    }
  });
});
