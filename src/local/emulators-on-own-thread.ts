import { Worker } from 'node:worker_threads';
import type { S3Event } from 'aws-lambda';
import type { KeptPorts } from './kept-ports.ts';
import type { EmulatorEndpoints, EmulatorHooks, RunningEmulators } from './emulator-endpoints.ts';

/**
 * The emulators of emulators.ts on a worker thread of their own (emulator-thread.ts), so the gateway and the handlers keep the main
 * thread to themselves; ObjectCreated notifications come back as messages.
 */
export async function startEmulatorsOnOwnThread(dataDir: string, hooks: EmulatorHooks = {}, preferredPorts: KeptPorts = {}): Promise<RunningEmulators> {
  // Node 22 strips TypeScript types itself, so the thread runs the .ts module without a loader.
  const worker = new Worker(new URL('./emulator-thread.ts', import.meta.url), { workerData: { dataDir, preferredPorts }, execArgv: [] });
  const endpoints = await new Promise<EmulatorEndpoints>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: EmulatorThreadMessage) => {
      if (message.type === 'ready') resolve(message.endpoints);
      if (message.type === 'failed') reject(new Error(`The emulators did not start: ${message.message}`));
      if (message.type === 'objectCreated') hooks.onObjectCreated?.(message.event);
    });
  });
  return {
    endpoints,
    threadCpuUsage: () => worker.cpuUsage(),
    async stop() {
      const stopped = new Promise<void>((resolve) => {
        worker.on('message', (message: EmulatorThreadMessage) => {
          if (message.type === 'stopped') resolve();
        });
        worker.once('exit', () => resolve());
      });
      worker.postMessage({ type: 'stop' });
      await stopped;
      await worker.terminate();
    },
  };
}

type EmulatorThreadMessage =
  | { type: 'ready'; endpoints: EmulatorEndpoints }
  | { type: 'objectCreated'; event: S3Event }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };
