import { readFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractionConfigurationStore } from '../../src/composition/extraction-configurations.ts';
import { extractionSettlement, reprocessExtraction } from '../../src/composition/extractions.ts';
import { ExtractionClient, waitForEvents, waitForExecutionEnd, workspaceKey } from '../support/extraction-client.ts';
import { invoicePdf, textPdf } from '../support/extraction-documents.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { corpusFile, textPdf as placedTextPdf } from '../support/document-builders.ts';

// Every way an extraction ends, over HTTP on the embedded stack with the real state machine.

const encryptedPdfPath = corpusFile('bad/encrypted_userpw_rc4_40.pdf');

let stack: StackUnderTest;
let client: ExtractionClient;
let documentServer: Server;
let documentBase: string;
let unavailableHits = 0;
const heldResponses: ServerResponse[] = [];
let heldResponseArrived: () => void = () => {};

/** The held download's response, once its request has reached the document server (PROCESSING is recorded before the download starts). */
async function heldResponse(): Promise<ServerResponse> {
  if (heldResponses.length === 0) await new Promise<void>((resolve) => (heldResponseArrived = resolve));
  return heldResponses.shift()!;
}

const workspaceId = 'ws_processing';
const configuredWorkspaceId = 'ws_processing_configured';
let configuredClient: ExtractionClient;

