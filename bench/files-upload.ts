import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describeMachine } from './support/machine.ts';

// Upload throughput of a 50 MB file through the local gateway (multipart, streamed, sniffed, hashed,
// stored) against a raw SDK PutObject of the same bytes to the same S3 emulator, in the same run. The
// stack runs in a child process so its peak RSS growth is the server's own, not the client's buffers.

const fileBytes = 50 * 1024 * 1024;
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const bootstrapApiKey = 'pf_live_benchmarkbootstrapkey0001';

interface StackReady {
  type: 'ready';
  baseUrl: string;
  s3Endpoint: string;
  bucketName: string;
}

type ServerMessage = StackReady | { type: 'peak'; baselineRss: number; peakRss: number };

if (process.argv[2] === '--serve') await serveStack();
else await runBenchmark();

async function runBenchmark(): Promise<void> {
  const server = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const ready = (await nextMessage(server)) as StackReady;
    const s3 = new S3Client({
      endpoint: ready.s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      // As the stack's handlers are configured against s3rver: by default the SDK would first compute a
      // CRC32 of the 50 MB here, time the uploads through the API do not spend.
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const content = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(fileBytes - 9)]);
    // The multipart body as curl would send it from a file; undici's FormData encoder is measurably
    // slower than the server it feeds, and the client's encoder is not what this benchmark measures.
    const boundary = 'paperflow-bench-boundary';
    const multipartBody = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);

    const rawPut = async (round: number) => {
      await s3.send(new PutObjectCommand({ Bucket: ready.bucketName, Key: `bench/raw-${round}`, Body: content }));
    };
    // Sent with node:http like the SDK's raw PutObject (and like curl): fetch costs its own ~80-100 ms
    // per 50 MB in this process (it copies the body and streams it through web streams), which is
    // the client's time, not the server's.
    const agent = new Agent({ keepAlive: true });
    const gatewayUpload = () =>
      new Promise<void>((resolve, reject) => {
        const upload = request(
          `${ready.baseUrl}/files`,
          {
            method: 'POST',
            agent,
            headers: {
              authorization: `api-key ${bootstrapApiKey}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
              'content-length': multipartBody.length,
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              if (response.statusCode === 201) resolve();
              else reject(new Error(`Upload answered ${response.statusCode}: ${Buffer.concat(chunks).toString()}`));
            });
          },
        );
        upload.on('error', reject);
        upload.end(multipartBody);
      });

    await rawPut(-1); // warm-up: connections, JIT, emulator folders
    // The server's RSS before its first upload is the baseline; the peak is tracked while uploading.
    server.send('start-tracking');
    await gatewayUpload();
    const rawSeconds: number[] = [];
    const gatewaySeconds: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      server.send('pause-tracking');
      rawSeconds.push(await timed(() => rawPut(round)));
      server.send('start-tracking');
      gatewaySeconds.push(await timed(gatewayUpload));
    }
    server.send('report-peak');
    const { baselineRss, peakRss } = (await nextMessage(server)) as Extract<ServerMessage, { type: 'peak' }>;

    const megabytes = fileBytes / 2 ** 20;
    const rawMbPerSecond = megabytes / median(rawSeconds);
    const gatewayMbPerSecond = megabytes / median(gatewaySeconds);
    const peakGrowthMb = (peakRss - baselineRss) / 2 ** 20;
    console.log(`files upload (${describeMachine()}; 50 MB, median of ${rounds} rounds)`);
    console.log(`  raw SDK PutObject to s3rver:  ${rawMbPerSecond.toFixed(1)} MB/s (${rawSeconds.map((s) => s.toFixed(2)).join(' ')} s)`);
    console.log(`  POST /files through gateway:  ${gatewayMbPerSecond.toFixed(1)} MB/s (${gatewaySeconds.map((s) => s.toFixed(2)).join(' ')} s)`);
    console.log(`  ratio:                        ${((gatewayMbPerSecond / rawMbPerSecond) * 100).toFixed(1)}% of raw PutObject (target ≥ 70%)`);
    console.log(`  server peak RSS growth:       ${peakGrowthMb.toFixed(1)} MB over its RSS before the first upload, ${rounds + 1} uploads (target < 64 MB)`);
    agent.destroy();
  } finally {
    server.send('stop');
    await new Promise((resolve) => server.once('exit', resolve));
  }
}

/**
 * The child: the embedded stack, sampling its own RSS every few milliseconds while the parent says
 * uploads are running (the raw PutObjects also land in this process, in s3rver, and are not counted).
 */
async function serveStack(): Promise<void> {
  const { startLocalStack } = await import('../src/local/local-stack.ts');
  const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-bench-files-'));
  const stack = await startLocalStack({ dataDir, port: 0, bootstrapApiKey, authorizerCacheSeconds: 60 });
  let baselineRss: number | undefined;
  let peakRss = 0;
  let tracking = false;
  const sampler = setInterval(() => {
    if (tracking) peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 2);
  process.on('message', async (message) => {
    if (message === 'start-tracking') {
      baselineRss ??= process.memoryUsage().rss;
      tracking = true;
    } else if (message === 'pause-tracking') {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      tracking = false;
    } else if (message === 'report-peak') {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      process.send!({ type: 'peak', baselineRss: baselineRss ?? peakRss, peakRss } satisfies ServerMessage);
    } else if (message === 'stop') {
      clearInterval(sampler);
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
      process.disconnect();
    }
  });
  process.send!({
    type: 'ready',
    baseUrl: stack.baseUrl,
    s3Endpoint: process.env.AWS_ENDPOINT_URL_S3!,
    bucketName: stack.resources.filesBucketName,
  } satisfies ServerMessage);
}

function nextMessage(child: ChildProcess): Promise<ServerMessage> {
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as ServerMessage));
    child.once('exit', (code) => reject(new Error(`The stack process exited (${code}).`)));
  });
}

async function timed(operation: () => Promise<void>): Promise<number> {
  const startedAt = performance.now();
  await operation();
  return (performance.now() - startedAt) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
