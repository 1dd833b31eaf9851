import { describe, expect, it } from 'vitest';
import { IdempotencyKeyInUseError, ValidationError } from '../../../../src/platform/errors.ts';
import { IdempotentRequests } from '../../../../src/platform/idempotency/idempotent-requests.ts';
import type { RequestFingerprint } from '../../../../src/platform/idempotency/request-fingerprint.ts';
import { idempotencyKeyScope, openResponse, type RecordedResponse } from '../../../../src/platform/idempotency/sealed-responses.ts';
import { InMemoryIdempotencyKeyStore } from '../../../support/memory/in-memory-idempotency-key-store.ts';

// The key's state machine (src/platform/idempotency/idempotent-requests.ts) over the in-memory store,
// with a clock the test moves: each `sleep` of a waiting request advances it and lets others run.

const hour = 60 * 60 * 1000;

function scenario(options: { onSleep?: (sleeps: number) => void } = {}) {
  const store = new InMemoryIdempotencyKeyStore();
  const clock = { now: Date.parse('2026-11-27T12:00:00Z'), sleeps: 0 };
  const requests = new IdempotentRequests(store, {
    now: () => clock.now,
    sleep: async (milliseconds) => {
      clock.now += milliseconds;
      clock.sleeps += 1;
      options.onSleep?.(clock.sleeps);
      await new Promise((resolve) => setImmediate(resolve));
    },
  });
  return { store, clock, requests };
}

function known(fingerprint: string): RequestFingerprint {
  return { known: fingerprint, read: async () => fingerprint, afterRun: async () => fingerprint };
}

/** A streamed body: its fingerprint is known only once read. */
function streamed(fingerprint: string | undefined): RequestFingerprint & { reads: number } {
  const result = { known: undefined, reads: 0, read: async () => (result.reads++, fingerprint), afterRun: async () => fingerprint };
  return result;
}

const created = (id: string): RecordedResponse => ({ status: 201, headers: {}, body: { id, signingSecret: 'whsec_c2VjcmV0' } });

function counting(response: RecordedResponse | (() => Promise<RecordedResponse>)) {
  const execute = async () => {
    execute.calls += 1;
    return typeof response === 'function' ? response() : response;
  };
  execute.calls = 0;
  return execute;
}

