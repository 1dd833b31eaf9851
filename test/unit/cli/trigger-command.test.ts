import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/cli-errors.ts';
import { triggeredEventType } from '../../../src/cli/trigger-command.ts';
import { eventTypes } from '../../../src/events/event-envelope.ts';

describe('paperflow trigger: the event type named', () => {
  it('takes every type as the spec spells it', () => {
    for (const eventType of eventTypes) expect(triggeredEventType(eventType)).toBe(eventType);
  });

  it('takes an extraction event without "document-insights."', () => {
    expect(triggeredEventType('extraction.completed')).toBe('document-insights.extraction.completed');
    expect(triggeredEventType('extraction.rejected')).toBe('document-insights.extraction.rejected');
  });

  it('refuses any other name as a usage error that lists the types', () => {
    for (const name of ['run.completed', 'document-insights.extraction.done', 'EXTRACTION.COMPLETED', '']) {
      expect(() => triggeredEventType(name)).toThrow(UsageError);
    }
    expect(() => triggeredEventType('extraction.done')).toThrow(`Unknown event type extraction.done; the types are ${eventTypes.join(', ')}.`);
  });
});
