import { afterEach, describe, expect, it } from 'vitest';
import { deterministicEventId, type EventEnvelope } from '../../../src/events/event-envelope.ts';
import { EventOutbox } from '../../../src/events/event-outbox.ts';
import { EventRecorder } from '../../../src/events/event-recorder.ts';
import { ExpiredEventPurge } from '../../../src/events/expired-event-purge.ts';
import { InMemoryEventRecords, RecordingHandOff } from '../../support/memory/events.ts';
import { captureLogLines, type CapturedLogLines } from '../../support/log-lines.ts';

// The recorder, the outbox and the purge over in-memory adapters (no emulator): every recorded event
// reaches delivery once, and an expired one goes with what hangs on it.

let log: CapturedLogLines | undefined;
afterEach(() => {
  log?.restore();
  log = undefined;
});

const recordedAt = new Date('2026-05-01T10:00:05.000Z');

function anEvent(seed: string, occurredAt = '2026-05-01T10:00:00.000Z', data: Record<string, unknown> = { runId: seed }): EventEnvelope {
  return { eventId: deterministicEventId(seed, occurredAt), eventType: 'workflow.run.completed', occurredAt, apiVersion: 'v1', data };
}

function recording(options: { inlineLimitBytes?: number; now?: () => number } = {}) {
  const records = new InMemoryEventRecords();
  const handOff = new RecordingHandOff();
  const objects = new Map<string, string>();
  const outbox = new EventOutbox(records, handOff, { graceMs: 30_000, now: options.now ?? (() => recordedAt.getTime()) });
  const payloads = { put: async (objectKey: string, body: string) => void objects.set(objectKey, body) };
  const recorder = new EventRecorder(records, outbox, payloads, options.inlineLimitBytes, () => recordedAt);
  return { records, handOff, objects, outbox, recorder };
}

describe('EventRecorder and EventOutbox over in-memory adapters', () => {
  it('records an event once and hands it off once, leaving the outbox empty', async () => {
    const { recorder, records, handOff } = recording();
    const event = anEvent('run_once');

    expect(await recorder.record('ws_a', event)).toBe(true);
    expect(await recorder.record('ws_a', event)).toBe(false);

    expect(handOff.sent).toEqual([{ kind: 'event-recorded', workspaceId: 'ws_a', eventId: event.eventId, eventType: 'workflow.run.completed' }]);
    expect(records.outbox.size).toBe(0);
    expect(records.events.get(event.eventId)).toMatchObject({
      workspaceId: 'ws_a',
      data: { json: JSON.stringify(event.data) },
      recordedAt: recordedAt.toISOString(),
      expiresAt: Date.parse(event.occurredAt) / 1000 + 90 * 86_400,
    });
  });

  it('keeps data too large for the table in the payload objects, and the envelope in the record', async () => {
    const { recorder, records, objects } = recording({ inlineLimitBytes: 100 });
    const event = anEvent('run_large', undefined, { note: 'x'.repeat(200) });

    await recorder.record('ws_a', event);

    const objectKey = `events/ws_a/${event.eventId}.json`;
    expect(records.events.get(event.eventId)?.data).toEqual({ objectKey });
    expect(JSON.parse(objects.get(objectKey)!)).toEqual(event.data);
  });

  it('a failed hand-off still reports the event recorded; the drain hands it off once the grace has passed, and only once', async () => {
    let clock = recordedAt.getTime();
    const { recorder, handOff, outbox, records } = recording({ now: () => clock });
    const event = anEvent('run_drained');
    handOff.failing = true;
    log = captureLogLines();

    expect(await recorder.record('ws_a', event)).toBe(true);
    handOff.failing = false;
    expect(await outbox.drain()).toEqual({ handedOff: 0, failed: 0 }); // younger than the grace: left to its inline hand-off
    clock += 30_001;
    const first = await outbox.drain();
    const second = await outbox.drain();

    expect(first).toEqual({ handedOff: 1, failed: 0 });
    expect(second).toEqual({ handedOff: 0, failed: 0 });
    expect(handOff.sent.map((message) => message.eventId)).toEqual([event.eventId]);
    expect(records.outbox.size).toBe(0);
    expect(log.lines.filter((line) => line.level === 'warn')).toEqual([expect.objectContaining({ eventId: event.eventId })]);
  });

  it('a drain whose send fails counts it and leaves the event in the outbox for the next drain', async () => {
    let clock = recordedAt.getTime();
    const { recorder, handOff, outbox } = recording({ now: () => clock });
    handOff.failing = true;
    log = captureLogLines();
    await recorder.record('ws_a', anEvent('run_down'));
    clock += 60_000;

    expect(await outbox.drain()).toEqual({ handedOff: 0, failed: 1 });
    handOff.failing = false;
    expect(await outbox.drain()).toEqual({ handedOff: 1, failed: 0 });
  });
});

describe('ExpiredEventPurge over in-memory adapters', () => {
  it('removes expired events after what hangs on them and their payload objects, and keeps the others', async () => {
    const { recorder, records } = recording({ inlineLimitBytes: 100 });
    const expired = anEvent('run_old', '2026-01-01T10:00:00.000Z', { note: 'x'.repeat(200) });
    const kept = anEvent('run_new', '2026-03-01T10:00:00.000Z');
    await recorder.record('ws_a', expired);
    await recorder.record('ws_a', kept);
    const removed: string[] = [];
    const purge = new ExpiredEventPurge(records, {
      workspaces: { list: async () => [{ id: 'ws_a' }, { id: 'ws_b' }] },
      dependents: { purgeOfEvent: async (eventId) => void removed.push(`dependents of ${eventId} (event ${records.events.has(eventId) ? 'still there' : 'gone'})`) },
      payloads: { delete: async (objectKey) => void removed.push(objectKey) },
      now: () => new Date('2026-04-01T10:00:00.000Z'),
    });

    expect(await purge.purge()).toEqual({ workspaces: 2, purged: 1, failed: 0 });

    expect(removed).toEqual([`dependents of ${expired.eventId} (event still there)`, `events/ws_a/${expired.eventId}.json`]);
    expect([...records.events.keys()]).toEqual([kept.eventId]);
  });

  it('an event whose dependents cannot be removed now stays for the next run, and the others are purged', async () => {
    const { recorder, records } = recording();
    const stuck = anEvent('run_stuck', '2026-01-01T10:00:00.000Z');
    const other = anEvent('run_other', '2026-01-01T11:00:00.000Z');
    await recorder.record('ws_a', stuck);
    await recorder.record('ws_a', other);
    const failures: string[] = [];
    const purge = new ExpiredEventPurge(records, {
      workspaces: { list: async () => [{ id: 'ws_a' }] },
      dependents: {
        purgeOfEvent: async (eventId) => {
          if (eventId === stuck.eventId) throw new Error('throttled');
        },
      },
      payloads: { delete: async () => undefined },
      now: () => new Date('2026-04-02T10:00:00.000Z'),
      onFailure: (eventId) => failures.push(eventId),
    });

    expect(await purge.purge()).toEqual({ workspaces: 1, purged: 1, failed: 1 });
    expect(failures).toEqual([stuck.eventId]);
    expect([...records.events.keys()]).toEqual([stuck.eventId]);
  });
});
