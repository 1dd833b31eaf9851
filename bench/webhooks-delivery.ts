import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyService, workspaceStore } from '../src/composition/auth.ts';
import { deterministicEventId, type EventEnvelope } from '../src/events/event-envelope.ts';
import { eventRecorder } from '../src/composition/events.ts';
import { startLocalStack } from '../src/local/local-stack.ts';
import { deliveryStore } from '../src/composition/webhook-deliveries.ts';
import { dynamoDocumentClient } from '../src/infrastructure/dynamodb-client.ts';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { CreateQueueCommand, DeleteMessageBatchCommand, PurgeQueueCommand, ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../src/infrastructure/sqs-client.ts';
import { defaultConcurrentBatches } from '../src/local/local-queue-consumers.ts';
import { webhookDeliveryConsumer } from '../src/webhooks/triggers.ts';
import { signWebhook } from '../src/webhooks/webhook-signature.ts';
import { describeMachine, libuvPoolCpuSeconds, measureThroughput, percentile } from './support/machine.ts';
import { SdkCallCounter } from './support/sdk-calls.ts';

// Webhook delivery on the embedded stack, from a recorded event (the outbox's hand-off, the queue
// consumer's fan-out, the signed POST) to a receiver on loopback:
// 1. latency from the terminal state (the event's occurredAt) to the first attempt's arrival, p50/p95;
// 2. one workspace with 25 subscriptions: deliveries/s against raw POSTs/s to the same receiver, both
//    measured in this run;
// 3. 1,000 events to a receiver that fails every other request: every delivery ends, and each
//    attempt is recorded exactly once (the receiver's count per delivery equals the records').
Object.assign(process.env, {
  PAPERFLOW_ALLOW_PRIVATE_URLS: 'true',
  PAPERFLOW_WEBHOOK_RETRY_DELAYS: '0,1,1,1,1,1',
  PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS: '5',
  PAPERFLOW_LOG_LEVEL: 'warn',
});
const latencyEvents = Number(process.env.BENCH_WEBHOOK_LATENCY_EVENTS ?? 40);
const fanOutEvents = Number(process.env.BENCH_WEBHOOK_FANOUT_EVENTS ?? 40);
const fanOutRounds = Number(process.env.BENCH_WEBHOOK_FANOUT_ROUNDS ?? 3);
const warmUpRounds = Number(process.env.BENCH_WEBHOOK_WARMUP_ROUNDS ?? 1);
const flakyEvents = Number(process.env.BENCH_WEBHOOK_FLAKY_EVENTS ?? 1000);

interface Arrival {
  path: string;
  deliveryId: string;
  eventId: string;
  at: number;
}
const arrivals: Arrival[] = [];
// Arrivals counted per first path segment as they come: the waits below poll every 5 ms on the main
// thread the fan-out shares, and filtering the growing list each time was charged to the deliveries.
const arrivalCounts = new Map<string, number>();
const arrivalCount = (segment: string) => arrivalCounts.get(segment) ?? 0;
let flakyCount = 0;
const receiver: Server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const path = request.url ?? '/';
    const segment = `/${path.split('/')[1] ?? ''}`;
    arrivalCounts.set(segment, arrivalCount(segment) + 1);
    arrivals.push({ path, deliveryId: String(request.headers['x-paperflow-delivery-id'] ?? ''), eventId: String(request.headers['x-paperflow-event-id'] ?? ''), at: Date.now() });
    const fails = path.startsWith('/flaky') && flakyCount++ % 2 === 0;
    response.writeHead(fails ? 500 : 200).end(fails ? 'try again' : 'ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-bench-'));
