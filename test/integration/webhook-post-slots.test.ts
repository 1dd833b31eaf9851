import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxConcurrentPostsFrom, WebhookSender, type WebhookRequest } from '../../src/webhooks/webhook-sender.ts';

// The process's bound on POSTs in flight (PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS): a receiver on
// loopback that holds every request until the test answers it.

let server: Server;
let port: number;
const held: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => held.push(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (deliveryId: string): WebhookRequest => ({
  endpointUrl: `http://127.0.0.1:${port}/slots`,
  body: '{}',
  eventId: 'evt_1',
  eventType: 'workflow.run.completed',
  deliveryId,
  attempt: 1,
});
const sign = () => ({ 'X-Paperflow-Signature': 't=1,v1=x' });
const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('POST slots', () => {
  it('sends no more POSTs at once than the slots allow; a waiting one starts its clock and timeout when it gets one', async () => {
    // A send reads the clock first thing once it has a slot: the reads count the sends that started.
    let clockReads = 0;
    const now = () => new Date(Date.UTC(2026, 2, 1, 10, 0, clockReads++));
    const sender = new WebhookSender({ timeoutMs: 300, policy: () => ({ allowHttp: true, allowLoopback: true }), slots: pLimit(2), now });

    const sends = ['dlv_1', 'dlv_2', 'dlv_3'].map((id) => sender.send(request(id), sign));
    await until(() => held.length === 2);
    expect(clockReads).toBe(2);
    // The first two time out; the third was waiting, not sending, so it gets its turn with a whole timeout.
    const [first, second] = await Promise.all(sends.slice(0, 2));
    expect([first!.error?.kind, second!.error?.kind]).toEqual(['timeout', 'timeout']);
    await until(() => held.length === 3);
    held[2]!.writeHead(200).end('ok');
    const third = await sends[2]!;
    // It waited out both timeouts and still succeeded: its own timeout and clock began with its slot.
    expect(third).toMatchObject({ outcome: 'succeeded', responseStatus: 200, startedAt: '2026-03-01T10:00:02.000Z' });
    expect(clockReads).toBe(3);
  });

  it('reads the bound from the environment: 100 by default, a positive whole number otherwise refused', () => {
    expect(maxConcurrentPostsFrom(undefined)).toBe(100);
    expect(maxConcurrentPostsFrom(' ')).toBe(100);
    expect(maxConcurrentPostsFrom('25')).toBe(25);
    for (const wrong of ['0', '-3', '2.5', 'many']) expect(() => maxConcurrentPostsFrom(wrong)).toThrow(/PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS/);
  });
});
