import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Page } from 'playwright-core';
import { type Cluster, startCluster } from '@taco/harness';
import { BrowserSuite, feed, send, socketsPerReplica, waitOnline } from './test/suite';

/**
 * A private room over two api replicas behind nginx, Redis between them (protocol/README.md
 * §6.9–§6.13): an end-to-end encrypted room whose text is never in Redis, in any log or in any
 * file the deployment wrote (each scanned for a marker), messages that disappear from both
 * browsers and from Redis itself, and a removal that reaches the other replica.
 */

const STEP_MS = 20_000;
jest.setTimeout(240_000);

let cluster: Cluster;
let redis: Redis;
const browser = new BrowserSuite(() => cluster.url, STEP_MS);
let ana: Page;
let bob: Page;

/** Every value Redis holds, as text: strings, lists, hashes, sets and sorted sets. */
async function everythingInRedis(): Promise<string> {
  const parts: string[] = [];
  for (const key of await redis.keys('*')) {
    const type = await redis.type(key);
    if (type === 'string') parts.push(String(await redis.get(key)));
    if (type === 'list') parts.push(...(await redis.lrange(key, 0, -1)));
    if (type === 'hash') parts.push(...Object.values(await redis.hgetall(key)));
    if (type === 'set') parts.push(...(await redis.smembers(key)));
    if (type === 'zset') parts.push(...(await redis.zrange(key, '0', '-1')));
    parts.push(key);
  }
  return parts.join('\n');
}

/** Every file under `dir` (logs, Redis's AOF, nginx's logs), as text. */
function everyFileUnder(dir: string): string {
  const texts: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, entry);
    if (statSync(path).isFile()) texts.push(readFileSync(path, 'latin1'));
  }
  return texts.join('\n');
}

beforeAll(async () => {
  cluster = await startCluster({ replicas: 2, env: { DISAPPEAR_SHORTEST: '1m' } });
  if (!cluster.redis) throw new Error('The cluster runs without Redis');
  redis = new Redis(cluster.redis.port, '127.0.0.1');
  await browser.launch();
  ana = await browser.newPage();
  bob = await browser.newPage();
}, 90_000);

afterAll(async () => {
  redis?.disconnect();
  await browser.close();
  await cluster?.stop();
}, 60_000);

describe('A private room over two replicas, in the browser', () => {
  it('keeps the text of an encrypted room out of Redis, every log and every file', async () => {
    await ana.goto('/');
    await ana.getByLabel('Your Name').fill('Ana');
    await ana.getByRole('checkbox', { name: 'End-to-end encrypted' }).check();
    await ana.getByLabel('Disappearing messages').selectOption({ label: '1 minute' });
    await ana.getByRole('button', { name: 'Create Room' }).click();
    await waitOnline(ana, 'Ana');
    // The link the sidebar's Share button copies carries the key.
    await ana
      .getByRole('list', { name: /Participants/ })
      .locator('xpath=..')
      .getByRole('button', { name: 'Share' })
      .click();
    const link = await ana.evaluate(() => navigator.clipboard.readText());
    expect(link).toMatch(/#[A-Za-z0-9_-]{43}$/);

    await bob.goto(link);
    const dialog = bob.getByRole('dialog');
    await dialog.getByLabel('Username').fill('Bob');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await waitOnline(bob, 'Bob');
    expect((await socketsPerReplica(cluster)).sort()).toEqual([1, 1]);

    const marker = `marker-${randomBytes(9).toString('hex')}`;
    await send(ana, `the secret is ${marker}`);
    await feed(bob).getByText(`the secret is ${marker}`).waitFor();
    await send(bob, `and the answer is ${marker.toUpperCase()}`);
    await feed(ana).getByText(`and the answer is ${marker.toUpperCase()}`).waitFor();

    const stored = await everythingInRedis();
    expect(stored).toContain('"body":"e1.');
    for (const haystack of [
      stored,
      cluster.replicas.flatMap((replica) => replica.lines).join('\n'),
      everyFileUnder(cluster.workDir),
    ]) {
      expect(haystack.toLowerCase().includes(marker)).toBe(false);
    }
  });

  it('lets the messages disappear from both browsers and from Redis after a minute', async () => {
    const log = (await redis.keys('chat:{*}:log'))[0];
    if (log === undefined) throw new Error('No room log in Redis');
    expect(await redis.llen(log)).toBe(2);
    const gone = { state: 'detached' as const, timeout: 80_000 };
    await Promise.all([
      feed(ana).getByText('the secret is', { exact: false }).waitFor(gone),
      feed(bob).getByText('the secret is', { exact: false }).waitFor(gone),
    ]);
    const deadline = Date.now() + 10_000;
    while ((await redis.llen(log)) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await redis.llen(log)).toBe(0);
  });

  it('removes someone on the other replica at once, and keeps them out', async () => {
    await ana.getByRole('button', { name: 'Actions for Bob' }).click();
    await ana.getByRole('menuitem', { name: 'Remove from room…' }).click();
    await ana
      .getByRole('dialog', { name: 'Remove Bob?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await bob.getByRole('heading', { name: 'You were removed from this room' }).waitFor();
    await feed(ana).getByText('Ana removed Bob', { exact: true }).waitFor();
    await bob.reload();
    await bob.getByRole('heading', { name: 'You were removed from this room' }).waitFor();
    expect(await socketsPerReplica(cluster)).toContain(0);
  });
});
