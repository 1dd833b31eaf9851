import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack, type LocalStackOptions, type RunningLocalStack } from '../../src/local/local-stack.ts';

export const bootstrapApiKey = 'pf_live_integrationbootstrapkey0001';

export interface StackUnderTest extends RunningLocalStack {
  dataDir: string;
  /** fetch against the API base URL with the bootstrap key unless `headers.authorization` is given. */
  api(path: string, init?: RequestInit & { apiKey?: string | null }): Promise<Response>;
}

/** Boots the embedded stack on a free port with a fresh data folder; call `stop()` in afterAll. */
export async function startStackUnderTest(options: Partial<LocalStackOptions> = {}): Promise<StackUnderTest> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'paperflow-test-')));
  // PAPERFLOW_TEST_EXTERNAL_ENDPOINT runs a test file against an AWS-compatible endpoint (moto_server,
  // LocalStack) instead of the embedded emulators, as AWS_ENDPOINT_URL does for `npm start`.
  const externalEndpoint = process.env.PAPERFLOW_TEST_EXTERNAL_ENDPOINT || undefined;
  const stack = await startLocalStack({ dataDir, port: 0, bootstrapApiKey, ...(externalEndpoint ? { externalEndpoint } : {}), ...options });
  return {
    ...stack,
    dataDir,
    api(path, init = {}) {
      const { apiKey = bootstrapApiKey, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (apiKey !== null && !headers.has('authorization')) headers.set('authorization', `api-key ${apiKey}`);
      return fetch(`${stack.baseUrl}${path}`, { ...rest, headers });
    },
    async stop() {
      await stack.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A response body as loosely typed JSON, for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function jsonOf(response: Response): Promise<any> {
  return response.json();
}
