import type { S3Event } from 'aws-lambda';
import * as z from 'zod/mini';
import { fileService } from '../../src/composition/files.ts';
import { logger, withLogContext } from '../../src/infrastructure/logger.ts';
import { loggedInvocation } from '../../src/platform/invocation-logging.ts';

// S3 URL-encodes object keys in event records (spaces as "+").
const objectCreatedEvent = z.object({
  Records: z.array(z.object({ eventName: z.string(), s3: z.object({ object: z.object({ key: z.string() }) }) })),
});

/** S3 ObjectCreated notification: finalizes (or blocks) the upload sessions whose bytes arrived. */
export const handler = loggedInvocation(async (event: S3Event): Promise<void> => {
  for (const record of objectCreatedEvent.parse(event).Records.filter((entry) => entry.eventName.startsWith('ObjectCreated:'))) {
    const objectKey = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    const outcome = await withLogContext({ objectKey }, () => fileService().finalizeUploadedObject(objectKey));
    if (outcome === 'ready' || outcome === 'blocked') logger.info('upload session finalized', { objectKey, outcome });
  }
});
