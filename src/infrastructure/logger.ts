import { AsyncLocalStorage } from 'node:async_hooks';

// The one logger: a JSON object per line (`level`, `message`, `time`, then fields), which CloudWatch
// Logs Insights reads field by field. Lines go straight to stdout (debug, info) and stderr (warn,
// error), not through `console`, whose Lambda runtime version prefixes every line with text and so
// turns the JSON into a string. What identifies the invocation (request id, execution, message,
// function) is carried by an AsyncLocalStorage context, set once at each entry point with
// `withLogContext`, so domain code logs without passing ids around. It lives in src/infrastructure
// so that domain code, the HTTP adapter and the AWS clients below them can all use it.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

// Keys whose values never reach a log, compared without case, dashes or underscores, at any depth.
const redactedKeys = new Set(
  ['authorization', 'signingSecret', 'secret', 'apiKey', 'x-paperflow-signature', 'password', 'token', 'taskToken', 'cookie', 'x-api-key', 'secretAccessKey', 'sessionToken'].map(
    normalisedKey,
  ),
);
const redacted = '[redacted]';

const context = new AsyncLocalStorage<LogFields>();

/** Runs `run` with `fields` added to the context of every line it logs, across awaits, until it settles. */
export function withLogContext<T>(fields: LogFields, run: () => T): T {
  return context.run({ ...context.getStore(), ...withoutUndefined(fields) }, run);
}

/** The fields the current invocation attaches to its lines. */
export function currentLogContext(): LogFields {
  return { ...context.getStore() };
}

export const logger = {
  debug: (message: string, fields?: LogFields) => log('debug', message, fields),
  info: (message: string, fields?: LogFields) => log('info', message, fields),
  warn: (message: string, fields?: LogFields) => log('warn', message, fields),
  error: (message: string, fields?: LogFields) => log('error', message, fields),
};

/** PAPERFLOW_LOG_LEVEL, read per line so that a test or a local run can change it; default info. */
export function logThreshold(): LogLevel {
  const configured = process.env.PAPERFLOW_LOG_LEVEL?.trim().toLowerCase();
  return configured !== undefined && configured in levelRank ? (configured as LogLevel) : 'info';
}

function log(level: LogLevel, message: string, fields: LogFields = {}): void {
  if (levelRank[level] < levelRank[logThreshold()]) return;
  const entry = { level, message, time: new Date().toISOString(), ...context.getStore(), ...fields };
  const line = `${JSON.stringify(loggable(entry, new WeakSet()))}\n`;
  (levelRank[level] >= levelRank.warn ? process.stderr : process.stdout).write(line);
}

/** A JSON-safe copy: errors as name, message and stack (and cause), secrets redacted, cycles cut. */
function loggable(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (value instanceof Error) {
      const error: LogFields = { name: value.name, message: value.message, stack: value.stack };
      const code = (value as { code?: unknown }).code;
      if (code !== undefined) error.code = code;
      if (value.cause !== undefined) error.cause = loggable(value.cause, seen);
      return error;
    }
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) return value.map((item) => loggable(item, seen));
    const copy: LogFields = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] = redactedKeys.has(normalisedKey(key)) ? redacted : loggable(item, seen);
    }
    return copy;
  } finally {
    seen.delete(value);
  }
}

function normalisedKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

function withoutUndefined(fields: LogFields): LogFields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** What a Lambda context offers the log (structural, so that this module needs no Lambda types). */
export interface InvocationContext {
  functionName?: string;
  awsRequestId?: string;
}

/** The fields every line of a Lambda invocation carries: the function and Lambda's own request id. */
export function invocationFields(invocation: InvocationContext | undefined): LogFields {
  return { functionName: invocation?.functionName, awsRequestId: invocation?.awsRequestId };
}

/**
 * The AWS SDK's `logger` client option (without it the SDK warns through `console`). The SDK calls
 * it with loose arguments: its own warnings as strings, and one record per command (success at info,
 * failure at error) with the command's input and output. Those records go to debug, named by client
 * and command only: the failure is thrown to the caller, which decides whether it matters (a failed
 * condition or an aborted upload is routine here, and callers log what is not), and inputs and
 * outputs carry document contents that do not belong in a log. The SDK's own warnings keep their
 * level, but one.
 */
export const sdkLogger = {
  debug: (...content: unknown[]) => log('debug', ...sdkLine(content)),
  info: (...content: unknown[]) => log('debug', ...sdkLine(content)),
  warn: (...content: unknown[]) => log(sdkWarningLevel(content[0]), ...sdkLine(content)),
  error: (...content: unknown[]) => log(isCommandRecord(content[0]) ? 'debug' : 'error', ...sdkLine(content)),
};

// The SDK warns of every failed streamed request, before throwing the error to its caller. The caller
// knows more: a put aborted on purpose (an upload whose client went away, src/files/file-blobs.ts) is
// no fault, and any other failure the caller logs as an error itself. So the warning adds nothing
// but noise on every abandoned upload (under that upload's request id), and is kept for debugging.
const streamingRequestFailed = 'An error was encountered in a non-retryable streaming request.';

function sdkWarningLevel(first: unknown): LogLevel {
  return first === streamingRequestFailed ? 'debug' : 'warn';
}

interface CommandRecord {
  clientName: string;
  commandName: string;
  error?: unknown;
  metadata?: unknown;
}

function isCommandRecord(value: unknown): value is CommandRecord {
  return typeof value === 'object' && value !== null && 'clientName' in value && 'commandName' in value;
}

function sdkLine(content: unknown[]): [string, LogFields] {
  const [first, ...rest] = content;
  if (isCommandRecord(first)) {
    const { clientName, commandName, error, metadata } = first;
    return [error === undefined ? 'AWS SDK command succeeded' : 'AWS SDK command failed', withoutUndefined({ source: 'aws-sdk', clientName, commandName, metadata, error })];
  }
  const message = typeof first === 'string' ? first : 'AWS SDK';
  const details = typeof first === 'string' ? rest : content;
  return [message, { source: 'aws-sdk', ...(details.length > 0 ? { details: details.length === 1 ? details[0] : details } : {}) }];
}
