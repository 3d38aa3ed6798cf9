// make bench-web: the production JS+CSS the browser downloads, gzipped,
// against the 350 KB budget.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = new URL('../../server/web/dist/assets/', import.meta.url).pathname;
const budget = 350 * 1024;
let raw = 0;
let gz = 0;
const files = readdirSync(dir).filter((f) => f.endsWith('.js') || f.endsWith('.css'));
if (files.length === 0) {
  console.error(`no build in ${dir}: run 'make web'`);
  process.exit(1);
}
for (const f of files) {
  const b = readFileSync(join(dir, f));
  raw += b.length;
  gz += gzipSync(b, { level: 9 }).length;
}
const kb = (n) => (n / 1024).toFixed(1);
console.log(`dashboard: JS+CSS ${kb(gz)} KB gzipped (${kb(raw)} KB raw, ${files.length} files; budget ${kb(budget)} KB)${gz > budget ? ' OVER BUDGET' : ''}`);
