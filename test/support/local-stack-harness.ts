import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack, type LocalStackOptions, type RunningLocalStack } from '../../src/local/local-stack.ts';
import { OpenApiResponseValidator, type ApiExchange } from './openapi-response-validator.ts';

export const bootstrapApiKey = 'pf_live_integrationbootstrapkey0001';

export interface StackUnderTest extends RunningLocalStack {
  dataDir: string;
  /**
   * fetch against the API base URL with the bootstrap key unless `headers.authorization` is given. The
   * response is checked against the served OpenAPI document first: one the document does not describe
   * rejects with a ResponseContractError.
   */
  api(path: string, init?: RequestInit & { apiKey?: string | null }): Promise<Response>;
  /** Checks a response got some other way (raw node:http, for requests fetch cannot send) against the document. */
  assertDocumentedResponse(exchange: ApiExchange): Promise<void>;
  /** The served OpenAPI document's validator, fetched once. */
  responseValidator(): Promise<OpenApiResponseValidator>;
}

/**
 * Boots the embedded stack on a free port with a fresh data folder; call `stop()` in afterAll. The
 * state machines' definitions are not checked at each boot: their unit tests check them (a test may
 * pass `validateStateMachineDefinitions: true`).
 */
export async function startStackUnderTest(options: Partial<LocalStackOptions> = {}): Promise<StackUnderTest> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'paperflow-test-')));
  // PAPERFLOW_TEST_EXTERNAL_ENDPOINT runs a test file against an AWS-compatible endpoint (moto_server,
  // LocalStack) instead of the embedded emulators, as AWS_ENDPOINT_URL does for `npm start`.
  const externalEndpoint = process.env.PAPERFLOW_TEST_EXTERNAL_ENDPOINT || undefined;
  const stack = await startLocalStack({
    dataDir,
    port: 0,
    bootstrapApiKey,
    validateStateMachineDefinitions: false,
    ...(externalEndpoint ? { externalEndpoint } : {}),
    ...options,
  });
  let validator: Promise<OpenApiResponseValidator> | undefined;
  const responseValidator = () => (validator ??= OpenApiResponseValidator.served(stack.baseUrl));
  return {
    ...stack,
    dataDir,
    async api(path, init = {}) {
      const { apiKey = bootstrapApiKey, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (apiKey !== null && !headers.has('authorization')) headers.set('authorization', `api-key ${apiKey}`);
      const url = `${stack.baseUrl}${path}`;
      const response = await fetch(url, { ...rest, headers });
      (await responseValidator()).assertDocumented(await exchangeOf(rest.method ?? 'GET', url, response));
      return response;
    },
    async assertDocumentedResponse(exchange) {
      (await responseValidator()).assertDocumented(exchange);
    },
    responseValidator,
    async stop() {
      await stack.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the validator needs of a fetch response, read from a clone so the caller can still read the body. */
export async function exchangeOf(method: string, url: string, response: Response): Promise<ApiExchange> {
  return {
    method,
    url,
    status: response.status,
    contentType: response.headers.get('content-type'),
    requestId: response.headers.get('x-request-id'),
    body: await response.clone().text(),
  };
}

/** A response body as loosely typed JSON, for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function jsonOf(response: Response): Promise<any> {
  return response.json();
}
