import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Logger, Plugin } from 'vite';

/** What is worth compressing: text. Images other than SVG are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|webmanifest|txt)$/;

export interface Compressed {
  file: string;
  bytes: number;
  gzip: number;
  brotli: number;
}

/** Writes `file.gz` and `file.br` beside every compressible file under `dir`, at the highest levels. */
export function precompressDir(dir: string): Compressed[] {
  const written: Compressed[] = [];
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        visit(full);
        continue;
      }
      if (!COMPRESSIBLE.test(entry.name)) continue;
      // Every text file gets both twins, however small: nginx sends a script's .br twin to any
      // client that accepts brotli without checking that it exists.
      const content = readFileSync(full);
      const gzip = gzipSync(content, { level: constants.Z_BEST_COMPRESSION });
      const brotli = brotliCompressSync(content, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
        },
      });
      writeFileSync(`${full}.gz`, gzip);
      writeFileSync(`${full}.br`, brotli);
      written.push({ file: full, bytes: content.length, gzip: gzip.length, brotli: brotli.length });
    }
  };
  visit(dir);
  return written;
}

/**
 * Precompresses the build output: every text file gets a `.gz` and a `.br` twin, which the api's
 * static server and nginx (`gzip_static`, and a map for brotli) send to clients that accept them.
 */
export function precompress(): Plugin {
  let outDir = 'dist';
  let logger: Logger | null = null;
  return {
    name: 'taco-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      logger = config.logger;
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        const written = precompressDir(outDir);
        const sum = (key: 'bytes' | 'gzip' | 'brotli') =>
          written.reduce((total, file) => total + file[key], 0);
        logger?.info(
          `precompressed ${written.length} files: ${sum('bytes')} B, gzip ${sum('gzip')} B, brotli ${sum('brotli')} B`,
        );
      },
    },
  };
}
