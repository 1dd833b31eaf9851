import { mkdir } from 'node:fs/promises';
import type { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';
import type { S3Event } from 'aws-lambda';
import { join } from 'node:path';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { startFauxqs } from 'fauxqs';
import { makeFauxqsCommitsUnsynced } from './fauxqs-commits.ts';
import { keepIdleConnectionsOpen } from './idle-connections.ts';
import { makeS3rverWritesAtomic } from './s3rver-atomic-writes.ts';
import { makeDynaliteWritesAtomic } from './dynalite-atomic-writes.ts';
import { startS3PostPolicyFront } from './s3-post-policy-front.ts';
import { availablePort, listenPreferring, type KeptPorts } from './kept-ports.ts';
import { s3rverCredentials, type EmulatorHooks, type RunningEmulators } from './emulator-endpoints.ts';

/**
 * In-process emulators for the AWS services the stack uses, with their data on disk under `dataDir`
 * so a restart keeps it: dynalite (DynamoDB on LevelDB), s3rver (S3, behind a front that checks
 * upload forms' policies) and fauxqs (SQS).
 *
 * What a killed process (kill -9) keeps: LevelDB hands each write to the operating system (its log)
 * before dynalite answers, and fauxqs commits each queue change to SQLite's WAL as it happens, so an
 * acknowledged write survives (fauxqs-commits.ts: without an fsync per commit, which held the thread
 * 5 ms each). dynalite wrote an item and its index entries as separate writes, so a kill between
 * them left indexes disagreeing with their items for good; here it writes them as one batch
 * (dynalite-atomic-writes.ts). s3rver answered a PUT while the last bytes could still be on
 * their way to the object's file, so a kill could leave an object short; here an object is written
 * beside its place and renamed into it before the PUT is answered (s3rver-atomic-writes.ts). Nothing
 * is synced to disk on every write: a power loss may lose the last writes, as for any local database.
 */
export async function startEmulators(dataDir: string, hooks: EmulatorHooks = {}, preferredPorts: KeptPorts = {}): Promise<RunningEmulators> {
  await mkdir(join(dataDir, 's3'), { recursive: true });
  await mkdir(join(dataDir, 'sqs'), { recursive: true });

  makeDynaliteWritesAtomic();
  makeS3rverWritesAtomic();
  await makeFauxqsCommitsUnsynced();
  const dynamo: Server = dynalite({ path: join(dataDir, 'dynamodb'), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const dynamoPort = await listenPreferring(dynamo, preferredPorts.dynamodb);
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dataDir, 's3') });
  const s3Address = (await s3.run()) as AddressInfo;
  keepIdleConnectionsOpen(dynamo);
  keepIdleConnectionsOpen((s3 as unknown as { httpServer: Server }).httpServer);
  // S3rver is a Koa application, hence an EventEmitter; its typings leave that out.
  (s3 as unknown as EventEmitter).on('event', (event: S3Event) => {
    if (event.Records.every((record) => record.eventName.startsWith('ObjectCreated:'))) hooks.onObjectCreated?.(event);
  });
  // The S3 endpoint is a front that enforces upload forms' policies, as S3 does and s3rver does not.
  const s3Front = await startS3PostPolicyFront(
    s3Address.port,
    (accessKeyId) => (accessKeyId === s3rverCredentials.accessKeyId ? s3rverCredentials.secretAccessKey : undefined),
    preferredPorts.s3,
  );
  const sqsPort = await availablePort(preferredPorts.sqs);
  const sqs = await listeningOnLoopbackOnly(() => startFauxqs({ port: sqsPort, logger: false, dataDir: join(dataDir, 'sqs') }));

  return {
    endpoints: {
      dynamodb: `http://127.0.0.1:${dynamoPort}`,
      s3: s3Front.url,
      sqs: `http://127.0.0.1:${sqs.port}`,
    },
    async stop() {
      await Promise.allSettled([
        new Promise<void>((resolve) => {
          dynamo.closeAllConnections?.();
          dynamo.close(() => resolve());
        }),
        s3Front.close().then(() => s3.close()),
        sqs.stop(),
      ]);
    },
  };
}

/**
 * Runs `start` with every wildcard listen turned into a loopback one. fauxqs 2.4.1 listens on
 * `0.0.0.0` whatever its options say (its `host` only names queue URLs), which would open the local
 * queues to the network; the emulators are for this machine only, like everything the stack opens.
 * Nothing else listens on the emulator thread while `start` runs, so only fauxqs is affected.
 */
async function listeningOnLoopbackOnly<T>(start: () => Promise<T>): Promise<T> {
  const listen = NetServer.prototype.listen;
  // fastify (under fauxqs) listens with an options object; the lifecycle test checks every port.
  NetServer.prototype.listen = function listenOnLoopback(this: NetServer, ...args: unknown[]) {
    const [options] = args;
    if (options && typeof options === 'object' && ['0.0.0.0', '::', undefined].includes((options as { host?: string }).host)) {
      args[0] = { ...options, host: '127.0.0.1' };
    }
    return (listen as (...listenArgs: unknown[]) => NetServer).apply(this, args);
  } as typeof listen;
  try {
    return await start();
  } finally {
    NetServer.prototype.listen = listen;
  }
}
