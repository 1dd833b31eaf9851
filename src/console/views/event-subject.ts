import type { EventEnvelope } from '../api-types.ts';

/** The console route of an event's subject (a ConsoleRoute; routing.ts is not imported here, so unit tests load no DOM types). */
export interface EventSubject {
  view: 'extraction' | 'run';
  id: string;
}

/** The extraction or run an event is about, as its payload names it (spec, Event types). */
export function subjectOf(event: Pick<EventEnvelope, 'eventType' | 'data'>): EventSubject | undefined {
  const { extractionId, runId } = event.data;
  if (event.eventType.startsWith('document-insights.') && typeof extractionId === 'string') return { view: 'extraction', id: extractionId };
  if (event.eventType.startsWith('workflow.') && typeof runId === 'string') return { view: 'run', id: runId };
  return undefined;
}
