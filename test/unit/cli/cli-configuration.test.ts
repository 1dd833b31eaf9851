import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/cli-errors.ts';
import { configurationFilePath, resolveConnection } from '../../../src/cli/cli-configuration.ts';

let configHome: string;

beforeEach(async () => {
  configHome = await mkdtemp(join(tmpdir(), 'paperflow-cli-config-'));
});

afterEach(async () => {
  await rm(configHome, { recursive: true, force: true });
});

async function writeProfiles(profiles: unknown): Promise<void> {
  await mkdir(join(configHome, 'paperflow'), { recursive: true });
  await writeFile(join(configHome, 'paperflow', 'config.json'), JSON.stringify({ profiles }));
}

const local = { apiUrl: 'http://127.0.0.1:4010/api/public/v1', apiKey: 'pf_live_localkey0000000000' };
const deployed = { apiUrl: 'https://api.example.com/prod/api/public/v1/', apiKey: 'pf_live_deployedkey00000000' };

describe('resolveConnection', () => {
  it('takes PAPERFLOW_API_URL and PAPERFLOW_API_KEY', async () => {
    const connection = await resolveConnection(undefined, { XDG_CONFIG_HOME: configHome, PAPERFLOW_API_URL: local.apiUrl, PAPERFLOW_API_KEY: local.apiKey });

    expect(connection).toEqual(local);
  });

  it('falls back to the default profile for what the environment leaves out', async () => {
    await writeProfiles({ default: deployed });

    const connection = await resolveConnection(undefined, { XDG_CONFIG_HOME: configHome, PAPERFLOW_API_KEY: local.apiKey });

    expect(connection).toEqual({ apiUrl: 'https://api.example.com/prod/api/public/v1', apiKey: local.apiKey });
  });

  it('uses the profile PAPERFLOW_PROFILE names', async () => {
    await writeProfiles({ default: local, prod: deployed });

    const connection = await resolveConnection(undefined, { XDG_CONFIG_HOME: configHome, PAPERFLOW_PROFILE: 'prod' });

    expect(connection.apiKey).toBe(deployed.apiKey);
  });

  it('gives --profile precedence over the environment', async () => {
    await writeProfiles({ prod: deployed });

    const connection = await resolveConnection('prod', { XDG_CONFIG_HOME: configHome, PAPERFLOW_API_URL: local.apiUrl, PAPERFLOW_API_KEY: local.apiKey });

    expect(connection).toEqual({ apiUrl: 'https://api.example.com/prod/api/public/v1', apiKey: deployed.apiKey });
  });

  it('refuses a --profile the file does not have, naming those it has', async () => {
    await writeProfiles({ default: local, prod: deployed });

    await expect(resolveConnection('staging', { XDG_CONFIG_HOME: configHome })).rejects.toThrow(/No profile "staging".*default, prod/);
  });

  it('refuses a missing key without showing any configured value', async () => {
    const refused = resolveConnection(undefined, { XDG_CONFIG_HOME: configHome, PAPERFLOW_API_URL: local.apiUrl });

    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(/No API key: set PAPERFLOW_API_KEY/);
  });

  it.each([
    ['not JSON', '{profiles:'],
    ['no profiles object', '{"default": {}}'],
  ])('refuses a configuration file that is %s', async (_case, text) => {
    await mkdir(join(configHome, 'paperflow'), { recursive: true });
    await writeFile(join(configHome, 'paperflow', 'config.json'), text);

    await expect(resolveConnection(undefined, { XDG_CONFIG_HOME: configHome })).rejects.toBeInstanceOf(UsageError);
  });

  it('refuses an API URL that is not http or https', async () => {
    await expect(resolveConnection(undefined, { XDG_CONFIG_HOME: configHome, PAPERFLOW_API_URL: 'ftp://example.com', PAPERFLOW_API_KEY: local.apiKey })).rejects.toThrow(/http or https/);
  });

  it('finds the file under ~/.config without XDG_CONFIG_HOME', () => {
    expect(configurationFilePath({ HOME: '/home/ada' })).toBe('/home/ada/.config/paperflow/config.json');
  });
});
