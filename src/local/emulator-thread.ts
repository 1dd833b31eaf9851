import { parentPort, workerData } from 'node:worker_threads';
import { startEmulators } from './emulators.ts';
import type { KeptPorts } from './kept-ports.ts';

// The emulators' own thread: s3rver, dynalite and fauxqs do real work per request (hashing,
// LevelDB, XML), and on the gateway's thread they would compete with the handlers they serve.
// Messages: in `stop`; out `ready` (endpoints), `objectCreated` (S3 events), `stopped`, `failed`.
const { dataDir, preferredPorts } = workerData as { dataDir: string; preferredPorts: KeptPorts };
const port = parentPort!;

try {
  const emulators = await startEmulators(dataDir, {
    onObjectCreated: (event) => port.postMessage({ type: 'objectCreated', event }),
  }, preferredPorts);
  port.on('message', async (message: { type: string }) => {
    if (message.type !== 'stop') return;
    await emulators.stop();
    port.postMessage({ type: 'stopped' });
  });
  port.postMessage({ type: 'ready', endpoints: emulators.endpoints });
} catch (error) {
  port.postMessage({ type: 'failed', message: String((error as Error)?.stack ?? error) });
}
