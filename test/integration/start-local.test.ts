import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bootstrapApiKey, startStackUnderTest } from '../support/local-stack-harness.ts';
import { freePort } from '../support/free-port.ts';

// `npm start` as an operator runs it: its own process (group), stopped by a signal, failing with one line.
const folders: string[] = [];
afterAll(async () => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function freshDataDir(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'paperflow-start-'));
  folders.push(folder);
  return folder;
}


function environment(dataDir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NODE_NO_WARNINGS: '1', PAPERFLOW_DATA_DIR: dataDir, PORT: String(port), PAPERFLOW_BOOTSTRAP_API_KEY: bootstrapApiKey, ...extra };
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function outputOf(child: ChildProcess): () => Finished & { exited: Promise<Finished> } {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr }));
  return () => ({ code: child.exitCode, stdout, stderr, exited });
}

/** The command `npm start` runs, without npm's own lines around the script's output. */
async function startScriptFailing(env: NodeJS.ProcessEnv): Promise<Finished> {
  const child = spawn('node_modules/.bin/node', ['--import', 'tsx', 'scripts/start-local.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  // A fresh process transpiles the whole stack first: on a loaded machine (CI's 2 cores running the
  // other test files) that alone can take tens of seconds.
  const timer = setTimeout(() => child.kill('SIGKILL'), startUpAllowanceMs);
  const finished = await outputOf(child)().exited;
  clearTimeout(timer);
  return finished;
}

function expectOneClearLine(finished: Finished, message: RegExp) {
  expect(finished.code).not.toBe(0);
  expect(finished.code).not.toBeNull();
  const lines = finished.stderr.trim().split('\n');
  expect(lines, finished.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(finished.stderr).not.toMatch(/^\s+at /m);
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function processGroupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** How long a fresh `npm start` may take to be ready or to fail; the tests get more than that. */
const startUpAllowanceMs = 100_000;

describe('npm start', { timeout: startUpAllowanceMs + 30_000 }, () => {
  it('stops the whole process tree on SIGTERM and frees the port', async () => {
    const dataDir = await freshDataDir();
    const port = await freePort();
    // Its own process group, as in a terminal, so whatever it spawned can be found afterwards.
    const npm = spawn('npm', ['start'], { env: environment(dataDir, port), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = outputOf(npm);
    try {
      await expect.poll(() => output().stdout, { timeout: startUpAllowanceMs, interval: 100 }).toContain('local stack ready');
      expect((await fetch(`http://127.0.0.1:${port}/api/public/v1/openapi.json`)).status).toBe(200);
      await expect.poll(() => output().stdout, { timeout: 5_000, interval: 100 }).toContain(`Review console: http://127.0.0.1:${port}/console/`);
      expect((await fetch(`http://127.0.0.1:${port}/console/`)).headers.get('content-type')).toMatch(/^text\/html/);

      npm.kill('SIGTERM');
      const finished = await output().exited;

      expect(finished.code).not.toBeNull();
      expect(await portAccepts(port)).toBe(false);
      await expect.poll(() => processGroupAlive(npm.pid!), { timeout: 5_000, interval: 100 }).toBe(false);
    } finally {
      if (processGroupAlive(npm.pid!)) process.kill(-npm.pid!, 'SIGKILL');
    }
  });

  it('refuses a data directory in use by another stack, naming its process', async () => {
    const running = await startStackUnderTest({ dataDir: await freshDataDir() });
    try {
      const second = await startScriptFailing(environment(running.dataDir, await freePort()));

      expectOneClearLine(second, new RegExp(`data directory .* is in use by process ${process.pid}\\b`));
      expect((await running.api('/openapi.json')).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('says so in one line when the port is taken', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const finished = await startScriptFailing(environment(await freshDataDir(), port));

      expectOneClearLine(finished, new RegExp(`Port ${port} .*already in use`));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('says so in one line when the bootstrap key is malformed', async () => {
    const finished = await startScriptFailing(environment(await freshDataDir(), await freePort(), { PAPERFLOW_BOOTSTRAP_API_KEY: 'not-a-key' }));

    expectOneClearLine(finished, /PAPERFLOW_BOOTSTRAP_API_KEY must look like pf_live_/);
  });
});
