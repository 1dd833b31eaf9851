import { mkdtemp, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createServer, type Server } from 'node:net';
import { apiKeyService } from '../../src/composition/auth.ts';
import { ExtractionClient } from '../support/extraction-client.ts';
import { captureLogLines } from '../support/log-lines.ts';
import { bootstrapApiKey, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { sampleCsv } from '../support/sample-files.ts';

describe('the embedded local stack', () => {
  const folders: string[] = [];
  afterAll(async () => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

  it('keeps its data across a restart on the same data folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-restart-'));
    folders.push(dataDir);
    const first = await startStackUnderTest({ dataDir });
    const { record } = await apiKeyService().create({ workspaceId: 'ws_default', name: 'kept', scopes: ['files:read'] });
    await first.stop();

    const second = await startStackUnderTest({ dataDir });
    const keys = await apiKeyService().list('ws_default');
    const document = await second.api('/openapi.json');
    await second.stop();

    expect(keys.map((key) => key.keyId)).toContain(record.keyId);
    expect(document.status).toBe(200);
  });

  it.skipIf(!!process.env.PAPERFLOW_TEST_EXTERNAL_ENDPOINT)('keeps its endpoints across a restart: a contentUrl minted before it still downloads the file after it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-ports-'));
    folders.push(dataDir);
    const first = await startStackUnderTest({ dataDir });
    const fileId = await new ExtractionClient(first, bootstrapApiKey).uploadFile(Buffer.from(sampleCsv), 'kept.csv');
    const { contentUrl } = (await (await first.api(`/files/${fileId}`)).json()) as { contentUrl: string };
    const endpointsBefore = await endpointsOf(first);
    await first.stop();

    const second = await startStackUnderTest({ dataDir });
    try {
      const download = await fetch(contentUrl);

      expect(download.status).toBe(200);
      expect(await download.text()).toBe(sampleCsv);
      expect(await endpointsOf(second)).toEqual(endpointsBefore);
    } finally {
      await second.stop();
    }
  });

  it.skipIf(!!process.env.PAPERFLOW_TEST_EXTERNAL_ENDPOINT)('starts on a free port when a kept one was taken meanwhile, and says so', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-ports-'));
    folders.push(dataDir);
    const first = await startStackUnderTest({ dataDir });
    const keptS3 = await endpointsOf(first).then((endpoints) => endpoints.s3!);
    await first.stop();
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(Number(new URL(keptS3).port), '127.0.0.1', resolve));
    const log = captureLogLines();
    let second: StackUnderTest | undefined;
    try {
      second = await startStackUnderTest({ dataDir });
      const movedS3 = (await endpointsOf(second)).s3!;
      const fileId = await new ExtractionClient(second, bootstrapApiKey).uploadFile(Buffer.from(sampleCsv), 'moved.csv');
      const { contentUrl } = (await (await second.api(`/files/${fileId}`)).json()) as { contentUrl: string };

      expect(movedS3).not.toBe(keptS3);
      expect(new URL(contentUrl).origin).toBe(movedS3);
      expect((await fetch(contentUrl)).status).toBe(200);
      expect(log.lines).toContainEqual(expect.objectContaining({ level: 'warn', endpoint: 's3', keptPort: Number(new URL(keptS3).port), port: Number(new URL(movedS3).port) }));
      // The new port is the one kept for the next start.
      expect(JSON.parse(await readFile(join(dataDir, 'local-ports.json'), 'utf8')).s3).toBe(Number(new URL(movedS3).port));
    } finally {
      log.restore();
      await second?.stop();
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('reports the CPU its emulators\' thread has used, growing as the emulators work (undefined with an external endpoint)', async () => {
    const stack = await startStackUnderTest();
    try {
      const before = await stack.emulatorThreadCpuUsage();
      if (process.env.PAPERFLOW_TEST_EXTERNAL_ENDPOINT) {
        expect(before).toBeUndefined();
        return;
      }
      // Requests the emulators answer on their thread: key lookups of the authorizer, the table behind them.
      for (let request = 0; request < 20; request += 1) await stack.api('/files');
      const after = await stack.emulatorThreadCpuUsage();
      expect(before!.user + before!.system).toBeGreaterThan(0);
      expect(after!.user + after!.system).toBeGreaterThan(before!.user + before!.system);
    } finally {
      await stack.stop();
    }
  });

  it('brings a queue provisioned with other attributes to this version\'s, keeping it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-requeue-'));
    folders.push(dataDir);
    const first = await startStackUnderTest({ dataDir });
    const queueUrl = first.resources.webhookDeliveryQueueUrl;
    await first.stop();

    process.env.PAPERFLOW_DELIVERY_QUEUE_VISIBILITY_TIMEOUT_SECONDS = '7';
    try {
      const second = await startStackUnderTest({ dataDir });
      const { Attributes } = await new SQSClient({ useQueueUrlAsEndpoint: false }).send(
        new GetQueueAttributesCommand({ QueueUrl: second.resources.webhookDeliveryQueueUrl, AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'] }),
      );
      await second.stop();

      expect(second.resources.webhookDeliveryQueueUrl).toBe(queueUrl);
      expect(Attributes?.VisibilityTimeout).toBe('7');
      expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toMatchObject({ maxReceiveCount: 5 });
    } finally {
      delete process.env.PAPERFLOW_DELIVERY_QUEUE_VISIBILITY_TIMEOUT_SECONDS;
    }
  });

  it.runIf(process.platform === 'linux')('listens on the loopback interface only, emulators included', async () => {
    const stack = await startStackUnderTest();
    try {
      const listening = await listeningSocketsOfThisProcess();
      const stackPorts = [stack.port, ...Object.values(JSON.parse(await readFile(join(stack.dataDir, 'local-stack.json'), 'utf8')).endpoints as string[]).map((url) => Number(new URL(url).port))];

      expect(stackPorts).toHaveLength(4);
      expect(listening.map((socket) => socket.port)).toEqual(expect.arrayContaining(stackPorts));
      for (const socket of listening) expect(socket, `port ${socket.port}`).toMatchObject({ address: '127.0.0.1' });
    } finally {
      await stack.stop();
    }
  });

  it('refuses a malformed bootstrap key with a clear message', async () => {
    await expect(startStackUnderTest({ bootstrapApiKey: 'short' })).rejects.toThrow(/pf_live_/);
  });
});