beforeAll(async () => {
  process.env.PAPERFLOW_LOCAL_RETRY_INTERVAL_MS = '10';
  process.env.PAPERFLOW_ALLOW_PRIVATE_URLS = 'true';
  const invoice = await invoicePdf({ invoiceNumber: 'URL-7' });
  documentServer = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/documents/supplier-invoice.pdf') response.writeHead(200, { 'content-type': 'application/pdf' }).end(invoice);
    else if (path === '/empty.pdf') response.writeHead(200).end();
    else if (path === '/unavailable.pdf') {
      unavailableHits += 1;
      response.writeHead(503).end('try later');
    } else if (path === '/held.pdf') {
      heldResponses.push(response);
      heldResponseArrived();
    }
    else if (path === '/to-metadata') response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  documentBase = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}`;

  stack = await startStackUnderTest();
  client = new ExtractionClient(stack, await workspaceKey(workspaceId));
  configuredClient = new ExtractionClient(stack, await workspaceKey(configuredWorkspaceId));
  const applied = await extractionConfigurationStore().apply(
    configuredWorkspaceId,
    [
      'documentTypes:',
      '  - prebuilt: invoice',
      '    duplicatePolicy: reject',
      '  - docType: purchase_order',
      '    keywords: { en: ["purchase order"] }',
      '    fields:',
      '      - name: po_number',
      '        type: string',
      '        required: true',
      '        labels: { en: ["PO number"] }',
    ].join('\n'),
  );
  expect(applied.ok).toBe(true);
});

afterAll(async () => {
  for (const response of heldResponses) response.destroy();
  await stack?.stop();
  documentServer?.closeAllConnections();
  await new Promise((resolve) => documentServer?.close(resolve));
  delete process.env.PAPERFLOW_ALLOW_PRIVATE_URLS;
});

describe('a document that is extracted', () => {
  it('ends COMPLETED with typed fields, output, a contentUrl and exactly one completed event', async () => {
    const fileId = await client.uploadFile(await invoicePdf(), 'invoice.pdf');

    const created = await client.create({ document: { fileId }, labels: { customer: 'northwind' } });
    const extraction = await client.waitForTerminal(created.body.id);

    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'QUEUED', outputAvailable: false, labels: { customer: 'northwind' } });
    expect(created.body.completedAt).toBeUndefined();
    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true, document: { fileId, fileName: 'invoice.pdf', mimeType: 'application/pdf', pageCount: 1 } });
    expect(extraction.completedAt).toBe(extraction.updatedAt);
    expect(extraction.updatedAt > created.body.updatedAt).toBe(true);
    expect(extraction.error).toBeUndefined();
    expect(extraction.document.contentUrl).toMatch(/^http/);
    const fields = Object.fromEntries(extraction.output.fields.map((field: { name: string }) => [field.name, field]));
    expect(extraction.output.fieldCount).toBe(extraction.output.fields.length);
    expect(fields.invoice_number).toMatchObject({ type: 'string', value: 'INV-2024-0042', metadata: { extracted: true, page: 1 } });
    expect(fields.issue_date).toMatchObject({ type: 'date', value: '2024-03-15' });
    expect(fields.total_amount).toMatchObject({ type: 'amount', value: 1190 });
    expect(fields.currency).toMatchObject({ type: 'currency', value: 'EUR' });
    expect(fields.total_amount.id).toMatch(/^fld_/);
    expect(fields.total_amount.metadata.confidence).toBeGreaterThan(0);
    expect(fields.total_amount.metadata.confidence).toBeLessThanOrEqual(1);

    const events = await waitForEvents(workspaceId, extraction.id, 1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventType: 'document-insights.extraction.completed', apiVersion: 'v1', occurredAt: extraction.completedAt });
    expect(events[0]!.eventId).toMatch(/^evt_/);
    expect(events[0]!.data).toMatchObject({ extractionId: extraction.id, status: 'COMPLETED', outputAvailable: true, labels: { customer: 'northwind' } });
    expect(events[0]!.data.output.fieldCount).toBe(extraction.output.fieldCount);
    expect(events[0]!.data.error).toBeUndefined();
  });

  it('reads a US restaurant slip as its client would: the seller without its store number, dollars and a month-first date from the address, the total with the tip', async () => {
    const lines = [
      'THE GREEN TABLE #12',
      '45 Market St',
      'San Francisco, CA 94105',
      'Check 1042   11/05/2026 8:02PM',
      'Burger                 16.00',
      'Salad                  12.00',
      'Subtotal               28.00',
      'Tax                     2.52',
      'Total                  30.52',
      'Tip                     6.00',
      'Grand Total            36.52',
      'Visa XXXX1234          36.52',
    ];
    // A till roll: 226 points wide, one line every 12 points.
    const height = 40 + lines.length * 12;
    const slip = Buffer.from(await placedTextPdf([lines.map((text, index) => ({ text, x: 12, y: height - 20 - index * 12, size: 8 }))], { width: 226, height }));
    const created = await client.upload(slip, 'dinner.pdf');
    const extraction = await client.waitForTerminal(created.body.id);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const fields = Object.fromEntries(extraction.output.fields.map((field: { name: string }) => [field.name, field]));
    expect(fields.seller_name).toMatchObject({ value: 'THE GREEN TABLE' });
    expect(fields.currency).toMatchObject({ value: 'USD' });
    expect(fields.issue_date).toMatchObject({ value: '2026-11-05' });
    expect(fields.total_amount).toMatchObject({ value: 36.52 });
    expect(fields.total_amount.metadata.confidence).toBeGreaterThan(0.9);
  });

  it('reads a Canadian invoice as its client would: GST and QST added into the tax, the total both are in, the client as buyer', async () => {
    // Letter-size text PDF, positions in points from the top.
    const placed: [number, number, string][] = [
      [50, 50, 'Maple Leaf Design Inc.'], [400, 50, 'INVOICE'], [50, 64, '1200 Rue Sainte-Catherine O, Montréal QC H3B 1K9'], [400, 70, 'No. MLD-2291'],
      [400, 84, 'Date: November 2, 2026'], [50, 130, 'Client:'], [50, 144, 'Northern Lights Café'],
      [50, 210, 'Item'], [380, 210, 'Hours'], [440, 210, 'Rate'], [520, 210, 'Total'],
      [50, 226, 'Brand identity package'], [380, 226, '24'], [440, 226, '85.00'], [520, 226, '2,040.00'],
      [400, 290, 'Subtotal'], [520, 290, '2,040.00'], [400, 306, 'GST 5%'], [520, 306, '102.00'], [400, 322, 'QST 9.975%'], [520, 322, '203.49'],
      [400, 338, 'Total (CAD)'], [520, 338, '2,345.49'],
    ];
    const invoice = Buffer.from(await placedTextPdf([placed.map(([x, y, text]) => ({ text, x, y: 792 - y, size: 10 }))]));
    const extraction = await client.waitForTerminal((await client.upload(invoice, 'maple-leaf.pdf')).body.id);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(values).toMatchObject({ currency: 'CAD', net_amount: 2040, tax_amount: 305.49, total_amount: 2345.49, buyer_name: 'Northern Lights Café' });
    expect(values.line_items).toEqual([{ description: 'Brand identity package', quantity: 24, unit_price: 85, amount: 2040 }]);
  });

  it('reads a card slip that prints "AMOUNT DUE" above the card payment as a paid receipt, not a document to pay later', async () => {
    const lines = ['CHEVRON', '2100 El Camino Real, Palo Alto, CA 94306', "Nov 27 '26 07:55 AM", 'PUMP 04 REGULAR', '9.512 GAL @ 4.699/GAL', 'FUEL                 44.70', 'AMOUNT DUE           44.70', 'VISA                 44.70'];
    const height = 40 + lines.length * 12;
    const slip = Buffer.from(await placedTextPdf([lines.map((text, index) => ({ text, x: 12, y: height - 20 - index * 12, size: 8 }))], { width: 226, height }));
    const extraction = await client.waitForTerminal((await client.upload(slip, 'fuel.pdf')).body.id);

    // Before the fix it ended FAILED with DOCUMENT_NOT_ROUTED: "due" read as a bill to pay later.
    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(values).toMatchObject({ currency: 'USD', total_amount: 44.7, issue_date: '2026-11-27', seller_name: 'CHEVRON' });
  });

  it('reads the buyer an Italian invoice addresses with "Spett.le", which prints no colon', async () => {
    // A4 text PDF, positions in points from the top.
    const placed: [number, number, string][] = [
      [50, 50, 'Rossi S.r.l.'], [50, 64, 'Via Roma 12, 20121 Milano - P.IVA 01234567890'], [50, 100, 'FATTURA N. 125/2024 del 10/04/2024'],
      [320, 130, 'Spett.le Bianchi S.p.A.'], [320, 144, 'Via Verdi 3, 10121 Torino'],
      [300, 300, 'Imponibile'], [480, 300, '500,00'], [300, 316, 'IVA 22%'], [480, 316, '110,00'], [300, 332, 'Totale documento'], [480, 332, '€ 610,00'],
    ];
    const invoice = Buffer.from(await placedTextPdf([placed.map(([x, y, text]) => ({ text, x, y: 842 - y, size: 10 }))], { width: 595, height: 842 }));
    const extraction = await client.waitForTerminal((await client.upload(invoice, 'fattura.pdf')).body.id);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(values).toMatchObject({ currency: 'EUR', total_amount: 610, seller_name: 'Rossi S.r.l.', buyer_name: 'Bianchi S.p.A.' });
  });

  it('reads a receipt photo\'s name and date as printed where tesseract alone misreads them (the second recogniser)', async () => {
    // A photographed Malaysian till receipt: tesseract alone reads "Me. DULY. (M) SDN BHD" and 17-06-13.
    const photo = await readFile(corpusFile('receipts/sroie_588.jpg'));
    const extraction = await client.waitForTerminal((await client.upload(photo, 'receipt.jpg')).body.id, 60_000);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(values).toMatchObject({ seller_name: 'MR. D.I.Y. (M) SDN BHD', issue_date: '2018-06-17', currency: 'MYR' });
  }, 90_000);

  it('reads a receipt photo\'s name where tesseract misreads all of a word and a running number precedes it', async () => {
    // tesseract reads "#000002 E&TEU (M) Sdn Bhd"; the network reads BAIFU surely, and "#000002" is the till's counter.
    const photo = await readFile(corpusFile('receipts-wide/sroie_202.jpg'));
    const extraction = await client.waitForTerminal((await client.upload(photo, 'receipt.jpg')).body.id, 60_000);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(values).toMatchObject({ seller_name: 'BAIFU (M) Sdn Bhd', currency: 'MYR' });
  }, 90_000);

  it.each([
    ['a quarter clockwise (lines running down the image)', 90],
    ['upside down', 180],
    ['a quarter anticlockwise (lines running up the image)', 270],
  ] as const)('reads a receipt photo sent turned %s as upright, its boxes on the image as sent', async (_, degrees) => {
    // A photo whose turn is in its pixels, not in an EXIF tag (a scan, a photo passed through a chat app).
    const photo = await sharp(await readFile(corpusFile('receipts-wide/sroie_321.jpg'))).rotate(degrees).jpeg().toBuffer();
    const extraction = await client.waitForTerminal((await client.upload(photo, 'turned-receipt.jpg')).body.id, 90_000);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const fields = Object.fromEntries(extraction.output.fields.map((field: { name: string }) => [field.name, field]));
    expect(fields.seller_name.value.toUpperCase()).toBe('HAXINCONE RESOURCES SDN BHD');
    expect(fields.total_amount.value).toBe(3.7);
    expect(fields.issue_date.value).toBe('2018-04-20');
    // The head of the receipt: on the right-hand side of an image turned a quarter clockwise, on the
    // left of one turned anticlockwise, at the bottom of one upside down; its line runs along the side.
    const seller = fields.seller_name.metadata.placement;
    if (degrees === 180) {
      expect(seller.y).toBeGreaterThan(0.5);
      expect(seller.width).toBeGreaterThan(seller.height);
    } else {
      expect(degrees === 90 ? seller.x : 1 - seller.x - seller.width).toBeGreaterThan(0.5);
      expect(seller.height).toBeGreaterThan(seller.width);
    }
  }, 120_000);

  /** A till slip as a text PDF: each line at the left, its amount (if any) in a column on the right. */
  async function tillSlip(lines: readonly [string, string?][]): Promise<Buffer> {
    const height = 40 + lines.length * 12;
    const texts = lines.flatMap(([text, amount], index) => {
      const y = height - 20 - index * 12;
      return [{ text, x: 12, y, size: 8 }, ...(amount ? [{ text: amount, x: 170, y, size: 8 }] : [])];
    });
    return Buffer.from(await placedTextPdf([texts], { width: 226, height }));
  }

  it('takes a name printed over two lines whole where its company number closes it on a line of its own', async () => {
    const slip = await tillSlip([
      ['KEDAI KOPI LAMAN'],
      ['LAMAN SELERA'],
      ['001234567-W'],
      ['22, JALAN PUDU, 55100 KUALA LUMPUR'],
      ['RECEIPT'],
      ['04/05/2026 07:19'],
      ['KOPI O', '2.50'],
      ['TOTAL', '2.50'],
    ]);
    const extraction = await client.waitForTerminal((await client.upload(slip, 'slip.pdf')).body.id);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(values).toMatchObject({ seller_name: 'KEDAI KOPI LAMAN LAMAN SELERA', total_amount: 2.5 });
  });

  it('keys a brand naming its trade with the legal name, and restores the point of a total printed without it', async () => {
    const lines: [string, string?][] = [
      ['KEMBANG HARDWARE'],
      ['Kembang Niaga Sdn Bhd (704512-T)'],
      ['NO. 8, JALAN TELAWI 2, 59100 KUALA LUMPUR'],
      ['RECEIPT'],
      ['04/05/2026 07:19'],
      ['BAKERY TRAY 18X14', '12.00'],
      ['TOTAL', '1200'],
      ['CASH', '20.00'],
      ['THANK YOU, PLEASE COME AGAIN'],
    ];
    const extraction = await client.waitForTerminal((await client.upload(await tillSlip(lines), 'slip.pdf')).body.id);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const fields = extraction.output.fields as { name: string; value: unknown; metadata: { confidence: number } }[];
    const values = Object.fromEntries(fields.map((field) => [field.name, field.value]));
    expect(values).toMatchObject({ seller_name: 'KEMBANG HARDWARE Kembang Niaga Sdn Bhd', total_amount: 12, currency: 'MYR' });
    // Both are readings the page does not state outright: never certain.
    for (const name of ['seller_name', 'total_amount']) expect(fields.find((field) => field.name === name)!.metadata.confidence).toBeLessThan(0.9);
  });

  it('reads the count a till prints in a column of its own as the item\'s quantity, not part of its name', async () => {
    const rows: [string, string, string][] = [['COCA COLA 600ML', '1', '18.50'], ['PAN BIMBO', '2', '104.00'], ['TOTAL', '', '122.50'], ['EFECTIVO', '', '200.00'], ['CAMBIO', '', '77.50']];
    const head = ['OXXO', 'CADENA COMERCIAL OXXO SA DE CV', 'FECHA: 27/11/2026 14:32'];
    const height = 40 + (head.length + rows.length) * 12;
    const texts = [
      ...head.map((text, index) => ({ text, x: 12, y: height - 20 - index * 12, size: 8 })),
      ...rows.flatMap(([name, count, amount], index) => {
        const y = height - 20 - (head.length + index) * 12;
        return [{ text: name, x: 12, y, size: 8 }, ...(count ? [{ text: count, x: 120, y, size: 8 }] : []), { text: amount, x: 170, y, size: 8 }];
      }),
    ];
    const slip = Buffer.from(await placedTextPdf([texts], { width: 226, height }));
    const extraction = await client.waitForTerminal((await client.upload(slip, 'oxxo.pdf')).body.id);

    expect(extraction).toMatchObject({ status: 'COMPLETED', outputAvailable: true });
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(values).toMatchObject({ currency: 'MXN', total_amount: 122.5 });
    expect(values.line_items).toEqual([
      { description: 'COCA COLA 600ML', quantity: 1, amount: 18.5 },
      { description: 'PAN BIMBO', quantity: 2, amount: 104 },
    ]);
  });

  it('accepts a multipart upload with labels in one request', async () => {
    const created = await client.upload(await invoicePdf(), 'upload.pdf', { source: 'scanner' });
    const extraction = await client.waitForTerminal(created.body.id);

    expect(created.status).toBe(202);
    expect(extraction).toMatchObject({ status: 'COMPLETED', labels: { source: 'scanner' }, document: { fileName: 'upload.pdf' } });
  });

  it('takes labels from a JSON part too', async () => {
    const created = await client.uploadWithJsonLabelsPart(await invoicePdf(), 'json-part.pdf', '{"source":"api","batch":"7"}');

    expect(created.status).toBe(202);
    expect(created.body.labels).toEqual({ source: 'api', batch: '7' });
  });

  it('reprocesses a terminal extraction as a new generation with a new event', async () => {
    const created = await client.upload(await invoicePdf(), 'again.pdf');
    const first = await client.waitForTerminal(created.body.id);

    await reprocessExtraction(undefined, first.id);
    const second = await client.waitForTerminal(first.id);

    expect(second.status).toBe('COMPLETED');
    expect(second.completedAt > first.completedAt).toBe(true);
    const events = await waitForEvents(workspaceId, first.id, 2);
    expect(events.map((event) => event.eventType)).toEqual(['document-insights.extraction.completed', 'document-insights.extraction.completed']);
    expect(new Set(events.map((event) => event.eventId)).size).toBe(2);
  });
});

describe('a document that fails', () => {
  it('ends FAILED DOCUMENT_NOT_ROUTED when labels.docType names no configured type', async () => {
    const created = await client.upload(await invoicePdf(), 'invoice.pdf', { docType: 'purchase_order' });
    const extraction = await client.waitForTerminal(created.body.id);

    expect(extraction).toMatchObject({ status: 'FAILED', outputAvailable: false, error: { code: 'DOCUMENT_NOT_ROUTED' } });
    expect(extraction.output).toBeUndefined();
    const events = await waitForEvents(workspaceId, extraction.id, 1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventType: 'document-insights.extraction.failed', data: { error: { code: 'DOCUMENT_NOT_ROUTED' } } });
    expect(events[0]!.data.output).toBeUndefined();
  });

  it('ends FAILED DOCUMENT_EXTRACTION_FAILED when a required field is missing', async () => {
    const purchaseOrder = await textPdf(['PURCHASE ORDER', 'Purchase order for four office chairs', 'Quantity: 4']);

    const created = await configuredClient.upload(purchaseOrder, 'po.pdf', { docType: 'purchase_order' });
    const extraction = await configuredClient.waitForTerminal(created.body.id);

    expect(extraction).toMatchObject({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED' } });
    expect(extraction.error.message).toContain('po_number');
    expect((await waitForEvents(configuredWorkspaceId, extraction.id, 1)).map((event) => event.eventType)).toEqual(['document-insights.extraction.failed']);
  });
});

describe('a damaged PDF that readers recover', () => {
  const withJunkBeforeHeader = (pdf: Uint8Array): Buffer => Buffer.concat([Buffer.from('X-Scanner-Job: 4711\r\nContent-Type: application/pdf\r\n\r\n\u0000\u0001', 'latin1'), Buffer.from(pdf)]);
  const withoutXrefAndTrailer = (pdf: Uint8Array): Buffer => Buffer.from(Buffer.from(pdf).toString('latin1').replace(/\nxref\r?\n0 \d+[\s\S]*$/, '\n'), 'latin1');

  // PDF 1.5: the catalog and pages packed in an object stream that only the (lost) xref stream indexes.
  const withoutXrefStream = (pdf: Uint8Array): Buffer => {
    const text = Buffer.from(pdf).toString('latin1');
    return Buffer.from(text.slice(0, text.search(/\d+ 0 obj\s*<<(?:(?!endobj)[\s\S])*\/Type\s*\/XRef/)), 'latin1');
  };

  it.each([
    ['junk before its header', withJunkBeforeHeader, false],
    ['its xref table and trailer cut off', withoutXrefAndTrailer, false],
    ['its xref stream cut off, the catalog inside an object stream', withoutXrefStream, true],
    ['junk before its header and its xref stream cut off', (pdf: Uint8Array) => withJunkBeforeHeader(withoutXrefStream(pdf)), true],
  ])('is accepted at upload and completes with the right fields: %s', async (_, damage, useObjectStreams) => {
    // pdf-lib writes object streams by default; the xref table damages apply to a plain xref table.
    const damaged = damage(await invoicePdf({ invoiceNumber: 'DMG-42', useObjectStreams }));

    const created = await client.upload(damaged, 'scanner-mail.pdf');
    const extraction = await client.waitForTerminal(created.body.id);

    expect(created.status).toBe(202);
    expect(extraction).toMatchObject({ status: 'COMPLETED', document: { mimeType: 'application/pdf', pageCount: 1 } });
    const fields = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(fields).toMatchObject({ invoice_number: 'DMG-42', total_amount: 1190, currency: 'EUR' });
  });
});

describe('a document that is rejected', () => {
  it('ends REJECTED DOCUMENT_REJECTED for an encrypted PDF', async () => {
    const created = await client.upload(await readFile(encryptedPdfPath), 'locked.pdf');
    const extraction = await client.waitForTerminal(created.body.id);

    expect(extraction).toMatchObject({ status: 'REJECTED', error: { code: 'DOCUMENT_REJECTED' } });
    expect(extraction.error.message).toMatch(/encrypt|password/i);
    const events = await waitForEvents(workspaceId, extraction.id, 1);
    expect(events.map((event) => event.eventType)).toEqual(['document-insights.extraction.rejected']);
  });

  it('ends REJECTED DOCUMENT_REJECTED for an empty downloaded document', async () => {
    const created = await client.create({ document: { url: `${documentBase}/empty.pdf` } });
    const extraction = await client.waitForTerminal(created.body.id);

    expect(extraction).toMatchObject({ status: 'REJECTED', error: { code: 'DOCUMENT_REJECTED' } });
    expect(extraction.error.message).toMatch(/empty/i);
  });

  it('ends REJECTED DOCUMENT_REJECTED for content seen before when the duplicate policy rejects', async () => {
    const content = await invoicePdf({ invoiceNumber: 'DUP-1' });
    const first = await configuredClient.waitForTerminal((await configuredClient.upload(content, 'first.pdf')).body.id);

    const second = await configuredClient.waitForTerminal((await configuredClient.upload(content, 'second.pdf')).body.id);
    const sameContentElsewhere = await client.waitForTerminal((await client.upload(content, 'other-workspace.pdf')).body.id);

    expect(first.status).toBe('COMPLETED');
    expect(second).toMatchObject({ status: 'REJECTED', error: { code: 'DOCUMENT_REJECTED' } });
    expect(second.error.message).toMatch(/duplicate/i);
    expect(sameContentElsewhere.status).toBe('COMPLETED');
  });
});

describe('a document given by URL', () => {
  it('is downloaded, stored as a file of the workspace and extracted', async () => {
    const created = await client.create({ document: { url: `${documentBase}/documents/supplier-invoice.pdf` }, labels: { via: 'url' } });
    const extraction = await client.waitForTerminal(created.body.id);

    expect(created.body.document).toEqual({});
    expect(extraction).toMatchObject({ status: 'COMPLETED', document: { fileName: 'supplier-invoice.pdf', mimeType: 'application/pdf' } });
    expect(extraction.document.fileId).toMatch(/^file_/);
    expect(extraction.output.fields.find((field: { name: string }) => field.name === 'invoice_number').value).toBe('URL-7');
  });

  it('names the stored download after document.fileName when given', async () => {
    const created = await client.create({ document: { url: `${documentBase}/documents/supplier-invoice.pdf`, fileName: 'march.pdf' } });

    expect((await client.waitForTerminal(created.body.id)).document.fileName).toBe('march.pdf');
  });

  it('is refused at the API for a loopback URL unless the local setting allows it', async () => {
    delete process.env.PAPERFLOW_ALLOW_PRIVATE_URLS;
    try {
      const refused = await client.create({ document: { url: `${documentBase}/documents/supplier-invoice.pdf` } });

      expect(refused.status).toBe(422);
      expect(refused.body.error.details).toEqual([{ field: 'document.url', issue: 'The URL must use https.' }]);
      const loopbackHttps = await client.create({ document: { url: 'https://127.0.0.1/invoice.pdf' } });
      expect(loopbackHttps.body.error.details[0]).toMatchObject({ field: 'document.url', issue: expect.stringMatching(/private, loopback/) });
    } finally {
      process.env.PAPERFLOW_ALLOW_PRIVATE_URLS = 'true';
    }
  });

  it('fails (recorded) when a redirect leads to a private address', async () => {
    const created = await client.create({ document: { url: `${documentBase}/to-metadata` } });
    const extraction = await client.waitForTerminal(created.body.id);

    expect(extraction).toMatchObject({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED' } });
    expect(extraction.error.message).toMatch(/private, loopback or reserved/);
  });
});

describe('faults', () => {
  it('ends FAILED, never stuck, when a Task throws on every attempt', async () => {
    unavailableHits = 0;
    const created = await client.create({ document: { url: `${documentBase}/unavailable.pdf` } });
    const extraction = await client.waitForTerminal(created.body.id);

    expect(extraction).toMatchObject({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED' } });
    expect(extraction.error.message).toMatch(/HTTP 503.*retries/);
    expect(unavailableHits).toBe(4); // the first attempt and three retries (statemachines/extraction.asl.json)
    expect(await waitForEvents(workspaceId, extraction.id, 1)).toHaveLength(1);
  });

  it('answers 409 to a delete while processing, and the sweeper ends a stuck extraction with one event', async () => {
    const created = await client.create({ document: { url: `${documentBase}/held.pdf` } });
    await client.waitForStatus(created.body.id, 'PROCESSING');
    const held = await heldResponse();

    const conflict = await client.json(`/document-insights/extractions/${created.body.id}`, { method: 'DELETE' });
    const report = await extractionSettlement().sweep(0);
    const swept = await client.get(created.body.id);
    held.writeHead(200, { 'content-type': 'application/pdf' }).end(await invoicePdf());
    expect(await waitForExecutionEnd(created.body.id)).toBe('SUCCEEDED');
    const afterLateFinish = await client.get(created.body.id);

    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('CONFLICT');
    expect(report.failedStuck).toBeGreaterThanOrEqual(1);
    expect(swept.body).toMatchObject({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED' } });
    expect(afterLateFinish.body.status).toBe('FAILED');
    expect(afterLateFinish.body.completedAt).toBe(swept.body.completedAt);
    expect(await waitForEvents(workspaceId, created.body.id, 1)).toHaveLength(1);
  });
});

describe('a start that fails', () => {
  it('answers 502 and leaves the extraction FAILED with its event, not QUEUED', async () => {
    const stateMachineArn = process.env.PAPERFLOW_EXTRACTION_STATE_MACHINE_ARN!;
    process.env.PAPERFLOW_EXTRACTION_STATE_MACHINE_ARN = `${stateMachineArn}-missing`;
    let response;
    try {
      response = await client.upload(await invoicePdf(), 'unstarted.pdf', { purpose: 'start-failure' });
    } finally {
      process.env.PAPERFLOW_EXTRACTION_STATE_MACHINE_ARN = stateMachineArn;
    }
    const listed = await client.list('labels[purpose]=start-failure');

    expect(response.status).toBe(502);
    expect(response.body.error).toMatchObject({ code: 'DOWNSTREAM_ERROR', retryable: true });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED' } });
    expect(await waitForEvents(workspaceId, listed.body.data[0].id, 1)).toHaveLength(1);
  });
});

describe('delete', () => {
  it('removes a terminal extraction: 204, then 404 for every operation on it', async () => {
    const created = await client.upload(await invoicePdf(), 'to-delete.pdf', { purpose: 'delete-test' });
    const extraction = await client.waitForTerminal(created.body.id);
    const fieldId = extraction.output.fields[0].id;
    expect((await client.json(`/document-insights/extractions/${extraction.id}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'wrong', fieldId }) })).status).toBe(201);

    const deleted = await client.request(`/document-insights/extractions/${extraction.id}`, { method: 'DELETE' });

    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect((await client.get(extraction.id)).status).toBe(404);
    expect((await client.request(`/document-insights/extractions/${extraction.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await client.list('labels[purpose]=delete-test')).body.pageInfo.totalItems).toBe(0);
  });
});
