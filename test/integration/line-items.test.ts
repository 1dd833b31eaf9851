import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractionConfigurationStore } from '../../src/composition/extraction-configurations.ts';
import { derivedScanOf } from '../../scripts/corpus-scans.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { laidOutPdf, type PlacedPdfText } from '../support/extraction-documents.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { paperflowCliFor, type CliConnection } from '../support/paperflow-cli-process.ts';

// Line items as a client sees them: the `line_items` table field with its rows, cell boxes and
// line_item_count, over HTTP on the embedded stack.

let stack: StackUnderTest;
let client: ExtractionClient;
let configuredClient: ExtractionClient;
let connection: CliConnection;
let scratch: string;
const configuredWorkspaceId = 'ws_line_items_configured';

beforeAll(async () => {
  stack = await startStackUnderTest();
  scratch = await mkdtemp(join(tmpdir(), 'paperflow-line-items-'));
  connection = { apiUrl: stack.baseUrl, apiKey: await workspaceKey('ws_line_items') };
  client = new ExtractionClient(stack, connection.apiKey);
  configuredClient = new ExtractionClient(stack, await workspaceKey(configuredWorkspaceId));
  const applied = await extractionConfigurationStore().apply(
    configuredWorkspaceId,
    [
      'documentTypes:',
      '  - docType: delivery_note',
      '    keywords: { en: ["delivery note"] }',
      '    fields:',
      '      - name: note_number',
      '        type: string',
      '        labels: { en: ["Delivery note no"] }',
      '      - name: items',
      '        type: table',
      '        columns:',
      '          - { name: article, type: string, headerLabels: { en: ["article"] } }',
      '          - { name: item, type: string, role: description, headerLabels: { en: ["goods"] } }',
      '          - { name: delivered, type: number, role: quantity, headerLabels: { en: ["delivered"] } }',
    ].join('\n'),
  );
  if (!applied.ok) throw new Error(JSON.stringify(applied));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const paperflow = paperflowCliFor(() => connection);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Field = { name: string; type: string; value: any; metadata: any };

async function extractedFields(extractionClient: ExtractionClient, content: Buffer, fileName: string): Promise<Field[]> {
  const created = await extractionClient.upload(content, fileName);
  expect(created.status).toBe(202);
  const extraction = await extractionClient.waitForTerminal(created.body.id);
  expect(extraction.status).toBe('COMPLETED');
  return extraction.output.fields as Field[];
}

const column = { description: 50, quantity: 300, price: 380, amount: 480 };
const row = (description: string, quantity: string, price: string, amount: string): PlacedPdfText[] => [
  { text: description, x: column.description },
  { text: quantity, x: column.quantity },
  { text: price, x: column.price },
  { text: amount, x: column.amount },
];
const header = row('Description', 'Qty', 'Unit price', 'Amount');

describe('line items over the API', () => {
  it('returns the rows of a two-page text invoice whose table continues on page 2, with cell boxes and the count', async () => {
    const firstPage = [
      'Harbour Tools Ltd',
      'INVOICE',
      'Invoice number: LI-2024-7',
      'Invoice date: 15/03/2024',
      '',
      header,
      row('Claw hammer', '2', '12.50', '25.00'),
      row('Chisel set', '1', '40.00', '40.00'),
      [{ text: 'six pieces, with case', x: column.description }],
    ];
    const secondPage = [
      'Invoice LI-2024-7, page 2',
      '',
      header,
      row('Tape measure', '4', '5.00', '20.00'),
      [{ text: 'Net amount', x: column.price }, { text: '85.00', x: column.amount }],
      [{ text: 'VAT 20%', x: column.price }, { text: '17.00', x: column.amount }],
      [{ text: 'Total', x: column.price }, { text: '102.00', x: column.amount }],
    ];
    const fields = await extractedFields(client, await laidOutPdf([firstPage, secondPage]), 'two-pages.pdf');
    const lineItems = fields.find((field) => field.name === 'line_items')!;
    expect(lineItems.type).toBe('table');
    expect(lineItems.value).toEqual([
      { description: 'Claw hammer', quantity: 2, unit_price: 12.5, amount: 25 },
      { description: 'Chisel set six pieces, with case', quantity: 1, unit_price: 40, amount: 40 },
      { description: 'Tape measure', quantity: 4, unit_price: 5, amount: 20 },
    ]);
    expect(lineItems.metadata.rows.map((entry: { page: number }) => entry.page)).toEqual([1, 1, 2]);
    for (const entry of lineItems.metadata.rows) {
      expect(entry.confidence).toBeGreaterThanOrEqual(0.9);
      expect(Object.keys(entry.cells).sort()).toEqual(['amount', 'description', 'quantity', 'unit_price']);
      expect(entry.cells.amount.placement.x).toBeCloseTo(column.amount / 595, 2);
    }
    expect(lineItems.metadata).toMatchObject({ extracted: true, page: 1, placement: expect.any(Object) });
    expect(fields.find((field) => field.name === 'line_item_count')?.value).toBe(3);
  });

  it('returns the rows of a scanned invoice, read by OCR from the word boxes', async () => {
    // The corpus's derived scan: rendered at 200 dpi, grey, tilted 0.4°, slightly blurred, image only.
    const scan = await derivedScanOf(
      await laidOutPdf([
        [
          'Harbour Tools Ltd',
          'INVOICE',
          'Invoice number: LI-2024-8',
          '',
          header,
          row('Claw hammer', '2', '12.50', '25.00'),
          row('Chisel set', '1', '40.00', '40.00'),
          [{ text: 'Total', x: column.price }, { text: '65.00', x: column.amount }],
        ],
      ]),
    );
    const fields = await extractedFields(client, Buffer.from(scan), 'scan.pdf');
    const lineItems = fields.find((field) => field.name === 'line_items')!;
    expect(lineItems.value).toEqual([
      { description: 'Claw hammer', quantity: 2, unit_price: 12.5, amount: 25 },
      { description: 'Chisel set', quantity: 1, unit_price: 40, amount: 40 },
    ]);
    expect(lineItems.metadata.rows[1].cells.amount.placement.x).toBeCloseTo(column.amount / 595, 1);
    expect(fields.find((field) => field.name === 'line_item_count')?.value).toBe(2);
  }, 120_000);

  it('returns the item lines of a scanned till receipt without a header row, with cell boxes and the count', async () => {
    // Count and name before the amount, and a line of quantity × price under its description line.
    const scan = await derivedScanOf(
      await laidOutPdf([
        [
          'COOL BEANS CAFE',
          'RECEIPT',
          'Date: 02/03/2024 10:14',
          '',
          [{ text: '1 Flat white', x: column.description }, { text: '9.50', x: column.amount }],
          [{ text: '2 Butter croissant', x: column.description }, { text: '13.00', x: column.amount }],
          [{ text: 'ORANGE JUICE 1L', x: column.description }],
          [{ text: '2 X 2.20', x: column.quantity }, { text: '4.40', x: column.amount }],
          [{ text: 'Total', x: column.description }, { text: '26.90', x: column.amount }],
          [{ text: 'Cash', x: column.description }, { text: '30.00', x: column.amount }],
        ],
      ]),
    );
    const fields = await extractedFields(client, Buffer.from(scan), 'till.pdf');
    const lineItems = fields.find((field) => field.name === 'line_items')!;
    expect(lineItems.value).toEqual([
      { description: 'Flat white', quantity: 1, amount: 9.5 },
      { description: 'Butter croissant', quantity: 2, amount: 13 },
      { description: 'ORANGE JUICE 1L', quantity: 2, unit_price: 2.2, amount: 4.4 },
    ]);
    const juice = lineItems.metadata.rows[2];
    expect(juice.cells.amount.placement.x).toBeCloseTo(column.amount / 595, 1);
    expect(juice.cells.description.placement.y).toBeLessThan(juice.cells.amount.placement.y);
    expect(fields.find((field) => field.name === 'line_item_count')?.value).toBe(3);
  }, 120_000);

  it('returns the lines of an e-invoice exactly', async () => {
    const ubl = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2">',
      '<cbc:ID>UBL-77</cbc:ID><cbc:IssueDate>2024-03-15</cbc:IssueDate><cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode><cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>',
      '<cac:AccountingSupplierParty><cac:Party><cac:PartyLegalEntity><cbc:RegistrationName>Seller BV</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>',
      '<cac:LegalMonetaryTotal><cbc:TaxExclusiveAmount currencyID="EUR">30.00</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">36.30</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">36.30</cbc:PayableAmount></cac:LegalMonetaryTotal>',
      '<cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="H87">3</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">30.00</cbc:LineExtensionAmount>',
      '<cac:Item><cbc:Name>Paper A4</cbc:Name><cac:SellersItemIdentification><cbc:ID>PA4</cbc:ID></cac:SellersItemIdentification><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent></cac:ClassifiedTaxCategory></cac:Item>',
      '<cac:Price><cbc:PriceAmount currencyID="EUR">10.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>',
      '</Invoice>',
    ].join('\n');
    const fields = await extractedFields(client, Buffer.from(ubl), 'invoice.xml');
    const lineItems = fields.find((field) => field.name === 'line_items')!;
    expect(lineItems.value).toEqual([{ description: 'Paper A4', product_code: 'PA4', quantity: 3, unit: 'H87', unit_price: 10, tax_rate: 21, amount: 30 }]);
    expect(lineItems.metadata.rows[0].confidence).toBeGreaterThan(0);
    expect(fields.find((field) => field.name === 'line_item_count')?.value).toBe(1);
  });

  it("extracts a custom document type's table field with its own columns", async () => {
    const note = await laidOutPdf([
      [
        'DELIVERY NOTE',
        'Delivery note no: DN-55',
        '',
        [{ text: 'Article', x: 50 }, { text: 'Goods', x: 150 }, { text: 'Delivered', x: 400 }],
        [{ text: 'A-100', x: 50 }, { text: 'Pallet of bricks', x: 150 }, { text: '12', x: 400 }],
        [{ text: 'A-200', x: 50 }, { text: 'Bag of cement', x: 150 }, { text: '30', x: 400 }],
      ],
    ]);
    const fields = await extractedFields(configuredClient, note, 'delivery-note.pdf');
    const items = fields.find((field) => field.name === 'items')!;
    expect(items.type).toBe('table');
    expect(items.value).toEqual([
      { article: 'A-100', item: 'Pallet of bricks', delivered: 12 },
      { article: 'A-200', item: 'Bag of cement', delivered: 30 },
    ]);
    expect(items.metadata.rows[1].cells.delivered.placement.x).toBeCloseTo(400 / 595, 2);
  });
});

describe('line items in the CLI', () => {
  it('prints the table under the fields, gives the rows in --json, and takes feedback on the table field', async () => {
    const path = join(scratch, 'cli-table.pdf');
    await writeFile(
      path,
      await laidOutPdf([
        [
          'Harbour Tools Ltd',
          'INVOICE',
          'Invoice number: LI-CLI-1',
          header,
          row('Claw hammer', '2', '12.50', '25.00'),
          row('Tape measure', '4', '5.00', '20.00'),
          [{ text: 'Total', x: column.price }, { text: '45.00', x: column.amount }],
        ],
      ]),
    );
    const printed = await paperflow('extract', path, '--wait');
    expect(printed.stdout).toMatch(/line_items +2 rows \(below\) +table/);
    expect(printed.stdout).toMatch(/line_items \(2 rows\)\nDESCRIPTION +QUANTITY +UNIT_PRICE +AMOUNT +CONFIDENCE +PAGE\nClaw hammer +2 +12\.5 +25 +0\.\d\d +1\nTape measure +4 +5 +20 +0\.\d\d +1/);

    const { stdout } = await paperflow('extract', path, '--wait', '--json');
    const extraction = JSON.parse(stdout);
    const lineItems = extraction.output.fields.find((field: Field & { id: string }) => field.name === 'line_items');
    expect(lineItems.value).toEqual([
      { description: 'Claw hammer', quantity: 2, unit_price: 12.5, amount: 25 },
      { description: 'Tape measure', quantity: 4, unit_price: 5, amount: 20 },
    ]);
    const feedback = await paperflow('extractions', 'feedback', extraction.id, '--message', 'second row is a tape', '--type', 'INFO', '--field', lineItems.id);
    expect(feedback.stdout).toContain(`field ${lineItems.id}`);
  }, 120_000);
});
