import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readDocument } from '../../src/extraction-engine/diagnostics.ts';
import { defaultExtractionConfiguration, extractDocument } from '../../src/extraction-engine/index.ts';

// The text path as a deployed extraction function runs it: bundled by bench/extraction-engine.ts the
// way the stack bundles the function (pdf.js and the other readers' packages left as node_modules),
// run by plain node with source maps on, reading and extracting every corpus text PDF once per pass.
// Prints the process's peak RSS (the kernel's high-water mark, not a sample).
const [corpus = '', passesText = '4'] = process.argv.slice(2);
const textPdfs: Uint8Array[] = [];
for (const folder of ['invoice2data', 'zugferd']) {
  for (const name of (await readdir(join(corpus, folder))).filter((file) => file.endsWith('.pdf')).sort()) {
    textPdfs.push(new Uint8Array(await readFile(join(corpus, folder, name))));
  }
}
for (let pass = 0; pass < Number(passesText); pass += 1) {
  for (const bytes of textPdfs) {
    extractDocument(await readDocument(bytes, { mediaType: 'application/pdf', ocrImagesOnTextPages: false }), { configuration: defaultExtractionConfiguration });
  }
}
console.log(JSON.stringify({ peakRssMb: process.resourceUsage().maxRSS / 1024 }));
