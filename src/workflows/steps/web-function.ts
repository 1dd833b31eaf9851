// The web_function step (DESIGN.md, Workflows): one HTTPS call to a user's endpoint through the
// outbound guard, with a per-attempt timeout and a few retries on answers that may change on retry.
import * as z from 'zod';
import type { OutboundUrlPolicy } from '../../outbound/outbound-settings.ts';
import { fetchOutbound, OutboundRequestError, type HostResolver } from '../../outbound/outbound-fetch.ts';
import { checkOutboundUrl } from '../../outbound/outbound-url.ts';
import { webFunctionDefaults } from '../step-types/web-function.ts';
import { StepFailedError } from '../step-failures.ts';
import { defaultRetryDelayMs } from './web-function-retry-delays.ts';

export interface WebFunctionOutput {
  status: number;
  headers: Record<string, string>;
  /** Parsed when the answer is JSON, else the text; `null` when the answer has no body. */
  body: unknown;
}

export interface WebFunctionDependencies {
  policy: OutboundUrlPolicy;
  resolveHost?: HostResolver;
  /** The pause before retry `attempt` (1 for the first retry); tests shorten it. */
  retryDelayMs?: (attempt: number) => number;
}

/**
 * Bounds on what a definition may ask for. The task Lambda running the step must outlive the worst
 * case, so the engine sizes its timeout from `maximumWebFunctionDurationMs`.
 */
export const webFunctionLimits = {
  maximumTimeoutSeconds: 30,
  maximumRetries: 5,
  /** The answer becomes the step output, kept in the run record or S3; a larger one fails the step. */
  maximumResponseBytes: 1024 * 1024,
} as const;

/** The longest one step can take: every attempt timing out, plus every pause between them. */
export const maximumWebFunctionDurationMs =
  (webFunctionLimits.maximumRetries + 1) * webFunctionLimits.maximumTimeoutSeconds * 1000 +
  Array.from({ length: webFunctionLimits.maximumRetries }, (_, index) => defaultRetryDelayMs(index + 1)).reduce((sum, delay) => sum + delay, 0);

// Headers the HTTP client owns: letting a definition set them would produce malformed or smuggled
// requests, not a different call.
const reservedHeaderNames = /^(host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|proxy-.*)$/i;

const evaluatedWithSchema = z.object({
  url: z.string({ error: 'must be a URL string' }),
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], { error: 'must be GET, HEAD, POST, PUT, PATCH or DELETE' }).default(webFunctionDefaults.method),
  headers: z
    .record(z.string(), z.string({ error: 'header values must be strings' }))
    .superRefine((headers, context) => {
      for (const name of Object.keys(headers)) {
        if (reservedHeaderNames.test(name)) context.addIssue({ code: 'custom', path: [name], message: 'is set by the HTTP client and cannot be sent' });
      }
    })
    .default({}),
  body: z.json().optional(),
  timeoutSeconds: z
    .number({ error: 'must be a number of seconds' })
    .positive('must be positive')
    .max(webFunctionLimits.maximumTimeoutSeconds, `must be at most ${webFunctionLimits.maximumTimeoutSeconds}`)
    .default(webFunctionDefaults.timeoutSeconds),
  retries: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must not be negative')
    .max(webFunctionLimits.maximumRetries, `must be at most ${webFunctionLimits.maximumRetries}`)
    .default(webFunctionDefaults.retries),
});

type WebFunctionCall = z.output<typeof evaluatedWithSchema>;

/**
 * Calls the step's evaluated `with` ({url, method, headers, body, timeoutSeconds, retries}). Resolves
 * with the 2xx answer; throws StepFailedError (with the last answer as output) otherwise. Retries only
 * what another attempt can change: 5xx answers, timeouts and dropped connections. A refused URL or
 * address, a 4xx or a redirect (never followed) fails at once.
 */
export async function callWebFunction(evaluatedWith: unknown, dependencies: WebFunctionDependencies): Promise<WebFunctionOutput> {
  const call = parseCall(evaluatedWith, dependencies.policy);
  const retryDelayMs = dependencies.retryDelayMs ?? ((attempt: number) => defaultRetryDelayMs(attempt));
  const headers = { ...call.headers };
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  for (let attempt = 0; ; attempt += 1) {
    if (attempt > 0) await pause(retryDelayMs(attempt));
    const attemptsLeft = attempt < call.retries;
    let answer: WebFunctionOutput;
    try {
      const response = await fetchOutbound(
        { url: call.url, method: call.method, headers, body },
        {
          policy: dependencies.policy,
          urlRules: { refuseFragment: false },
          timeoutMs: Math.round(call.timeoutSeconds * 1000),
          maxResponseBytes: webFunctionLimits.maximumResponseBytes,
          maxRedirects: 0,
          resolveHost: dependencies.resolveHost,
        },
      );
      answer = { status: response.status, headers: response.headers, body: readBody(response.body, response.headers['content-type']) };
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      if (error.transient && attemptsLeft) continue;
      throw new StepFailedError(`web_function ${call.method} ${call.url} failed after ${attempt + 1} attempt(s): ${error.message}`);
    }
    if (answer.status >= 200 && answer.status <= 299) return answer;
    if (answer.status >= 500 && attemptsLeft) continue;
    throw new StepFailedError(failureMessage(call, answer, attempt + 1), { ...answer });
  }
}

function parseCall(evaluatedWith: unknown, policy: OutboundUrlPolicy): WebFunctionCall {
  const parsed = evaluatedWithSchema.safeParse(evaluatedWith);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${['with', ...issue.path.map(String)].join('.')} ${issue.message}`);
    throw new StepFailedError(`web_function input is invalid: ${problems.join('; ')}.`);
  }
  // The URL text is judged before anything is sent: a bad scheme or a private literal is the
  // definition's fault and no retry can fix it.
  const checked = checkOutboundUrl(parsed.data.url, { refuseFragment: false }, policy);
  if (!checked.ok) throw new StepFailedError(`web_function input is invalid: with.url ${checked.issue}.`);
  if (parsed.data.body !== undefined && (parsed.data.method === 'GET' || parsed.data.method === 'HEAD')) {
    throw new StepFailedError(`web_function input is invalid: a ${parsed.data.method} request has no body.`);
  }
  return parsed.data;
}

function readBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return null;
  const text = raw.toString('utf8');
  const mediaType = contentType?.split(';')[0]!.trim().toLowerCase() ?? '';
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // An endpoint that labels text as JSON still answered; its text is the output.
    }
  }
  return text;
}

function failureMessage(call: WebFunctionCall, answer: WebFunctionOutput, attempts: number): string {
  const target = `web_function ${call.method} ${call.url}`;
  if (answer.status >= 300 && answer.status <= 399) {
    const location = answer.headers.location ? ` to ${answer.headers.location}` : '';
    return `${target} answered HTTP ${answer.status}${location}; redirects are not followed.`;
  }
  return `${target} answered HTTP ${answer.status}${attempts > 1 ? ` after ${attempts} attempts` : ''}.`;
}

function pause(milliseconds: number): Promise<void> {
  return milliseconds > 0 ? new Promise((resolve) => setTimeout(resolve, milliseconds)) : Promise.resolve();
}
