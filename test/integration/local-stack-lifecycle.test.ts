import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiKeyService } from '../../src/auth/wiring.ts';
import { startStackUnderTest } from '../support/local-stack-harness.ts';

describe('the embedded local stack', () => {
  const folders: string[] = [];
  afterAll(async () => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

  it('keeps its data across a restart on the same data folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-restart-'));
    folders.push(dataDir);
    const first = await startStackUnderTest({ dataDir });
    const { record } = await apiKeyService().create({ workspaceId: 'ws_default', name: 'kept', scopes: ['files:read'] });
    await first.stop();

    const second = await startStackUnderTest({ dataDir });
    const keys = await apiKeyService().list('ws_default');
    const document = await second.api('/openapi.json');
    await second.stop();

    expect(keys.map((key) => key.keyId)).toContain(record.keyId);
    expect(document.status).toBe(200);
  });

  it('refuses a malformed bootstrap key with a clear message', async () => {
    await expect(startStackUnderTest({ bootstrapApiKey: 'short' })).rejects.toThrow(/pf_live_/);
  });
});
