import { readFile, rename, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';

// The embedded emulators' ports, kept in the data folder from one start to the next. What the stack
// hands out names them: a pre-signed `contentUrl` (valid 15 minutes) or upload form points at the S3
// port, the console's Content-Security-Policy allows it, the connection file gives all of them to the
// admin CLI. Random ports at every start broke each of those across a restart; the first start picks
// free ports, later starts ask for the same ones. A kept port that something else took meanwhile is
// replaced by a free one, and the stack says so (what was minted for the old port stops working).

export const keptEndpointNames = ['dynamodb', 's3', 'sqs', 'sfn'] as const;
export type KeptEndpointName = (typeof keptEndpointNames)[number];
export type KeptPorts = Partial<Record<KeptEndpointName, number>>;

const keptPortsFileName = 'local-ports.json';

/** The ports the last start used; none (a first start, or a file that cannot be read) is `{}`. */
export async function readKeptPorts(dataDir: string): Promise<KeptPorts> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(join(dataDir, keptPortsFileName), 'utf8'));
  } catch {
    return {};
  }
  const ports: KeptPorts = {};
  for (const name of keptEndpointNames) {
    const port = (value as Record<string, unknown> | null)?.[name];
    if (typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65_536) ports[name] = port;
  }
  return ports;
}

export async function writeKeptPorts(dataDir: string, ports: KeptPorts): Promise<void> {
  const path = join(dataDir, keptPortsFileName);
  await writeFile(`${path}.partial`, JSON.stringify(ports, null, 2));
  await rename(`${path}.partial`, path);
}

/** The port of an endpoint URL such as `http://127.0.0.1:45123`. */
export function portOf(endpoint: string): number {
  return Number(new URL(endpoint).port);
}

/**
 * Listens on `preferredPort` when it is free, else (EADDRINUSE) on a free port; undefined asks for a
 * free port at once. Resolves with the port listened on.
 */
export async function listenPreferring(server: Server, preferredPort: number | undefined, host = '127.0.0.1'): Promise<number> {
  const listenOn = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        resolve();
      });
    });
  try {
    await listenOn(preferredPort ?? 0);
  } catch (error) {
    if (preferredPort === undefined || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    await listenOn(0);
  }
  return (server.address() as AddressInfo).port;
}

/**
 * `preferredPort` when nothing listens there now, else a free port, for a server that listens by
 * itself and cannot be handed a listening socket (fauxqs). Another process could take the port in the
 * moment between; the emulator's start then fails with EADDRINUSE, as any start on a taken port does.
 */
export async function availablePort(preferredPort: number | undefined, host = '127.0.0.1'): Promise<number> {
  const probe = createServer();
  const port = await listenPreferring(probe, preferredPort, host);
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
