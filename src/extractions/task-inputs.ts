import * as z from 'zod/mini';
import { config } from 'zod/v4/core';
import { en } from 'zod/v4/locales';

// zod/mini, not classic zod, for small task Lambda bundles. Mini installs no messages of its own, and a
// failed parse's message must not depend on whether a bundle happens to include classic zod.
config(en());

/** What every Task of the extraction state machine receives (its Parameters); zod at the edge. */
export const executionInputSchema = z.object({
  workspaceId: z.string().check(z.minLength(1)),
  extractionId: z.string().check(z.startsWith('ext_')),
  generation: z.number().check(z.int(), z.positive()),
});

export const recordOutcomeInputSchema = z.extend(executionInputSchema, {
  outcome: z.optional(
    z.object({
      status: z.enum(['COMPLETED', 'FAILED', 'REJECTED', 'SUPERSEDED']),
      code: z.optional(z.string()),
      message: z.optional(z.string()),
      pageCount: z.optional(z.number().check(z.int(), z.nonnegative())),
    }),
  ),
  failure: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
});