// AWS_ENDPOINT_URL set (moto_server, LocalStack): the same run against that store instead of the embedded emulators.
const stack = await startLocalStack({ dataDir, port: 0, authorizerCacheSeconds: 60, externalEndpoint: process.env.AWS_ENDPOINT_URL || undefined });
// The handlers run in this process on the same cached clients: counting their calls shows the work per delivery.
const sdkCalls = new SdkCallCounter();
sdkCalls.attach('DynamoDB', dynamoDocumentClient());
sdkCalls.attach('SQS', sqsClient());
// As many POSTs at once as the local consumer can have in flight: its pollers times its batch size.
const consumerConcurrency = webhookDeliveryConsumer.batchSize * (webhookDeliveryConsumer.maximumConcurrency ?? defaultConcurrentBatches);
const waitFor = async (condition: () => boolean, what: string, timeoutMs = 10 * 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};
try {
  const workspace = async (id: string) => {
    await workspaceStore().ensure({ id, name: id, createdAt: new Date().toISOString() });
    const { secret } = await apiKeyService().create({ workspaceId: id, name: 'bench', scopes: ['*'], rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 } });
    return async (path: string, body: unknown) => {
      const response = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { authorization: `api-key ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    };
  };
  const subscribe = (post: (path: string, body: unknown) => Promise<void>, path: string, name: string) =>
    post('/event-subscriptions', { name, endpointUrl: `${receiverUrl}${path}`, eventTypes: ['workflow.run.completed'] });
  let sequence = 0;
  const record = async (workspaceId: string) => {
    const occurredAt = new Date().toISOString();
    const event: EventEnvelope = {
      eventId: deterministicEventId(`bench#${workspaceId}#${sequence++}`, occurredAt),
      eventType: 'workflow.run.completed',
      occurredAt,
      apiVersion: 'v1',
      data: { runId: `run_bench_${sequence}`, status: 'COMPLETED' },
    };
    await eventRecorder().record(workspaceId, event);
    return event;
  };

  // 1. Latency: one subscription, events one after another.
  await subscribe(await workspace('ws_latency'), '/latency', 'latency');
  for (let warmUp = 0; warmUp < 3; warmUp += 1) {
    const before = arrivalCount('/latency');
    await record('ws_latency');
    await waitFor(() => arrivalCount('/latency') > before, 'a warm-up delivery');
  }
  const latencies: number[] = [];
  for (let run = 0; run < latencyEvents; run += 1) {
    const event = await record('ws_latency');
    await waitFor(() => arrivals.some((arrival) => arrival.eventId === event.eventId), 'a delivery');
    latencies.push(arrivals.find((arrival) => arrival.eventId === event.eventId)!.at - Date.parse(event.occurredAt));
  }
  latencies.sort((a, b) => a - b);

  // 2. Fan-out to 25 subscriptions, against raw POSTs to the same receiver at the consumer's concurrency.
  const fanOut = await workspace('ws_fanout');
  for (let index = 0; index < 25; index += 1) await subscribe(fanOut, `/fanout/${index}`, `fan-out ${index}`);
  const expectedFanOut = fanOutEvents * 25;
  const cpuSeconds = ({ user, system }: NodeJS.CpuUsage) => (user + system) / 1e6;
  // Raw POSTs to the same receiver at the consumer's concurrency: the ratio's baseline.
  const rawPosts = async () => {
    const startedAt = performance.now();
    const mainThreadCpu = process.threadCpuUsage();
    let sent = 0;
    await Promise.all(
      Array.from({ length: consumerConcurrency }, async () => {
        while (sent < expectedFanOut) {
          sent += 1;
          const response = await fetch(`${receiverUrl}/raw`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"raw":true}' });
          await response.arrayBuffer();
        }
      }),
    );
    return { perSecond: expectedFanOut / ((performance.now() - startedAt) / 1000), mainThreadMicroseconds: (cpuSeconds(process.threadCpuUsage(mainThreadCpu)) * 1e6) / expectedFanOut };
  };
  // One fan-out round: `fanOutEvents` events at once. Where the cores went: the main thread (handlers,
  // SDK, POSTs and the receiver), the emulators' thread (dynalite, fauxqs, s3rver), and the rest of the
  // process (V8's helper threads: garbage collection and compilation; libuv's pool: LevelDB, files).
  const fanOutRound = async () => {
    sdkCalls.reset();
    const startedAt = performance.now();
    const processCpu = process.cpuUsage();
    const mainThreadCpu = process.threadCpuUsage();
    const emulatorThreadCpu = await stack.emulatorThreadCpuUsage();
    const libuvPoolCpu = libuvPoolCpuSeconds();
    const before = arrivalCount('/fanout');
    const recorded = await Promise.all(Array.from({ length: fanOutEvents }, () => record('ws_fanout')));
    await waitFor(() => arrivalCount('/fanout') - before >= expectedFanOut, 'the fanned-out deliveries');
    const seconds = (performance.now() - startedAt) / 1000;
    const emulatorThreadNow = await stack.emulatorThreadCpuUsage();
    const libuvPoolNow = libuvPoolCpuSeconds();
    const cpu = {
      process: cpuSeconds(process.cpuUsage(processCpu)),
      mainThread: cpuSeconds(process.threadCpuUsage(mainThreadCpu)),
      emulatorThread: emulatorThreadCpu && emulatorThreadNow ? cpuSeconds(emulatorThreadNow) - cpuSeconds(emulatorThreadCpu) : undefined,
      libuvPool: libuvPoolCpu !== undefined && libuvPoolNow !== undefined ? libuvPoolNow - libuvPoolCpu : undefined,
    };
    return { recorded, seconds, cpu, deliveriesPerSecond: expectedFanOut / seconds };
  };
  // Both sides warmed the same way before anything is counted: whole rounds of each (1,000 deliveries,
  // 1,000 raw POSTs), since a side's CPU per request keeps falling over its first thousands of requests
  // (JIT, the young generation growing), and one cold side against a warm one says nothing of the code.
  const warmUps: { fanOut: Awaited<ReturnType<typeof fanOutRound>>; raw: Awaited<ReturnType<typeof rawPosts>> }[] = [];
  for (let round = 0; round < warmUpRounds; round += 1) warmUps.push({ fanOut: await fanOutRound(), raw: await rawPosts() });
  // Rounds of a fan-out and raw POSTs: the raw rate swings most from run to run (the receiver shares
  // the box), so the ratio is taken per round and its median reported. The order alternates: whichever
  // side goes second starts while the first one's tail (the last settles, the queue's deletes) is still
  // being written, so neither side always pays for the other's.
  const rounds: { fanOut: Awaited<ReturnType<typeof fanOutRound>>; raw: Awaited<ReturnType<typeof rawPosts>> }[] = [];
  for (let round = 0; round < fanOutRounds; round += 1) {
    if (round % 2 === 0) {
      const fanOut = await fanOutRound();
      rounds.push({ fanOut, raw: await rawPosts() });
    } else {
      const raw = await rawPosts();
      rounds.push({ fanOut: await fanOutRound(), raw });
    }
  }
  const ratios = rounds.map(({ fanOut, raw }) => fanOut.deliveriesPerSecond / raw.perSecond);
  const medianRound = rounds[ratios.indexOf([...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!)]!;
  const { recorded: fanOutRecorded, seconds: fanOutSeconds, cpu: fanOutCpu, deliveriesPerSecond } = medianRound.fanOut;
  const { perSecond: rawPerSecond, mainThreadMicroseconds: rawMainThreadMicroseconds } = medianRound.raw;
  // The last settle writes may still be in flight when the last POST arrives: let them land before counting.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const fanOutCalls = sdkCalls.snapshot();
  // Where a fanned-out event's time goes: from its occurredAt to its first and its last POST's
  // arrival (the hand-off, the queue hop, the fan-out's reads and writes), and each POST as its
  // attempt record timed it (connection, request, response).
  const firstArrivals: number[] = [];
  const fanOutSpans: number[] = [];
  for (const event of fanOutRecorded) {
    const times = arrivals.filter((arrival) => arrival.eventId === event.eventId).map((arrival) => arrival.at);
    firstArrivals.push(Math.min(...times) - Date.parse(event.occurredAt));
    fanOutSpans.push(Math.max(...times) - Math.min(...times));
  }
  firstArrivals.sort((a, b) => a - b);
  fanOutSpans.sort((a, b) => a - b);
  const postDurations: number[] = [];
  const firstAttemptFailures = new Map<string, number>();
  for (const event of fanOutRecorded) {
    for (const delivery of await deliveryStore().listOfEvent(event.eventId)) {
      const { attempts } = await deliveryStore().recentAttempts(delivery, 100);
      const first = attempts[0];
      if (first?.durationMs != null) postDurations.push(first.durationMs);
      if (first?.outcome === 'failed') firstAttemptFailures.set(first.error?.kind ?? 'unknown', (firstAttemptFailures.get(first.error?.kind ?? 'unknown') ?? 0) + 1);
    }
  }
  postDurations.sort((a, b) => a - b);
  const signingSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const signingBody = JSON.stringify(fanOutRecorded[0]);
  const signingStartedAt = performance.now();
  for (let signature = 0; signature < 2000; signature += 1) signWebhook({ secret: signingSecret, eventId: fanOutRecorded[0]!.eventId, body: signingBody, timestamp: signature });
  const signingMicroseconds = ((performance.now() - signingStartedAt) * 1000) / 2000;
  // The emulators' own ceilings in this run, for reading the ratio: one call alone, at the same concurrency.
  const documents = dynamoDocumentClient();
  let putCount = 0;
  const rawPutsPerSecond = await measureThroughput(
    () => documents.send(new PutCommand({ TableName: stack.resources.recordsTableName, Item: { pk: `BENCH#${putCount++}`, sk: 'PUT', at: Date.now() } })),
    consumerConcurrency,
    3000,
  );
  const rawGetsPerSecond = await measureThroughput(
    () => documents.send(new GetCommand({ TableName: stack.resources.recordsTableName, Key: { pk: `BENCH#${putCount-- % 1000}`, sk: 'PUT' }, ConsistentRead: true })),
    consumerConcurrency,
    3000,
  );
  // A queue of its own, so no consumer polls it.
  const { QueueUrl: benchQueueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: 'paperflow-bench-sends' }));
  const rawSendsPerSecond = await measureThroughput(
    () => sqsClient().send(new SendMessageCommand({ QueueUrl: benchQueueUrl, MessageBody: '{"bench":true}' })),
    consumerConcurrency,
    3000,
  );
  await sqsClient().send(new PurgeQueueCommand({ QueueUrl: benchQueueUrl }));
  // Every delivery's first attempt is one message through the queue: sent (batched by ten), received
  // and deleted (batches of ten), each step a write of the emulator's store. As many loops as pollers.
  const messageLifecyclesPerSecond =
    10 *
    (await measureThroughput(
      async () => {
        await sqsClient().send(
          new SendMessageBatchCommand({ QueueUrl: benchQueueUrl, Entries: Array.from({ length: 10 }, (_, index) => ({ Id: String(index), MessageBody: '{"bench":true}' })) }),
        );
        const { Messages = [] } = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl: benchQueueUrl, MaxNumberOfMessages: 10 }));
        if (Messages.length > 0) {
          await sqsClient().send(new DeleteMessageBatchCommand({ QueueUrl: benchQueueUrl, Entries: Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })) }));
        }
      },
      webhookDeliveryConsumer.maximumConcurrency ?? defaultConcurrentBatches,
      3000,
    ));

  // 3. A thousand events to a receiver that fails every other request.
  await subscribe(await workspace('ws_flaky'), '/flaky', 'flaky');
  const flakyStartedAt = performance.now();
  const flaky: EventEnvelope[] = [];
  for (let batch = 0; batch < flakyEvents; batch += 50) {
    flaky.push(...(await Promise.all(Array.from({ length: Math.min(50, flakyEvents - batch) }, () => record('ws_flaky')))));
  }
  const store = deliveryStore();
  const deliveriesOf = async () => (await Promise.all(flaky.map((event) => store.listOfEvent(event.eventId)))).flat();
  let deliveries = await deliveriesOf();
  const flakyDeadline = Date.now() + 10 * 60_000;
  while ((deliveries.length < flakyEvents || deliveries.some((delivery) => delivery.status === 'PENDING')) && Date.now() < flakyDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    deliveries = await deliveriesOf();
  }
  const flakySeconds = (performance.now() - flakyStartedAt) / 1000;
  let mismatched = 0;
  let recordedAttempts = 0;
  for (const delivery of deliveries) {
    const { attempts } = await store.recentAttempts(delivery, 100);
    recordedAttempts += attempts.length;
    const numbers = attempts.map((attempt) => attempt.number);
    const received = arrivals.filter((arrival) => arrival.deliveryId === delivery.id).length;
    const unique = new Set(numbers).size === numbers.length && numbers.every((number, index) => number === index + 1);
    if (!unique || attempts.length !== delivery.attemptCount || received !== delivery.attemptCount || attempts.some((attempt) => attempt.outcome === 'pending')) mismatched += 1;
  }
  const ended = deliveries.filter((delivery) => delivery.status !== 'PENDING').length;
  const succeeded = deliveries.filter((delivery) => delivery.status === 'SUCCEEDED').length;

  console.log(`webhook delivery (${describeMachine()})`);
  console.log(`  terminal state → first attempt: p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p95 ${percentile(latencies, 0.95).toFixed(0)} ms over ${latencies.length} events (target p50 < 250 ms)`);
  console.log(
    `  fan-out, ${fanOutEvents} events × 25 subscriptions, median of ${rounds.length} rounds after ${warmUpRounds} uncounted of each side: ${deliveriesPerSecond.toFixed(0)} deliveries/s; raw POSTs to the same receiver (${consumerConcurrency} at once): ` +
      `${rawPerSecond.toFixed(0)}/s; ratio ${(deliveriesPerSecond / rawPerSecond).toFixed(2)} (target ≥ 0.5)`,
  );
  console.log(
    `    rounds (deliveries/s, raw POSTs/s: ratio; main thread CPU per delivery / per raw POST; whole process CPU per delivery): ${rounds
      .map(
        ({ fanOut, raw }, index) =>
          `${fanOut.deliveriesPerSecond.toFixed(0)}, ${raw.perSecond.toFixed(0)}: ${ratios[index]!.toFixed(2)}; ${((fanOut.cpu.mainThread * 1e6) / expectedFanOut).toFixed(0)} / ${raw.mainThreadMicroseconds.toFixed(0)} µs; ${((fanOut.cpu.process * 1e6) / expectedFanOut).toFixed(0)} µs`,
      )
      .join(' | ')}`,
  );
  if (warmUps.length > 0) {
    console.log(
      `    uncounted warm-up rounds: ${warmUps
        .map(({ fanOut, raw }) => `${fanOut.deliveriesPerSecond.toFixed(0)}, ${raw.perSecond.toFixed(0)}; ${((fanOut.cpu.mainThread * 1e6) / expectedFanOut).toFixed(0)} / ${raw.mainThreadMicroseconds.toFixed(0)} µs`)
        .join(' | ')}`,
    );
  }
  console.log(
    `    per event: occurredAt → first POST p50 ${percentile(firstArrivals, 0.5).toFixed(0)} ms, p95 ${percentile(firstArrivals, 0.95).toFixed(0)} ms; ` +
      `first → last of its 25 POSTs p50 ${percentile(fanOutSpans, 0.5).toFixed(0)} ms, p95 ${percentile(fanOutSpans, 0.95).toFixed(0)} ms; ` +
      `one POST (attempt record) p50 ${percentile(postDurations, 0.5).toFixed(0)} ms, p95 ${percentile(postDurations, 0.95).toFixed(0)} ms; signing both schemes ${signingMicroseconds.toFixed(0)} µs; ` +
      `first attempts failed: ${[...firstAttemptFailures].map(([kind, count]) => `${count} ${kind}`).join(', ') || 'none'}`,
  );
  const perDelivery = (seconds: number) => `${((seconds * 1e6) / expectedFanOut).toFixed(0)} µs`;
  const share = (seconds: number) => `${((100 * seconds) / fanOutSeconds).toFixed(0)}%`;
  const emulatorThread = fanOutCpu.emulatorThread;
  const rest = fanOutCpu.process - fanOutCpu.mainThread - (emulatorThread ?? 0);
  console.log(
    `    CPU during the median fan-out (${fanOutSeconds.toFixed(2)} s, ${((fanOutCpu.process / fanOutSeconds)).toFixed(2)} cores busy): ` +
      `main thread ${fanOutCpu.mainThread.toFixed(2)} s (${share(fanOutCpu.mainThread)}, ${perDelivery(fanOutCpu.mainThread)} per delivery, ${rawMainThreadMicroseconds.toFixed(0)} µs per raw POST); ` +
      (emulatorThread === undefined ? '' : `emulators' thread ${emulatorThread.toFixed(2)} s (${share(emulatorThread)}, ${perDelivery(emulatorThread)} per delivery); `) +
      `rest of the process ${rest.toFixed(2)} s (${perDelivery(rest)} per delivery: ` +
      (fanOutCpu.libuvPool === undefined
        ? 'V8 helper threads: GC, compilation; libuv pool)'
        : `libuv pool, LevelDB and files, ${perDelivery(fanOutCpu.libuvPool)}; V8 helper threads, GC and compilation, ${perDelivery(rest - fanOutCpu.libuvPool)})`),
  );
  const dynamoPerDelivery = SdkCallCounter.total(fanOutCalls, 'DynamoDB') / expectedFanOut;
  const sqsPerDelivery = SdkCallCounter.total(fanOutCalls, 'SQS') / expectedFanOut;
  console.log(`    calls per delivery in the last round: DynamoDB ${dynamoPerDelivery.toFixed(2)}, SQS ${sqsPerDelivery.toFixed(2)} (events recorded and polling included)`);
  for (const line of SdkCallCounter.describe(fanOutCalls, expectedFanOut)) console.log(`      ${line}`);
  console.log(
    `    emulators alone, ${consumerConcurrency} at once: PutItem ${rawPutsPerSecond.toFixed(0)}/s, GetItem ${rawGetsPerSecond.toFixed(0)}/s, SendMessage ${rawSendsPerSecond.toFixed(0)}/s; ` +
      `queue messages sent, received and deleted in tens: ${messageLifecyclesPerSecond.toFixed(0)}/s`,
  );
  // Queue sends per delivery: the events' hand-offs (one per event) and attempts the fan-out did not make itself.
  const queueMessagesPerDelivery = ((fanOutCalls.get('SQS SendMessage')?.calls ?? 0) + (fanOutCalls.get('SQS SendMessageBatch')?.calls ?? 0)) / expectedFanOut;
  console.log(
    `    bounds: the DynamoDB calls alone ${(Math.min(rawPutsPerSecond, rawGetsPerSecond) / dynamoPerDelivery).toFixed(0)} deliveries/s, ` +
      `the queue messages alone (${queueMessagesPerDelivery.toFixed(2)} send calls per delivery) ${(messageLifecyclesPerSecond / Math.max(queueMessagesPerDelivery, 1e-9)).toFixed(0)} deliveries/s (the two share the emulators' one thread)`,
  );
  console.log(
    `  ${flakyEvents} events, receiver failing every other request: ${deliveries.length} deliveries, ${ended} ended (${succeeded} SUCCEEDED), ` +
      `${recordedAttempts} attempts recorded, ${arrivals.filter((arrival) => arrival.path.startsWith('/flaky')).length} received, ${mismatched} deliveries whose records and requests disagree, in ${flakySeconds.toFixed(1)} s`,
  );
  if (deliveries.length !== flakyEvents || ended !== flakyEvents || mismatched > 0) process.exitCode = 1;
} finally {
  await stack.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
}
