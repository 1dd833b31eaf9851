import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulators } from '../../src/local/emulator-endpoints.ts';
import { startEmulators } from '../../src/local/emulators.ts';

// A client that keeps its connection to an emulator open while idle (as the SDK does) must find it
// still open a few seconds later: Node's default closed it after 5 s, and a request written in that
// instant failed with "socket hang up" (an upload answered 502 in the review console test, once).

let dataDir: string;
let emulators: RunningEmulators;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'paperflow-connections-'));
  emulators = await startEmulators(dataDir);
});

afterAll(async () => {
  await emulators?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** One GET on the agent's connection; resolves with the local port of the socket that carried it. */
function get(url: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(outgoing.socket?.localPort ?? -1));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the embedded emulators', () => {
  it.each(['s3', 'dynamodb'] as const)('keep an idle keep-alive connection open past Node\'s 5 s default (%s)', async (name) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const closedByServer: number[] = [];
    agent.on('free', (socket) => socket.once('close', () => closedByServer.push(socket.localPort ?? -1)));

    const first = await get(`${emulators.endpoints[name]}/`, agent);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const second = await get(`${emulators.endpoints[name]}/`, agent);
    agent.destroy();

    expect(closedByServer).not.toContain(first);
    expect(second).toBe(first);
  });
});