/** The TCP sockets this process listens on (threads included), from /proc: the kernel's own view. */
async function listeningSocketsOfThisProcess(): Promise<{ address: string; port: number }[]> {
  const socketInodes = new Set<string>();
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) socketInodes.add(inode);
  }
  const sockets: { address: string; port: number }[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const line of lines) {
      const columns = line.trim().split(/\s+/);
      const [localAddress, , state, , , , , , inode] = columns.slice(1);
      if (state !== '0A' || !socketInodes.has(inode!)) continue; // 0A: LISTEN
      const [hexAddress, hexPort] = localAddress!.split(':');
      sockets.push({ address: addressOf(hexAddress!), port: parseInt(hexPort!, 16) });
    }
  }
  return sockets;
}

/** /proc/net/tcp writes addresses as little-endian hex words: 0100007F is 127.0.0.1. */
function addressOf(hex: string): string {
  if (hex.length === 8) return (hex.match(/../g) ?? []).reverse().map((byte) => parseInt(byte, 16)).join('.');
  if (/^0{24}0100007F$/i.test(hex)) return '127.0.0.1'; // IPv4-mapped in tcp6
  if (/^0{24}01000000$/i.test(hex)) return '::1';
  return `[${hex}]`;
}

/** The emulators' endpoints the running stack wrote to its connection file for other processes. */
async function endpointsOf(stack: StackUnderTest): Promise<Record<string, string>> {
  return JSON.parse(await readFile(join(stack.dataDir, 'local-stack.json'), 'utf8')).endpoints;
}
