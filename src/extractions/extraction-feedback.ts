import type { Feedback } from './extraction.ts';

/** Where feedback is kept, under its extraction (aws/dynamodb-extraction-feedback.ts). */
export interface ExtractionFeedback {
  put(feedback: Feedback): Promise<void>;
}
