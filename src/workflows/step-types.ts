/** The step types of a workflow definition (DESIGN.md, Workflows). */
export const stepTypes = ['document_insights', 'web_function', 'transform', 'delay', 'for_each'] as const;
export type StepType = (typeof stepTypes)[number];
