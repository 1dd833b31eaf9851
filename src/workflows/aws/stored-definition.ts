import * as z from 'zod/mini';

/**
 * A definition as stored with a workflow version or a run: validated in full by its step types when
 * it was published; read back, its shape is checked here without the step types (the read handlers
 * bundle the stores, not the validator). `with` stays as stored, each step type reads its own.
 */
export const storedDefinitionSchema = z.object({
  id: z.optional(z.string()),
  name: z.string(),
  description: z.optional(z.string()),
  steps: z.array(
    z.object({
      id: z.string(),
      name: z.optional(z.string()),
      type: z.string(),
      needs: z.array(z.string()),
      if: z.optional(z.string()),
      with: z.unknown(),
    }),
  ),
});
