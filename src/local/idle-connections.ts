import type { Server } from 'node:http';

// The SDK clients and the S3 front keep their connections to the emulators open between requests
// and never close an idle one themselves. Node's servers close a connection after 5 s idle; a request
// written on it in that same instant meets a closed socket ("socket hang up", ECONNRESET), and an
// upload's streamed body cannot be retried, so the caller got a 502. On a loaded machine (event-loop
// lag) that instant widens enough to fail a test now and then. The emulators keep idle connections a
// minute instead, as load balancers in front of S3 do, so a client reuses a connection long before
// the emulator would close it.
const idleConnectionMs = 65_000;

/** Keeps the emulator's idle keep-alive connections open for a minute (see above). */
export function keepIdleConnectionsOpen(server: Server): void {
  server.keepAliveTimeout = idleConnectionMs;
  // Node refuses a request whose headers take longer than this; it must outlast the idle time.
  server.headersTimeout = idleConnectionMs + 1_000;
}
