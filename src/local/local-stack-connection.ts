import { readFile, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { resources } from '../manifest/resources.ts';
import { localKeyFileEnvironment } from '../infrastructure/local-file-data-keys.ts';

// The embedded emulators listen on ports chosen at start. A running local stack writes them here so
// operator tools in other processes (paperflow-admin) reach the same resources with the same SDK calls.
export interface LocalStackConnection {
  baseUrl: string;
  endpoints: Record<'dynamodb' | 's3' | 'sqs' | string, string>;
  environment: Record<string, string>;
  pid: number;
}

const connectionFileName = 'local-stack.json';

export async function writeLocalStackConnection(dataDir: string, connection: LocalStackConnection): Promise<void> {
  await writeFile(join(dataDir, connectionFileName), JSON.stringify(connection, null, 2));
}

export async function removeLocalStackConnection(dataDir: string): Promise<void> {
  await rm(join(dataDir, connectionFileName), { force: true });
}

export async function readLocalStackConnection(dataDir: string): Promise<LocalStackConnection | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, connectionFileName), 'utf8')) as LocalStackConnection;
  } catch {
    return undefined;
  }
}

/** Points this process's SDK clients and resource variables at the running local stack. */
export function useLocalStackConnection(connection: LocalStackConnection): void {
  for (const [name, value] of Object.entries(connection.environment)) process.env[name] = value;
}

export const localStackEnvironmentNames = [
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_S3',
  'AWS_ENDPOINT_URL_SQS',
  'AWS_ENDPOINT_URL_SFN',
  'AWS_REQUEST_CHECKSUM_CALCULATION',
  'PAPERFLOW_S3_FORCE_PATH_STYLE',
  // Publishing a workflow (paperflow-admin) checks literal URLs with the stack's own outbound rules.
  'PAPERFLOW_ALLOW_PRIVATE_URLS',
  ...resources.map((row) => row.environmentVariable),
  localKeyFileEnvironment,
];
