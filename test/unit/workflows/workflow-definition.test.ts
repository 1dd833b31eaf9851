import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { renderWorkflowDefinitionSchema, workflowDefinitionSchemaPath } from '../../../scripts/generate-workflow-schema.ts';
import { nestedWorkflowReferences, readTemplate, validateWorkflowDefinition } from '../../../src/workflows/workflow-definition.ts';
import { parseWorkflowDefinition } from '../../../src/workflows/workflow-publishing.ts';

type Step = Record<string, unknown>;

function definitionWith(...steps: Step[]) {
  return { name: 'Test workflow', steps };
}

function step(id: string, type: string, inputs: unknown, extra: Step = {}): Step {
  return { id, type, with: inputs, ...extra };
}

function problemsOf(input: unknown) {
  const result = validateWorkflowDefinition(input);
  if (result.ok) return expect.fail('the definition was accepted');
  return result.problems.map((problem) => `${problem.path}: ${problem.message}`);
}

describe('a valid definition', () => {
  it('accepts every step type and fills the documented defaults', () => {
    const result = validateWorkflowDefinition({
      id: 'wf_every-type_1',
      name: 'Every type',
      description: 'One step of each kind',
      steps: [
        step('extract', 'document_insights', { file: '{{ body.document }}', labels: { docType: 'invoice' } }),
        step('call', 'web_function', { url: 'https://api.example.com/hook', body: { total: '{{ steps.extract.output.fields.total }}' } }, { needs: ['extract'] }),
        step('shape', 'transform', { greeting: 'Hello {{ body.name }}', count: '{{ $count(body.items) }}', fixed: 3 }),
        step('wait', 'delay', { seconds: 86_400 }, { needs: ['shape'], if: 'body.wait = true' }),
        step('fan', 'for_each', { items: '{{ body.items }}', workflowId: 'wf_child' }, { needs: ['call', 'wait'], name: 'Fan out' }),
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [extract, call, , , fan] = result.definition.steps;
    expect(extract!.needs).toEqual([]);
    expect(call!.with).toMatchObject({ method: 'POST', timeoutSeconds: 10, retries: 2 });
    expect(fan!.with).toMatchObject({ maxConcurrency: 10 });
    expect(nestedWorkflowReferences(result.definition)).toEqual([{ path: 'steps[4].with.workflowId', workflowId: 'wf_child' }]);
  });

  it('reads the same definition from YAML and from JSON', () => {
    const input = definitionWith(step('a', 'transform', { x: '{{ body.x }}' }), step('b', 'delay', { seconds: 5 }, { needs: ['a'] }));
    const fromYaml = parseWorkflowDefinition(stringify(input), 'yaml');
    const fromJson = parseWorkflowDefinition(JSON.stringify(input), 'json');
    expect(fromYaml.ok).toBe(true);
    expect(fromYaml).toEqual(fromJson);
  });

  it('accepts the sample in docs/', async () => {
    const result = parseWorkflowDefinition(await readFile('docs/workflow-example.yaml', 'utf8'));
    expect(result).toMatchObject({ ok: true, definition: { id: 'wf_invoice-intake' } });
  });
});

describe('problems', () => {
  it('names duplicate step ids', () => {
    expect(problemsOf(definitionWith(step('a', 'transform', {}), step('a', 'transform', {})))).toEqual([
      'steps[1].id: duplicate step id "a" (also steps[0])',
    ]);
  });

  it('names unknown needs by their position', () => {
    expect(problemsOf(definitionWith(step('a', 'transform', {}), step('b', 'transform', {}, { needs: ['a', 'x'] })))).toEqual([
      'steps[1].needs[1]: unknown step "x"',
    ]);
  });

  it('names a cycle by its steps', () => {
    const problems = problemsOf(
      definitionWith(
        step('a', 'transform', {}, { needs: ['c'] }),
        step('b', 'transform', {}, { needs: ['a'] }),
        step('c', 'transform', {}, { needs: ['b'] }),
      ),
    );
    expect(problems).toEqual(['steps[0].needs: cycle: a -> c -> b -> a']);
  });

  it('refuses a step that needs itself', () => {
    expect(problemsOf(definitionWith(step('a', 'transform', {}, { needs: ['a'] })))).toEqual(['steps[0].needs[0]: a step cannot need itself']);
  });

  it('names unknown and missing types', () => {
    expect(problemsOf(definitionWith(step('a', 'sleep', {}), { id: 'b', with: {} }))).toEqual([
      'steps[0].type: unknown type "sleep": one of document_insights, web_function, transform, delay, for_each',
      'steps[1].type: is required: one of document_insights, web_function, transform, delay, for_each',
    ]);
  });

  it('compiles every expression inside with, at any depth, and every if', () => {
    const problems = problemsOf(
      definitionWith(
        step('a', 'transform', { deep: { list: ['fine', 'text {{ body.( }} more'] }, whole: '{{ $sum( }}' }, { if: 'body.x =' }),
      ),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^steps\[0\]\.if: expression does not compile/),
      expect.stringMatching(/^steps\[0\]\.with\.deep\.list\[1\]: expression does not compile/),
      expect.stringMatching(/^steps\[0\]\.with\.whole: expression does not compile/),
    ]);
  });

  it('names the missing required inputs of each type', () => {
    expect(
      problemsOf(
        definitionWith(
          step('extract', 'document_insights', {}),
          step('call', 'web_function', { method: 'GET' }),
          step('wait', 'delay', {}),
          step('fan', 'for_each', {}),
        ),
      ),
    ).toEqual([
      'steps[0].with: needs exactly one of file, fileId or url',
      'steps[1].with.url: is required for a web_function step',
      'steps[2].with.seconds: is required for a delay step',
      'steps[3].with.items: is required for a for_each step',
      'steps[3].with.workflowId: is required for a for_each step',
    ]);
  });

  it('refuses literal values out of range but leaves expressions to run time', () => {
    expect(
      problemsOf(
        definitionWith(
          step('wait', 'delay', { seconds: 86_401 }),
          step('call', 'web_function', { url: 'http://api.example.com/hook' }),
          step('fan', 'for_each', { items: [1], workflowId: 'wf_child', maxConcurrency: 0 }),
          step('later', 'delay', { seconds: '{{ body.seconds }}' }),
          step('dynamic', 'web_function', { url: '{{ body.callback }}' }),
        ),
      ),
    ).toEqual([
      'steps[0].with.seconds: must be at most 86400',
      'steps[1].with.url: must use https',
      'steps[2].with.maxConcurrency: must be at least 1',
    ]);
  });

  it('names the allowed values and the expected kind in plain words, never the validator\'s', () => {
    expect(
      problemsOf({
        steps: [
          step('call', 'web_function', { url: 'https://api.example.com/hook', method: 'FETCH', timeoutSeconds: 'ten', retries: 1.5, headers: { 'X-Count': 3 } }),
          step('fan', 'for_each', { items: 'everything', workflowId: 'wf_child', maxConcurrency: '{{ body.( }}' }),
          { id: '', type: 'transform', needs: 'a' },
        ],
      }),
    ).toEqual([
      'name: is required',
      'steps[0].with.method: must be one of GET, HEAD, POST, PUT, PATCH, DELETE, or a "{{ expression }}"',
      'steps[0].with.headers.X-Count: must be text',
      'steps[0].with.timeoutSeconds: must be a number, or a "{{ expression }}"',
      'steps[0].with.retries: must be a whole number',
      'steps[1].with.items: must be a list, or a "{{ expression }}"',
      expect.stringMatching(/^steps\[1\]\.with\.maxConcurrency: expression does not compile/),
      'steps[2].id: must not be empty',
      'steps[2].needs: must be a list',
    ]);
  });

  it('lists several problems of different kinds at once', () => {
    const problems = problemsOf({
      id: 'wf_Upper',
      steps: [step('a', 'transform', {}, { needs: ['missing'] }), step('a', 'delay', { seconds: -1 }), { id: 'c', type: 'transform', with: {}, extra: 1 }],
    });
    expect(problems).toEqual([
      'id: must be wf_ and then lowercase letters, digits, _ or -',
      'name: is required',
      'steps[0].needs[0]: unknown step "missing"',
      'steps[1].with.seconds: must be at least 0',
      'steps[1].id: duplicate step id "a" (also steps[0])',
      'steps[2].extra: is not a known setting',
    ]);
  });

  it('reports text that is not YAML or JSON, or not an object', () => {
    expect(parseWorkflowDefinition('{ "name": ', 'json')).toMatchObject({ ok: false, problems: [{ path: '', message: expect.stringMatching(/^is not valid JSON/) }] });
    expect(parseWorkflowDefinition('name: [unclosed', 'yaml')).toMatchObject({ ok: false, problems: [{ path: '', message: expect.stringMatching(/^is not valid YAML/) }] });
    expect(parseWorkflowDefinition('- a list')).toMatchObject({ ok: false, problems: [{ path: '', message: 'must be an object with a name and a steps list' }] });
  });
});

describe('literal URLs, by the run time\'s outbound rules', () => {
  const strict = { allowHttp: false, allowLoopback: false };
  const local = { allowHttp: true, allowLoopback: true };
  const urlProblemsOf = (url: string, urlPolicy: typeof strict, type = 'web_function') => {
    const result = validateWorkflowDefinition(definitionWith(step('call', type, { url })), { urlPolicy });
    return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.message}`);
  };

  it.each([
    ['http://127.0.0.1:8080/hook', strict, ['steps[0].with.url: must use https']],
    ['http://127.0.0.1:8080/hook', local, []],
    ['https://127.0.0.1:8443/hook', strict, ['steps[0].with.url: must not point to a private, loopback or reserved address']],
    ['https://[::1]/hook', strict, ['steps[0].with.url: must not point to a private, loopback or reserved address']],
    ['https://localhost/hook', strict, ['steps[0].with.url: must not point to a private, loopback or reserved address']],
    ['https://127.0.0.1:8443/hook', local, []],
    ['https://10.0.0.7/hook', local, ['steps[0].with.url: must not point to a private, loopback or reserved address']],
    ['https://169.254.169.254/latest/meta-data', local, ['steps[0].with.url: must not point to a private, loopback or reserved address']],
    ['https://user:secret@api.example.com/hook', strict, ['steps[0].with.url: must not contain user credentials']],
    ['ftp://files.example.com/hook', local, ['steps[0].with.url: must use https']],
    ['not a url', strict, ['steps[0].with.url: must be an absolute URL']],
    ['https://api.example.com/hook#part', strict, []],
    ['{{ body.callback }}', strict, []],
  ])('a web_function url %s (%o): %o', (url, urlPolicy, expected) => {
    expect(urlProblemsOf(url, urlPolicy)).toEqual(expected);
  });

  it('checks a document_insights url by the extraction API\'s rules, a fragment refused', () => {
    expect(urlProblemsOf('https://docs.example.com/invoice.pdf#page=2', strict, 'document_insights')).toEqual(['steps[0].with.url: must not contain a fragment']);
    expect(urlProblemsOf('http://127.0.0.1:9000/invoice.pdf', local, 'document_insights')).toEqual([]);
  });
});

describe('nested workflow references', () => {
  it('are read from the document as written, also when it has other problems', () => {
    const input = { steps: [step('fan', 'for_each', { items: 'not a list', workflowId: 'wf_child' }), step('bad', 'for_each', { workflowId: 'Not An Id' })] };

    expect(validateWorkflowDefinition(input).ok).toBe(false);
    expect(nestedWorkflowReferences(input)).toEqual([{ path: 'steps[0].with.workflowId', workflowId: 'wf_child' }]);
  });
});

describe('templates', () => {
  it('tells a whole expression from interpolated text and a literal', () => {
    expect(readTemplate('{{ body.total }}')).toEqual({ kind: 'expression', expression: 'body.total' });
    expect(readTemplate('Total: {{ body.total }} EUR')).toEqual({
      kind: 'interpolation',
      parts: [{ text: 'Total: ' }, { expression: 'body.total' }, { text: ' EUR' }],
    });
    expect(readTemplate('{{ a }} and {{ b }}')).toEqual({ kind: 'interpolation', parts: [{ expression: 'a' }, { text: ' and ' }, { expression: 'b' }] });
    expect(readTemplate('plain')).toEqual({ kind: 'literal' });
  });
});

describe('shipped JSON Schema', () => {
  it('is the one generated from the zod schema (run scripts/generate-workflow-schema.ts after a change)', async () => {
    expect(await readFile(workflowDefinitionSchemaPath, 'utf8')).toBe(renderWorkflowDefinitionSchema());
  });
});
