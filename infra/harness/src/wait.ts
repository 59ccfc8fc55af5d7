import { createConnection } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import getPort from 'get-port';

export { sleep };

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

/**
 * Whether something accepts TCP connections on this loopback port; with `ask`, whether its first
 * line of answer to `ask.send` starts with `ask.expect`.
 */
function tcpProbe(port: number, timeoutMs: number, ask?: { send: string; expect: string }) {
  return new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => (ask ? socket.write(ask.send) : done(true)));
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith(ask?.expect ?? ''));
    });
  });
}

/** Whether a Redis server answers PING on this loopback port. */
export const redisPing = (port: number, timeoutMs = 1000): Promise<boolean> =>
  tcpProbe(port, timeoutMs, { send: 'PING\r\n', expect: '+PONG' });

/** Whether something accepts TCP connections on this loopback port. */
export const isListening = (port: number, timeoutMs = 500): Promise<boolean> =>
  tcpProbe(port, timeoutMs);

/** `count` distinct free loopback ports (get-port holds each one it gave back for 15–30 s). */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await getPort({ host: '127.0.0.1' }));
  return ports;
}
