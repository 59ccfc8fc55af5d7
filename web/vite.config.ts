import react from '@vitejs/plugin-react';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { purgeBootstrap } from './build/purge-bootstrap';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig(({ command }) => ({
  plugins: [
    react(),
    // Every text file gets .gz and .br twins at the highest levels, however small: the api and
    // nginx send them to clients that accept them (nginx sends a .br twin without checking it
    // exists, so none may be skipped).
    compression({
      include: /\.(js|mjs|css|html|svg|json|webmanifest|txt)$/,
      threshold: 0,
      skipIfLargerOrEqual: false,
      // The library's levels for these are the highest: gzip 9, brotli 11.
      algorithms: ['gzip', 'brotliCompress'],
    }),
  ],
  resolve: {
    // The protocol package is consumed from source, so the client needs no separate build of it:
    // its index, and its end-to-end construction (`@taco/protocol/e2e-crypto`), which only the
    // lazily loaded crypto chunk imports (features/e2e/e2eCrypto.ts).
    alias: [
      { find: /^@taco\/protocol$/, replacement: here('../protocol/src/index.ts') },
      { find: /^@taco\/protocol\/e2e-crypto$/, replacement: here('../protocol/src/e2e-crypto.ts') },
    ],
  },
  define: {
    'import.meta.env.VITE_BUILD_VERSION': JSON.stringify(pkg.version),
  },
  css: {
    preprocessorOptions: {
      scss: {
        // Bootstrap 5.3's Sass still uses @import and global functions; its own warnings say so.
        quietDeps: true,
        silenceDeprecations: ['import', 'global-builtin', 'color-functions', 'if-function'],
      },
    },
    // The build keeps only the Bootstrap rules the sources use; the dev server keeps them all,
    // so a class just written shows at once.
    postcss: {
      plugins: command === 'build' ? [purgeBootstrap(here('.'))] : [],
    },
  },
  server: {
    proxy: { '/api': { target: 'http://localhost:3000', ws: true } },
  },
  build: {
    outDir: 'dist',
    // No source maps in production: they would publish the whole source (2.5 MB).
    sourcemap: false,
    // Terser packs React and RTK about 4 % smaller than esbuild's minifier.
    minify: 'terser',
    target: 'es2022',
    modulePreload: { polyfill: false },
    rollupOptions: {
      // A chunk this small costs more as a request than as bytes: Rollup merges it into a chunk
      // that is always loaded with it (the end-to-end shapes, `protocol/src/e2e.ts`, go to the
      // main bundle, where the room page and the crypto chunk both find them).
      output: { experimentalMinChunkSize: 1000 },
    },
    terserOptions: {
      ecma: 2020,
      module: true,
      compress: { passes: 2 },
      format: { comments: false },
    },
  },
}));
