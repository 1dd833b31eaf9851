import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './cli-errors.ts';

// Where `paperflow` finds the API and its key. In order:
//   1. `--profile <name>`: that profile of the configuration file, whatever the environment says;
//   2. PAPERFLOW_API_URL and PAPERFLOW_API_KEY, each on its own;
//   3. the profile named by PAPERFLOW_PROFILE, else "default", for what the environment left out.
// The file is $XDG_CONFIG_HOME/paperflow/config.json (default ~/.config/paperflow/config.json):
//   { "profiles": { "default": { "apiUrl": "https://…/api/public/v1", "apiKey": "pf_live_…" } } }
// The key is a secret: it goes into the Authorization header and nowhere else (no message names it).

export interface ApiConnection {
  /** The base URL, `…/api/public/v1`, without a trailing slash. */
  apiUrl: string;
  apiKey: string;
}

interface ProfileEntry {
  apiUrl?: string;
  apiKey?: string;
}

export function configurationFilePath(environment: NodeJS.ProcessEnv): string {
  const configHome = environment.XDG_CONFIG_HOME || join(environment.HOME || homedir(), '.config');
  return join(configHome, 'paperflow', 'config.json');
}

async function readProfiles(path: string): Promise<Record<string, ProfileEntry> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
  const profiles = (parsed as { profiles?: unknown } | null)?.profiles;
  if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
    throw new UsageError(`${path} has no "profiles" object: write {"profiles": {"default": {"apiUrl": "…", "apiKey": "…"}}}.`);
  }
  return profiles as Record<string, ProfileEntry>;
}

function checkedApiUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`The API URL from ${source} is not a URL: ${raw}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`The API URL from ${source} must be http or https: ${raw}`);
  return raw.replace(/\/+$/, '');
}

export async function resolveConnection(profileOption: string | undefined, environment: NodeJS.ProcessEnv): Promise<ApiConnection> {
  const path = configurationFilePath(environment);
  const profiles = await readProfiles(path);
  const profileName = profileOption ?? environment.PAPERFLOW_PROFILE ?? 'default';
  const profile = profiles?.[profileName];
  if (profileOption !== undefined && !profile) {
    throw new UsageError(`No profile ${JSON.stringify(profileOption)} in ${path}${profiles ? ` (it has: ${Object.keys(profiles).join(', ') || 'none'})` : ' (the file does not exist)'}.`);
  }
  const fromProfile = `profile "${profileName}" of ${path}`;
  const [apiUrl, urlSource] =
    profileOption === undefined && environment.PAPERFLOW_API_URL ? [environment.PAPERFLOW_API_URL, 'PAPERFLOW_API_URL'] : [profile?.apiUrl, fromProfile];
  const apiKey = profileOption === undefined && environment.PAPERFLOW_API_KEY ? environment.PAPERFLOW_API_KEY : profile?.apiKey;
  if (!apiUrl) throw new UsageError(`No API URL: set PAPERFLOW_API_URL (for example http://127.0.0.1:4010/api/public/v1) or "apiUrl" in ${fromProfile}.`);
  if (!apiKey) throw new UsageError(`No API key: set PAPERFLOW_API_KEY or "apiKey" in ${fromProfile}.`);
  return { apiUrl: checkedApiUrl(apiUrl, urlSource), apiKey };
}
