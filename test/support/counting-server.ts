import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// The SSRF suites' witness that no connection was opened: an HTTP server on a loopback address that
// counts every TCP connection it accepts (a TLS hello to it counts too), before any request is read.

export interface CountingServer {
  server: Server;
  port: number;
  /** The local address of each accepted connection, in order. */
  accepted: string[];
  /** The path of each HTTP request it answered. */
  requested: string[];
  close(): Promise<void>;
}

export interface CountingServerAnswer {
  status: number;
  location?: string;
  body?: Buffer | string;
  contentType?: string;
}

export async function countingServer(
  host: string,
  port = 0,
  respond: (path: string) => CountingServerAnswer = () => ({ status: 200 }),
): Promise<CountingServer> {
  const accepted: string[] = [];
  const requested: string[] = [];
  const server = createServer((request, response) => {
    requested.push(request.url ?? '/');
    const { status, location, body, contentType } = respond(request.url ?? '/');
    response.writeHead(status, { ...(location ? { location } : {}), ...(contentType ? { 'content-type': contentType } : {}) }).end(body ?? 'ok');
  });
  server.on('connection', (socket) => accepted.push(socket.localAddress ?? ''));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    accepted,
    requested,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
