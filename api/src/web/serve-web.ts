import { statSync } from 'node:fs';
import { extname, join, relative, resolve, sep } from 'node:path';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { API_PREFIX } from '@taco/protocol';
import { type NextFunction, type Request, type Response } from 'express';

const HASHED_ASSETS = '/assets/';
/** Hashed file names never change content: a year, and no revalidation. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** Everything else (index.html, favicon): revalidated on every use. */
export const PAGE_CACHE_CONTROL = 'no-cache';

/** The build's precompressed twins, best first: `file.br`, then `file.gz`. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;
type Encoding = (typeof ENCODINGS)[number];

/** Source maps are never served, even when a build left them in the folder. */
const SOURCE_MAP = /\.map$/i;

/**
 * Whether `path` is a file of the build. Any path the file system refuses (a null byte, a file
 * used as a folder, a name or path too long) is none: a request for it is not a server error.
 */
function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

const isApiPath = (path: string) => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);

/**
 * The `q` of each coding in an Accept-Encoding header (RFC 9110 §12.5.3). A coding the client
 * does not name is acceptable only through `*`; `q=0` refuses it. No header: none but identity.
 */
export function acceptedEncodings(header: string | undefined): Set<string> {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.toLowerCase().split(';');
    const coding = name.trim();
    if (coding === '') continue;
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(coding, Number.isFinite(weight) ? weight : 0);
  }
  const accepted = new Set<string>();
  for (const { name } of ENCODINGS) {
    const weight = weights.get(name) ?? weights.get('*') ?? 0;
    if (weight > 0) accepted.add(name);
  }
  return accepted;
}

/**
 * Sends `file` (an absolute path inside the build), or its precompressed twin when the client
 * accepts that coding: the original's Content-Type, the twin's length, `Vary: Accept-Encoding`.
 */
function sendBuilt(
  request: Request,
  response: Response,
  next: NextFunction,
  root: string,
  file: string,
  cacheControl: string,
): void {
  response.setHeader('Cache-Control', cacheControl);
  response.vary('Accept-Encoding');
  const accepted = acceptedEncodings(request.headers['accept-encoding']);
  const encoding: Encoding | undefined = ENCODINGS.find(
    ({ name, suffix }) => accepted.has(name) && isFile(join(root, file + suffix)),
  );
  const done = (error?: Error) => error && next(error);
  if (!encoding) {
    response.sendFile(file, { root }, done);
    return;
  }
  response.type(extname(file));
  response.setHeader('Content-Encoding', encoding.name);
  // Byte ranges of a compressed body mean nothing to a client that wants the file's.
  response.sendFile(file + encoding.suffix, { root, acceptRanges: false }, done);
}

/**
 * Serves the built web client: its files, and `index.html` for every other GET outside the API
 * (`/`, `/a`, `/r/:room_id` and unknown pages, which the client routes itself). Text files go
 * out precompressed (brotli or gzip, written by the build) to clients that accept it.
 */
export function serveWeb(app: NestExpressApplication, dist: string): void {
  const root = resolve(dist);
  const isRead = (request: Request) => request.method === 'GET' || request.method === 'HEAD';

  // Files of the build (never a source map), precompressed when the client accepts it.
  app.use((request: Request, response: Response, next: NextFunction) => {
    if (!isRead(request) || isApiPath(request.path)) return next();
    let path: string;
    try {
      path = decodeURIComponent(request.path);
    } catch {
      return next();
    }
    if (SOURCE_MAP.test(path)) {
      response.status(404).type('text/plain').send('Not Found');
      return;
    }
    const file = join(root, path);
    if (!file.startsWith(root + sep) || !isFile(file)) return next();
    const cacheControl = path.startsWith(HASHED_ASSETS) ? ASSET_CACHE_CONTROL : PAGE_CACHE_CONTROL;
    sendBuilt(request, response, next, root, relative(root, file), cacheControl);
  });
  app.use((request: Request, response: Response, next: NextFunction) => {
    const isPage =
      isRead(request) && !isApiPath(request.path) && !request.path.startsWith(HASHED_ASSETS);
    if (!isPage) {
      next();
      return;
    }
    sendBuilt(request, response, next, root, 'index.html', PAGE_CACHE_CONTROL);
  });
}
