import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration, duplicatePolicyOf } from '../../../../src/extraction-engine/configuration/parse-extraction-configuration.ts';
import { parseExtractionConfiguration } from '../../../../src/extraction-engine/configuration-text.ts';
import { extractionConfigurationSchemaPath, renderExtractionConfigurationSchema } from '../../../../scripts/generate-config-schema.ts';

const purchaseOrderYaml = `
documentTypes:
  - prebuilt: invoice
    languages: [de, en]
    duplicatePolicy: reject
  - docType: purchase_order
    keywords:
      en: [purchase order]
      de: [Bestellung]
    mediaTypes: [application/pdf]
    fields:
      - name: po_number
        type: string
        required: true
        labels: { en: [PO Number, Order No], de: [Bestellnummer] }
        patterns: ['PO-\\d+']
      - name: order_date
        type: date
        labels: { en: [Order Date] }
      - name: delivery_date
        type: date
        labels: { en: [Delivery Date] }
      - name: net
        type: amount
        labels: { en: [Net] }
      - name: tax
        type: amount
        labels: { en: [Tax] }
      - name: total
        type: amount
        labels: { en: [Total] }
      - name: status
        type: enum
        values: [open, closed]
        labels: { en: [Status] }
    validations:
      - { rule: sum, fields: [net, tax], equals: total, tolerance: 0.05 }
      - { rule: before, field: order_date, other: delivery_date }
`;

describe('parseExtractionConfiguration', () => {
  it('accepts a YAML configuration and fills defaults', () => {
    const result = parseExtractionConfiguration(purchaseOrderYaml);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [invoice, purchaseOrder] = result.configuration.documentTypes;
    expect(invoice).toEqual({ prebuilt: 'invoice', languages: ['de', 'en'], duplicatePolicy: 'reject' });
    expect(purchaseOrder && 'docType' in purchaseOrder && purchaseOrder.fields[1]).toMatchObject({ required: false, patterns: [] });
    expect(purchaseOrder && 'docType' in purchaseOrder && purchaseOrder.validations[1]).toEqual({
      rule: 'before',
      field: 'order_date',
      other: 'delivery_date',
      allowEqual: true,
    });
  });

  it('accepts the same configuration as JSON', () => {
    const result = parseExtractionConfiguration(JSON.stringify({ documentTypes: [{ prebuilt: 'receipt' }] }), 'json');
    expect(result).toEqual({ ok: true, configuration: { version: 1, documentTypes: [{ prebuilt: 'receipt', duplicatePolicy: 'allow' }] } });
  });

  it('lists every problem with its path', () => {
    const result = parseExtractionConfiguration(`
documentTypes:
  - prebuilt: invoice
    languages: [en, DEU]
    colour: blue
  - docType: purchase_order
    fields:
      - name: po_number
        type: string
        labels: { en: [PO] }
        patterns: ['(unclosed']
      - name: status
        type: enum
        labels: { en: [Status] }
      - name: total
        type: amont
    validations:
      - { rule: sum, fields: [po_number, net], equals: total }
`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual(
      expect.arrayContaining([
        { path: 'documentTypes[0].languages[1]', message: expect.stringContaining('ISO 639-1') },
        { path: 'documentTypes[0].colour', message: 'is not a known setting' },
        { path: 'documentTypes[1].fields[0].patterns[0]', message: 'is not a valid regular expression' },
        { path: 'documentTypes[1].fields[1].values', message: 'is required for an enum field' },
        { path: 'documentTypes[1].fields[2].type', message: expect.stringContaining('Invalid option') },
        { path: 'documentTypes[1].fields[2].labels', message: 'a field needs labels or patterns to be found' },
        { path: 'documentTypes[1].validations[0].fields[0]', message: expect.stringContaining('has type string') },
        { path: 'documentTypes[1].validations[0].fields[1]', message: 'refers to unknown field "net"' },
      ]),
    );
    expect(result.problems).toHaveLength(8);
  });

  it('reports duplicate document types and field names', () => {
    const result = parseExtractionConfiguration(`
documentTypes:
  - prebuilt: invoice
  - prebuilt: invoice
  - docType: memo
    fields:
      - { name: subject, type: string, labels: { en: [Subject] } }
      - { name: subject, type: string, labels: { en: [Re] } }
`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((problem) => problem.path).sort()).toEqual(['documentTypes[1]', 'documentTypes[2].fields[1].name']);
  });

  it('reports unreadable YAML and JSON with a location', () => {
    const yaml = parseExtractionConfiguration('documentTypes: [\n  - prebuilt: invoice');
    expect(yaml.ok).toBe(false);
    if (!yaml.ok) expect(yaml.problems[0]?.message).toMatch(/is not valid YAML \(line \d+/);
    const json = parseExtractionConfiguration('{"documentTypes": ', 'json');
    expect(json.ok).toBe(false);
    if (!json.ok) expect(json.problems[0]?.message).toMatch(/^is not valid JSON/);
    expect(parseExtractionConfiguration('just text')).toEqual({ ok: false, problems: [{ path: '', message: 'must be an object with a documentTypes list' }] });
  });
});

describe('defaults and duplicate policy', () => {
  it('enables prebuilt invoice and receipt, allowing duplicates', () => {
    expect(defaultExtractionConfiguration.documentTypes.map((type) => ('prebuilt' in type ? type.prebuilt : type.docType))).toEqual(['invoice', 'receipt']);
    expect(duplicatePolicyOf(defaultExtractionConfiguration, 'invoice')).toBe('allow');
  });

  it('reads the policy of the named type', () => {
    const result = parseExtractionConfiguration(purchaseOrderYaml);
    if (!result.ok) throw new Error('fixture must parse');
    expect(duplicatePolicyOf(result.configuration, 'invoice')).toBe('reject');
    expect(duplicatePolicyOf(result.configuration, 'purchase_order')).toBe('allow');
  });
});

describe('shipped JSON Schema', () => {
  it('is the one generated from the zod schema (run scripts/generate-config-schema.ts after a change)', async () => {
    const committed = await readFile(extractionConfigurationSchemaPath, 'utf8');
    expect(committed).toBe(renderExtractionConfigurationSchema());
  });
});
