import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// The Go package server/web embeds this directory; it keeps a placeholder
// so a clone without a web build still compiles.
const outDir = resolve(__dirname, '../server/web/dist');

function keepPlaceholder(): Plugin {
  return {
    name: 'kubeopera-keep-placeholder',
    closeBundle() {
      writeFileSync(resolve(outDir, '.keep'), '');
    },
  };
}

export default defineConfig({
  plugins: [react(), keepPlaceholder()],
  build: {
    outDir,
    emptyOutDir: true,
    // No inline scripts or modulepreload polyfill: the server's CSP is
    // script-src 'self'.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/openapi.json': 'http://127.0.0.1:8080' },
  },
});
