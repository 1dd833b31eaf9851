import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver on loopback for the delivery tests (the stack runs them with
// PAPERFLOW_ALLOW_PRIVATE_URLS=true): each request is read whole, then handed to the test's answer.

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RunningWebhookReceiver {
  /** `http://127.0.0.1:<port>`, without a path. */
  url: string;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  answer: (request: ReceivedWebhook, response: ServerResponse) => void | Promise<void>,
): Promise<RunningWebhookReceiver> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString() };
      void Promise.resolve(answer(received, response)).catch(() => response.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A loopback URL on a port that was just freed: a connection to it is refused. */
export async function refusedConnectionUrl(path: string): Promise<string> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}${path}`;
  await new Promise((resolve) => closed.close(resolve));
  return url;
}
