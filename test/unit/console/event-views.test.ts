import { describe, expect, it } from 'vitest';
import { eventTypes as consoleEventTypes } from '../../../src/console/api-types.ts';
import { subjectOf } from '../../../src/console/views/event-subject.ts';
import { eventTypes } from '../../../src/events/event-envelope.ts';

describe('the console\'s event views', () => {
  it('offer every event type the service records, in its order, as the type filter', () => {
    expect(consoleEventTypes).toEqual([...eventTypes]);
  });

  it('link an extraction event to its extraction and a run event to its run, from the payload', () => {
    expect(subjectOf({ eventType: 'document-insights.extraction.rejected', data: { extractionId: 'ext_1', status: 'REJECTED' } })).toEqual({ view: 'extraction', id: 'ext_1' });
    expect(subjectOf({ eventType: 'workflow.run.failed', data: { runId: 'run_1', workflowId: 'wf_1' } })).toEqual({ view: 'run', id: 'run_1' });
  });

  it('link nothing when the payload does not name its subject', () => {
    expect(subjectOf({ eventType: 'workflow.run.completed', data: { extractionId: 'ext_1' } })).toBeUndefined();
    expect(subjectOf({ eventType: 'document-insights.extraction.completed', data: { extractionId: 42 } })).toBeUndefined();
  });
});
