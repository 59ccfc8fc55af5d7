import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createConnection } from 'node:net';
import getPort from 'get-port';

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` every `intervalMs` until it returns true, `timeoutMs` passes (throws, naming
 * `what`), or `abort` returns a reason to stop early (throws with it).
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  { timeoutMs = 30_000, intervalMs = 100, abort }: WaitOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reason = abort?.();
    if (reason) throw new Error(`${what}: ${reason}`);
    if (await check()) return;
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  abort?: () => string | undefined;
}

/** The HTTP status of a GET, or 0 when nothing answers (within `timeoutMs`). */
export async function httpStatus(url: string, timeoutMs = 2000): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it came over the wire: still compressed when Content-Encoding says so. */
  body: Buffer;
}

/** What `rawRequest` sends besides the URL. */
export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as it is, with no header added for it (give `Content-Length` to send one). */
  body?: Buffer;
  timeoutMs?: number;
}

/**
 * A request sent as given and an answer kept as received: no header the caller did not write
 * but `Host` and `Connection: close` (a body without `Content-Length` goes chunked), the bytes as
 * sent (fetch would ask for and undo compression itself).
 */
export function rawRequest(
  url: string,
  { method = 'GET', headers = {}, body, timeoutMs = 10_000 }: RawRequestOptions = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // A connection of its own: a kept-alive one may lead to a server that has since gone.
    const request = httpRequest(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.setTimeout(timeoutMs, () =>
      request.destroy(new Error(`${url}: no answer in ${timeoutMs} ms`)),
    );
    request.end(body);
  });
}

/** A GET that keeps the bytes as sent. */
export function rawGet(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<RawResponse> {
  return rawRequest(url, { headers, timeoutMs });
}

/** Whether a Redis server answers PING on this loopback port. */
export function redisPing(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

/** `count` distinct free loopback ports (get-port holds each one it gave back for 15–30 s). */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await getPort({ host: '127.0.0.1' }));
  return ports;
}

/** Whether something accepts TCP connections on this loopback port. */
export function isListening(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}
