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

  it('interpolates expressions inside text, writing objects as JSON and a conditional that gives nothing as empty', async () => {
    const evaluated = await evaluateTemplate('Hello {{ body.customer.name }}, tags {{ body.tags }}, vip [{{ body.vip ? "VIP" }}]', contextWith());

    expect(evaluated).toBe('Hello Ada, tags ["a","b"], vip []');
  });

  it('keeps literals, walks arrays and nested objects, and leaves out keys whose conditional gives nothing', async () => {
    const evaluated = await evaluateTemplate(
      { list: [1, '{{ index }}', { deep: '{{ item.sku }}' }], absent: '{{ body.nope ? body.nope }}', flag: false, nothing: null },
      contextWith({ item: { sku: 'X1' }, index: 2 }),
    );

    expect(evaluated).toEqual({ list: [1, 2, { deep: 'X1' }], flag: false, nothing: null });
  });

  it.each([
    ['a whole value', { title: '{{ body.customer.nmae }}' }, 'steps[1].with.title', 'body.customer.nmae'],
    ['text', { title: 'Hello {{ body.customer.nmae }} ({{ $length(body.customer.name) }} letters)' }, 'steps[1].with.title', 'body.customer.nmae'],
    ['a function of nothing', { letters: '{{ $length(body.name) }}' }, 'steps[1].with.letters', '$length(body.name)'],
    ['a nested value', { invoice: { total: '{{ steps.fetch.output.body.total }}' } }, 'steps[1].with.invoice.total', 'steps.fetch.output.body.total'],
  ])('fails when an expression in %s gives nothing, naming the key and the expression', async (_case, inputs, path, expression) => {
    const failure = await evaluateTemplate(inputs, contextWith(), 'steps[1].with').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ExpressionEvaluationError);
    expect((failure as ExpressionEvaluationError).path).toBe(path);
    expect((failure as Error).message).toBe(`${path}: "${expression}" gives nothing on this run's data; write a default (\`? :\` or $exists) if it may be missing`);
  });

  it('takes the default the author wrote for a value that may be missing', async () => {
    const evaluated = await evaluateTemplate(
      { name: '{{ body.nickname ? body.nickname : body.customer.name }}', vip: '{{ $exists(body.vip) ? body.vip : false }}', note: 'for {{ body.note ? body.note : "nobody" }}' },
      contextWith(),
    );

    expect(evaluated).toEqual({ name: 'Ada', vip: false, note: 'for nobody' });
  });

  it('keeps null, false, 0, "" and [] as values: they are data, not missing', async () => {
    const evaluated = await evaluateTemplate(
      { none: '{{ body.none }}', no: '{{ body.no }}', zero: '{{ body.zero }}', empty: '{{ body.empty }}', list: '{{ body.list }}', text: '[{{ body.none }}]' },
      contextWith({ body: { none: null, no: false, zero: 0, empty: '', list: [] } }),
    );

    expect(evaluated).toEqual({ none: null, no: false, zero: 0, empty: '', list: [], text: '[]' });
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
    ['body.vip = true', false],
    ['$exists(body.vip) and body.vip', false],
    ['body.vip ? true', false],
  ])('reads %s as %s', async (expression, expected) => {
    expect(await evaluateCondition(expression, contextWith())).toBe(expected);
  });

  it.each(['body.vip', 'steps.fetch.output.body.total > 1000', 'steps.skipped.output.ok'])('fails, rather than skipping, when %s gives nothing', async (expression) => {
    const failure = await evaluateCondition(expression, contextWith(), 'steps[2].if').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ExpressionEvaluationError);
    expect((failure as Error).message).toBe(`steps[2].if: "${expression}" gives nothing on this run's data; write a default (\`? :\` or $exists) if it may be missing`);
  });
});
