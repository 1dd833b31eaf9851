// A scheduled handler for tests of the trigger machinery: counts its runs and keeps the events it got,
// process-wide, so a test sees them whichever copy of the module the local invoker loaded.

const registryKey = Symbol.for('paperflow.test.recordingSchedule');

function registry(): unknown[] {
  const global = globalThis as unknown as Record<symbol, unknown[] | undefined>;
  return (global[registryKey] ??= []);
}

export function recordedScheduledEvents(): readonly unknown[] {
  return registry();
}

export async function handler(event: unknown): Promise<void> {
  registry().push(event);
}
