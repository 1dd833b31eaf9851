import { parentPort, workerData } from 'node:worker_threads';
import { startEmulators } from './emulators.ts';

// The emulators' own thread: s3rver, dynalite and fauxqs do real work per request (hashing,
// LevelDB, XML), and on the gateway's thread they would compete with the handlers they serve.
// Messages: in `stop`; out `ready` (endpoints), `objectCreated` (S3 events), `stopped`, `failed`.
const { dataDir } = workerData as { dataDir: string };
const port = parentPort!;

try {
  const emulators = await startEmulators(dataDir, {
    onObjectCreated: (event) => port.postMessage({ type: 'objectCreated', event }),
  });
  port.on('message', async (message: { type: string }) => {
    if (message.type !== 'stop') return;
    await emulators.stop();
    port.postMessage({ type: 'stopped' });
  });
  port.postMessage({ type: 'ready', endpoints: emulators.endpoints });
} catch (error) {
  port.postMessage({ type: 'failed', message: String((error as Error)?.stack ?? error) });
}
