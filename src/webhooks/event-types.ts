// The spec's five event types (Events, Event types). They belong to the events domain; until
// src/events/ holds them, subscriptions validate against this list.

export const eventTypes = [
  'document-insights.extraction.completed',
  'document-insights.extraction.failed',
  'document-insights.extraction.rejected',
  'workflow.run.completed',
  'workflow.run.failed',
] as const;

export type EventType = (typeof eventTypes)[number];