describe('IdempotentRequests', () => {
  it('runs the first request and replays its answer to the same request, without running it again', async () => {
    const { requests } = scenario();
    const execute = counting(created('sub_1'));

    const first = await requests.run('ws_a', 'key-1', known('fp'), execute);
    const again = await requests.run('ws_a', 'key-1', known('fp'), execute);

    expect(first).toEqual({ response: created('sub_1'), replayed: false });
    expect(again).toEqual({ response: created('sub_1'), replayed: true });
    expect(execute.calls).toBe(1);
  });

  it('refuses a different request with an answered key: 422 naming Idempotency-Key, nothing run', async () => {
    const { requests } = scenario();
    const execute = counting(created('sub_1'));
    await requests.run('ws_a', 'key-1', known('fp'), execute);

    const refused = requests.run('ws_a', 'key-1', known('other'), execute);

    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({ details: [{ field: 'Idempotency-Key' }] });
    expect(execute.calls).toBe(1);
  });

  it('refuses a different request while the first still runs, without waiting', async () => {
    const { requests, clock } = scenario();
    let finishFirst!: () => void;
    const first = requests.run('ws_a', 'key-1', known('fp'), () => new Promise((resolve) => (finishFirst = () => resolve(created('sub_1')))));
    await new Promise((resolve) => setImmediate(resolve));

    await expect(requests.run('ws_a', 'key-1', known('other'), counting(created('sub_2')))).rejects.toBeInstanceOf(ValidationError);
    expect(clock.sleeps).toBe(0);
    finishFirst();
    await first;
  });

  it('lets a concurrent same request wait for the first answer and replay it', async () => {
    let finishFirst!: () => void;
    const { requests } = scenario({ onSleep: (sleeps) => sleeps === 3 && finishFirst() });
    const second = counting(created('sub_2'));

    const first = requests.run('ws_a', 'key-1', known('fp'), () => new Promise((resolve) => (finishFirst = () => resolve(created('sub_1')))));
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = await requests.run('ws_a', 'key-1', known('fp'), second);

    expect(waiting).toEqual({ response: created('sub_1'), replayed: true });
    expect(second.calls).toBe(0);
    expect((await first).replayed).toBe(false);
  });

  it('answers 409, retryable after a second, when the first outlasts the wait', async () => {
    const { requests, clock } = scenario();
    void requests.run('ws_a', 'key-1', known('fp'), () => new Promise<RecordedResponse>(() => undefined));
    await new Promise((resolve) => setImmediate(resolve));
    const startedAt = clock.now;

    const refused = requests.run('ws_a', 'key-1', known('fp'), counting(created('sub_2')));

    await expect(refused).rejects.toBeInstanceOf(IdempotencyKeyInUseError);
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 1 });
    expect(clock.now - startedAt).toBeGreaterThanOrEqual(5_000);
  });

  it('a streamed request waiting on a first reads its own body only to compare with the answer', async () => {
    let finishFirst!: () => void;
    const { requests } = scenario({ onSleep: (sleeps) => sleeps === 2 && finishFirst() });
    const mine = streamed('fp');

    void requests.run('ws_a', 'key-1', streamed('fp'), () => new Promise((resolve) => (finishFirst = () => resolve(created('sub_1')))));
    await new Promise((resolve) => setImmediate(resolve));
    const replayed = await requests.run('ws_a', 'key-1', mine, counting(created('sub_2')));

    expect(replayed.replayed).toBe(true);
    expect(mine.reads).toBe(1);
  });

  it('frees the key after a 5xx answer, so a retry runs', async () => {
    const { requests } = scenario();
    const failing = counting({ status: 502, headers: {}, body: { error: { code: 'DOWNSTREAM_ERROR' } } });
    const succeeding = counting(created('sub_1'));

    const first = await requests.run('ws_a', 'key-1', known('fp'), failing);
    const retry = await requests.run('ws_a', 'key-1', known('fp'), succeeding);

    expect(first).toMatchObject({ response: { status: 502 }, replayed: false });
    expect(retry).toEqual({ response: created('sub_1'), replayed: false });
  });

  it('frees the key when the request throws, and passes the error on', async () => {
    const { requests, store } = scenario();

    await expect(requests.run('ws_a', 'key-1', known('fp'), () => Promise.reject(new Error('bug')))).rejects.toThrow('bug');

    expect(store.records.size).toBe(0);
  });

  it('keeps and replays a 4xx answer', async () => {
    const { requests } = scenario();
    const refusal: RecordedResponse = { status: 422, headers: {}, body: { error: { code: 'VALIDATION_FAILED', message: 'm', retryable: false } } };
    const execute = counting(refusal);

    await requests.run('ws_a', 'key-1', known('fp'), execute);
    const again = await requests.run('ws_a', 'key-1', known('fp'), execute);

    expect(again).toEqual({ response: refusal, replayed: true });
    expect(execute.calls).toBe(1);
  });

  it('frees the key when a streamed body was refused before it all arrived (nothing to compare a retry with)', async () => {
    const { requests, store } = scenario();

    const answer = await requests.run('ws_a', 'key-1', streamed(undefined), counting({ status: 413, headers: {}, body: {} }));

    expect(answer.response.status).toBe(413);
    expect(store.records.size).toBe(0);
  });

  it('takes over a claim whose claimant is gone (lease run out)', async () => {
    const { requests, clock } = scenario();
    void requests.run('ws_a', 'key-1', known('fp'), () => new Promise<RecordedResponse>(() => undefined));
    await new Promise((resolve) => setImmediate(resolve));
    clock.now += 2 * 60 * 1000;
    const execute = counting(created('sub_2'));

    const answer = await requests.run('ws_a', 'key-1', known('fp'), execute);

    expect(answer).toEqual({ response: created('sub_2'), replayed: false });
  });

  it('forgets an answered key after 24 hours', async () => {
    const { requests, clock } = scenario();
    const execute = counting(created('sub_1'));
    await requests.run('ws_a', 'key-1', known('fp'), execute);

    clock.now += 24 * hour - 1;
    expect((await requests.run('ws_a', 'key-1', known('fp'), execute)).replayed).toBe(true);
    clock.now += 1;
    expect((await requests.run('ws_a', 'key-1', known('other'), execute)).replayed).toBe(false);
    expect(execute.calls).toBe(2);
  });

  it('keeps keys per workspace', async () => {
    const { requests } = scenario();
    const execute = counting(created('sub_1'));

    await requests.run('ws_a', 'key-1', known('fp'), execute);
    const elsewhere = await requests.run('ws_b', 'key-1', known('other'), execute);

    expect(elsewhere.replayed).toBe(false);
    expect(execute.calls).toBe(2);
  });

  it('stores the answer sealed: no secret in the record, and only the same key opens it', async () => {
    const { requests, store } = scenario();
    await requests.run('ws_a', 'key-1', known('fp'), counting(created('sub_1')));

    const [record] = [...store.records.values()];

    expect(JSON.stringify(record)).not.toContain('whsec_');
    expect(JSON.stringify(record)).not.toContain('key-1');
    if (record?.state !== 'COMPLETED') throw new Error('expected an answered key');
    expect(openResponse(record.response, 'key-1', idempotencyKeyScope('ws_a', 'key-1'))).toEqual(created('sub_1'));
    expect(() => openResponse(record.response, 'key-2', idempotencyKeyScope('ws_a', 'key-1'))).toThrow();
  });
});
