import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest, type ClientRequestArgs, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { ipLiteralOf, isAddressAllowed } from './address-policy.ts';
import { checkOutboundUrl, type OutboundUrlRules } from './outbound-url.ts';
import type { OutboundUrlPolicy } from './outbound-settings.ts';

export type OutboundFailureKind =
  | 'refused-url'
  | 'refused-address'
  | 'dns'
  | 'connection'
  | 'tls'
  | 'timeout'
  | 'too-large'
  | 'too-many-redirects';

/** Why an outbound request did not produce a response. `transient` failures may succeed on retry. */
export class OutboundRequestError extends Error {
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'OutboundRequestError';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface OutboundOptions {
  policy: OutboundUrlPolicy;
  urlRules: OutboundUrlRules;
  /** The whole exchange, redirects and body included. */
  timeoutMs: number;
  maxResponseBytes: number;
  /**
   * A body over `maxResponseBytes` is refused (`too-large`, the default) or cut to its first
   * `maxResponseBytes` (webhooks keep the start of a receiver's answer and nothing more).
   */
  oversizedBody?: 'refuse' | 'truncate';
  /** 0 returns a 3xx response as it is (webhooks); otherwise each hop is checked like the first. */
  maxRedirects: number;
  resolveHost?: HostResolver;
  /** Kept-alive connections to reuse; without it every request opens (and closes) its own. */
  connections?: OutboundConnectionPool;
}

/** The address a request's host was resolved to and checked against the policy: part of its pool key. */
type PinnedRequestOptions = ClientRequestArgs & { pinnedAddress?: string };

// An agent keys its idle connections by host and port; these add the checked address, so a connection
// opened to one address is never handed to a request whose host now resolves to another.
class PinnedHttpAgent extends HttpAgent {
  override getName(options?: PinnedRequestOptions): string {
    return `${super.getName(options)}:${options?.pinnedAddress ?? ''}`;
  }
}
class PinnedHttpsAgent extends HttpsAgent {
  override getName(options?: RequestOptions & PinnedRequestOptions): string {
    return `${super.getName(options)}:${options?.pinnedAddress ?? ''}`;
  }
}

/** Idle kept-alive connections are closed after this, below the 5 s that Node servers keep them by default. */
const idleConnectionMs = 4_000;

/**
 * Kept-alive connections for a sender of many requests to few endpoints (webhook deliveries): a new
 * TCP (and TLS) handshake per request costs both sides more than the request itself. Every request is
 * still resolved and checked first; it reuses only a connection to the very address it was pinned to.
 */
export class OutboundConnectionPool {
  readonly http = new PinnedHttpAgent({ keepAlive: true, timeout: idleConnectionMs });
  readonly https = new PinnedHttpsAgent({ keepAlive: true, timeout: idleConnectionMs });

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
  /** The body was longer than `maxResponseBytes` and cut (only with `oversizedBody: 'truncate'`). */
  truncated: boolean;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

const systemResolver: HostResolver = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

let resolverOverride: HostResolver | undefined;

/**
 * Answers DNS for every outbound fetch in this process that names no resolver of its own (document
 * downloads, webhook deliveries, web_function steps): how the embedded local stack's tests point host
 * names at addresses of their choosing (LocalStackOptions.resolveHost). Never set in a deployment;
 * `undefined` restores the system resolver.
 */
export function overrideHostResolver(resolver: HostResolver | undefined): void {
  resolverOverride = resolver;
}

/** The resolver in force when the lookup happens (not when a handler's wiring was built). */
const processResolver: HostResolver = (hostname) => (resolverOverride ?? systemResolver)(hostname);

/**
 * A resolver that asks DNS once per host name for as long as it is kept, then answers from memory:
 * the webhook consumer builds one per invocation, whose up to 250 POSTs mostly go to a few hosts, and
 * each lookup is a getaddrinfo on libuv's small thread pool. Only the lookup is shared: every request
 * still checks every address of the answer against its policy and connects to the one it checked
 * (`fetchOutbound`), and a new invocation asks DNS again. A failed lookup is not remembered.
 */
export function lookupsRememberedFor(resolve: HostResolver = processResolver): HostResolver {
  const answers = new Map<string, Promise<ResolvedAddress[]>>();
  return (hostname) => {
    let answer = answers.get(hostname);
    if (!answer) {
      answer = resolve(hostname);
      answers.set(hostname, answer);
      answer.catch(() => answers.delete(hostname));
    }
    return answer;
  };
}

/**
 * An HTTP(S) request to a caller-supplied URL that cannot be turned against the service: the host is
 * resolved once, every address it resolves to must be public, and the connection goes to the address
 * that was checked (a second DNS answer cannot rebind it). Redirects are checked the same way, the
 * response body is capped while it streams, and one deadline covers the whole exchange.
 */
export async function fetchOutbound(request: OutboundRequest, options: OutboundOptions): Promise<OutboundResponse> {
  // A timer cleared when the exchange ends, rather than AbortSignal.timeout's, which stays armed (and
  // weakly tracked) for the whole timeout after every request: a webhook consumer sends hundreds a second.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), options.timeoutMs);
  timer.unref();
  try {
    return await exchangeWithRedirects(request, options, timeout.signal);
  } finally {
    clearTimeout(timer);
  }
}

async function exchangeWithRedirects(request: OutboundRequest, options: OutboundOptions, deadline: AbortSignal): Promise<OutboundResponse> {
  const resolveHost = options.resolveHost ?? processResolver;
  let current = request;
  for (let hop = 0; ; hop += 1) {
    const response = await exchange(current, options, resolveHost, deadline);
    const location = response.message.headers.location;
    if (!redirectStatuses.has(response.message.statusCode ?? 0) || location === undefined || options.maxRedirects === 0) {
      const { body, truncated } = await readCapped(response.message, options.maxResponseBytes, options.oversizedBody ?? 'refuse', deadline);
      return { status: response.message.statusCode ?? 0, headers: headersOf(response.message), body, truncated, url: current.url };
    }
    response.message.resume();
    if (hop >= options.maxRedirects) throw new OutboundRequestError('too-many-redirects', `More than ${options.maxRedirects} redirects.`, false);
    const next = new URL(location, current.url);
    next.hash = ''; // a fragment in Location is for the client, never sent
    const keepsMethod = response.message.statusCode === 307 || response.message.statusCode === 308;
    current = keepsMethod
      ? { ...current, url: next.href }
      : { url: next.href, method: current.method === 'HEAD' ? 'HEAD' : 'GET', headers: withoutBodyHeaders(current.headers) };
  }
}

async function exchange(
  request: OutboundRequest,
  options: OutboundOptions,
  resolveHost: HostResolver,
  deadline: AbortSignal,
): Promise<{ message: IncomingMessage }> {
  const checked = checkOutboundUrl(request.url, options.urlRules, options.policy);
  if (!checked.ok) throw new OutboundRequestError('refused-url', `The URL ${checked.issue}.`, false);
  const url = checked.url;
  const target = await resolveChecked(url.hostname, options, resolveHost);
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const agents = options.connections;
  const requestOptions: RequestOptions & PinnedRequestOptions = {
    method: request.method ?? 'GET',
    host: hostname,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers: request.headers,
    lookup: pinnedLookup,
    signal: deadline,
    agent: agents ? (url.protocol === 'https:' ? agents.https : agents.http) : false,
    pinnedAddress: target.address,
    // TLS still verifies the certificate for the name in the URL, not for the pinned address.
    ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const attempt = (sendOptions: RequestOptions) =>
    new Promise<{ message: IncomingMessage }>((resolvePromise, reject) => {
      const outgoing = send(sendOptions, (message) => resolvePromise({ message }));
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        // An idle connection the server closed as this request went out: the server read nothing of it,
        // so it goes once more, on a connection of its own.
        if (outgoing.reusedSocket && error.code === 'ECONNRESET' && !deadline.aborted) attempt({ ...sendOptions, agent: false }).then(resolvePromise, reject);
        else reject(classifyTransportError(error, deadline));
      });
      outgoing.end(request.body);
    });
  return attempt(requestOptions);
}

/**
 * A name that does not resolve, resolves to nothing, or resolves to a private address gets one and the
 * same message: telling them apart would let a caller map which internal host names exist.
 */
function unreachableHostMessage(hostname: string): string {
  return `The host ${hostname} could not be resolved to a public address.`;
}

async function resolveChecked(hostname: string, options: OutboundOptions, resolveHost: HostResolver): Promise<ResolvedAddress> {
  const literal = ipLiteralOf(hostname);
  let addresses: ResolvedAddress[];
  if (literal !== undefined) {
    addresses = [{ address: literal, family: isIP(literal) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolveHost(hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new OutboundRequestError('dns', unreachableHostMessage(hostname), code !== 'ENOTFOUND');
    }
  }
  if (addresses.length === 0) throw new OutboundRequestError('dns', unreachableHostMessage(hostname), false);
  // One bad address is enough to refuse: otherwise the connection could be steered to it.
  if (addresses.some(({ address }) => !isAddressAllowed(address, options.policy))) {
    throw new OutboundRequestError('refused-address', unreachableHostMessage(hostname), false);
  }
  return addresses[0]!;
}

/**
 * The response body, read with the stream's own events rather than an async iterator: a webhook
 * consumer reads hundreds of small answers per invocation, and the iterator's machinery cost more
 * than the reading (docs/webhooks.md, Throughput, ninth round).
 */
function readCapped(
  message: IncomingMessage,
  maxBytes: number,
  oversized: 'refuse' | 'truncate',
  deadline: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const declared = Number(message.headers['content-length']);
  if (oversized === 'refuse' && Number.isFinite(declared) && declared > maxBytes) {
    message.destroy();
    return Promise.reject(new OutboundRequestError('too-large', `The response exceeds ${maxBytes} bytes.`, false));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const finish = (outcome: { body: Buffer; truncated: boolean } | OutboundRequestError) => {
      if (settled) return;
      settled = true;
      if (outcome instanceof OutboundRequestError) reject(outcome);
      else resolve(outcome);
    };
    message.on('data', (chunk: Buffer) => {
      if (settled) return;
      total += chunk.length;
      if (total > maxBytes) {
        message.destroy();
        if (oversized === 'truncate') {
          chunks.push(chunk.subarray(0, chunk.length - (total - maxBytes)));
          finish({ body: Buffer.concat(chunks), truncated: true });
        } else {
          finish(new OutboundRequestError('too-large', `The response exceeds ${maxBytes} bytes.`, false));
        }
        return;
      }
      chunks.push(chunk);
    });
    message.on('end', () => finish({ body: Buffer.concat(chunks), truncated: false }));
    message.on('error', (error) => finish(classifyTransportError(error, deadline)));
    // Every response closes, after its end or without one (the deadline destroyed the request, the
    // connection dropped, and no error need follow); the error is built only in the second case.
    message.on('close', () => {
      if (!settled) finish(classifyTransportError(new Error('The response ended before its body was complete.'), deadline));
    });
  });
}

function classifyTransportError(error: Error, deadline: AbortSignal): OutboundRequestError {
  if (deadline.aborted) return new OutboundRequestError('timeout', 'The request timed out.', true);
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code) || /certificate|ssl|tls/i.test(error.message)) {
    return new OutboundRequestError('tls', `TLS failed: ${error.message}`, false);
  }
  return new OutboundRequestError('connection', `The connection failed: ${code || error.message}`, true);
}

function headersOf(message: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function withoutBodyHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(content-type|content-length|transfer-encoding)$/i.test(name)));
}
