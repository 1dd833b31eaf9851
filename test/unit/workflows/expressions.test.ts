import { describe, expect, it } from 'vitest';
import { evaluateCondition, evaluateTemplate, ExpressionEvaluationError, type ExpressionContext } from '../../../src/workflows/expressions.ts';

function contextWith(overrides: Partial<ExpressionContext> = {}): ExpressionContext {
  return {
    body: { customer: { name: 'Ada', orders: [{ amount: 12.5 }, { amount: 7.5 }] }, tags: ['a', 'b'] },
    steps: { fetch: { status: 'COMPLETED', output: { status: 200, body: { ok: true } } }, skipped: { status: 'SKIPPED' } },
    run: { id: 'run_01', workflowId: 'wf_orders' },
    ...overrides,
  };
}

describe('evaluateTemplate', () => {
  it('keeps the type of a whole-value expression', async () => {
    const evaluated = await evaluateTemplate(
      { total: '{{ $sum(body.customer.orders.amount) }}', ok: '{{ steps.fetch.output.body.ok }}', tags: '{{ body.tags }}', runId: '{{ run.id }}' },
      contextWith(),
    );

    expect(evaluated).toEqual({ total: 20, ok: true, tags: ['a', 'b'], runId: 'run_01' });
  });

  it('interpolates expressions inside text, writing objects as JSON and nothing as empty', async () => {
    const evaluated = await evaluateTemplate('Hello {{ body.customer.name }}, tags {{ body.tags }}, missing [{{ body.nope }}]', contextWith());

    expect(evaluated).toBe('Hello Ada, tags ["a","b"], missing []');
  });

  it('keeps literals, walks arrays and nested objects, and leaves out keys whose expression matches nothing', async () => {
    const evaluated = await evaluateTemplate({ list: [1, '{{ index }}', { deep: '{{ item.sku }}' }], absent: '{{ body.nope }}', flag: false, nothing: null }, contextWith({ item: { sku: 'X1' }, index: 2 }));

    expect(evaluated).toEqual({ list: [1, 2, { deep: 'X1' }], flag: false, nothing: null });
  });

  it('returns plain arrays, not jsonata sequences', async () => {
    const evaluated = (await evaluateTemplate('{{ body.customer.orders.amount }}', contextWith())) as unknown[];

    expect(Object.keys(evaluated)).toEqual(['0', '1']);
    expect(JSON.stringify(evaluated)).toBe('[12.5,7.5]');
  });

  it('names the place of an expression that fails on the data', async () => {
    const failure = await evaluateTemplate({ amount: '{{ body.customer.name + 1 }}' }, contextWith(), 'steps[1].with').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ExpressionEvaluationError);
    expect((failure as ExpressionEvaluationError).path).toBe('steps[1].with.amount');
  });

  it('stops an expression that recurses without end or runs too long', async () => {
    const recursion = await evaluateTemplate('{{ ($f := function($n) { $f($n + 1) }; $f(0)) }}', contextWith()).catch((error: unknown) => error);
    const hugeRange = await evaluateTemplate('{{ $count([1..100000000]) }}', contextWith()).catch((error: unknown) => error);

    expect(recursion).toBeInstanceOf(ExpressionEvaluationError);
    expect(hugeRange).toBeInstanceOf(ExpressionEvaluationError);
  });
});

describe('evaluateCondition', () => {
  it.each([
    ['steps.fetch.status = "COMPLETED"', true],
    ['steps.skipped.status = "COMPLETED"', false],
    ['body.customer.orders[amount > 10]', true],
    ['body.customer.orders[amount > 100]', false],
    ['""', false],
    ['0', false],
    ['[]', false],
    ['{}', false],
    ['"yes"', true],
  ])('reads %s as %s', async (expression, expected) => {
    expect(await evaluateCondition(expression, contextWith())).toBe(expected);
  });
});
