import { z } from 'zod';

/** What every Task of the extraction state machine receives (its Parameters); zod at the edge. */
export const executionInputSchema = z.object({
  workspaceId: z.string().min(1),
  extractionId: z.string().startsWith('ext_'),
  generation: z.number().int().positive(),
});

export const recordOutcomeInputSchema = executionInputSchema.extend({
  outcome: z
    .object({
      status: z.enum(['COMPLETED', 'FAILED', 'REJECTED', 'SUPERSEDED']),
      code: z.string().optional(),
      message: z.string().optional(),
      pageCount: z.number().int().nonnegative().optional(),
    })
    .optional(),
  failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});
