/**
 * The compose stack for real: `docker-compose up --build` of the repository's docker-compose.yml
 * under a project name of its own, then, from the host through nginx on TACO_PORT, everything
 * README.md's "Run it at scale" tells users to do (open the app, scale, drain one replica, the k6
 * load test) plus a SIGKILLed replica under traffic and a Redis restart. Always ends with
 * `down -v`. Needs a Docker engine: run with `npm run test:compose` (never part of `npm test`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloseCode, FrameType, type ServerFrame } from '@taco/protocol';
import { sleep, waitFor } from '@taco/harness';
import {
  credentials,
  history,
  isLive,
  isPresence,
  join as joinRoom,
  type LiveMessage,
  liveMessages,
  rejoin,
  type RawClient,
} from '../test/support/chat';
import { docker, seconds, uniqueProjectName } from '../test/support/docker';
import { K6_TIMEOUT_MS, k6Figures, runK6Smoke } from './test/k6-smoke';
import {
  acknowledgements,
  askCredentials,
  BACK_WITHIN_MS,
  closeAll,
  expectEachAckedOnce,
  key,
  onePerReplica,
  recordSeqs,
  REPLICAS,
  resumeFrom,
  SCALED,
  sendBack,
  StackUnderTest,
  type Tracked,
  within,
} from './test/stack-checks';

const figures: Record<string, unknown> = {};

describe('docker-compose stack: redis, api ×3, nginx, k6', () => {
  const project = uniqueProjectName();
  const suffix = project.slice(-6);
  const clients: RawClient[] = [];
  const under = new StackUnderTest(project, figures, clients);
  const { compose, waitHealthy, scaleApi, createRoom, connectTracked, spread } = under;
  let baseUrl = '';

  beforeAll(async () => {
    await under.start();
    baseUrl = under.baseUrl;
  }, 700_000);

  afterAll(() => under.finish(), 200_000);

  it('serves the web client and creates rooms through nginx on TACO_PORT', async () => {
    for (const path of ['/', `/r/welcome-${suffix}`]) {
      const response = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(5000) });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toContain('<div id="root">');
    }
    await createRoom(`welcome-${suffix}`, 'alice');
  });

  it('gives clients on three different replicas one order, one history, typing and presence', async () => {
    const room = `spread-${suffix}`;
    const creatorToken = await createRoom(room, 'ann');
    const names = ['ann', 'ben', 'cat', 'dan', 'eve', 'fay', 'gil', 'hal', 'ida'];
    const tracked = [await connectTracked(room, 'ann', creatorToken)];
    if (new Set(tracked.map((t) => t.container)).size < REPLICAS) {
      tracked.push(...(await spread(room, names.slice(1), REPLICAS - 1)));
    }
    const picked = onePerReplica(tracked);
    // The token made by one replica works on the others: one JWT secret for all.
    expect(picked).toHaveLength(REPLICAS);
    figures.clientsToReachThreeReplicas = tracked.length;

    for (let round = 0; round < 3; round++) {
      for (const { client, name } of picked) {
        client.send({
          type: FrameType.Message,
          body: `${name} ${round}`,
          client_id: `${name}-${round}`,
        });
      }
    }
    const received = await Promise.all(picked.map(({ client }) => liveMessages(client, 9)));
    const reference = (received[0] ?? []).map(key);
    for (const messages of received) expect(messages.map(key)).toEqual(reference);
    const seqs = (received[0] ?? []).map((message) => message.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(9);
    for (const { client } of picked) {
      expect((await history(client)).messages.map(key)).toEqual(reference);
    }

    const [first, ...others] = picked;
    first?.client.send({ type: FrameType.Typing, typing: true });
    for (const { client } of others) {
      expect(await client.nextOfType(FrameType.Typing, 5000)).toMatchObject({
        room,
        sender: first?.name,
        typing: true,
      });
    }

    const newcomer = await joinRoom(baseUrl, room, 'zed', await credentials(baseUrl, room, 'zed'));
    clients.push(newcomer);
    await Promise.all(picked.map(({ client }) => client.next(isPresence('zed', true), 5000)));
    await newcomer.close();
    await Promise.all(picked.map(({ client }) => client.next(isPresence('zed', false), 5000)));
    await closeAll(tracked);
  });

  it('drains one replica with `docker stop`: its clients move to the others and miss nothing', async () => {
    const room = `drain-${suffix}`;
    await createRoom(room, 'watcher');
    // README: docker stop "$(docker compose ps -q api | head -n 1)"
    const [drained] = await compose().ids('api');
    if (!drained) throw new Error('no api container');
    const drainedState = (await compose().running('api')).find((c) => c.id.startsWith(drained));
    if (!drainedState) throw new Error(`${drained} is not running`);
    const tracked: Tracked[] = [];
    // Clients until one is on the replica to drain and one (the watcher) on another.
    const onDrained = (t: Tracked) => t.container === drainedState.id;
    for (let i = 0; i < 12 && !(tracked.some(onDrained) && !tracked.every(onDrained)); i++) {
      tracked.push(await connectTracked(room, `mover ${i}`));
    }
    const movers = tracked.filter(onDrained);
    const watcher = tracked.find((t) => !onDrained(t));
    if (!watcher || movers.length === 0) throw new Error('no client on the drained replica');

    // Every seq each mover sees, live or resumed from history.
    const seen = movers.map(({ client }) => recordSeqs(client, new Set<number>()));
    // The watcher talks throughout; every mover must end up with every acknowledged message.
    const acks = acknowledgements(watcher.client, watcher.name);
    let talking = true;
    const talk = (async () => {
      for (let i = 0; talking && i < 80; i++) {
        watcher.client.send({ type: FrameType.Message, body: `drain ${i}`, client_id: `d${i}` });
        await sleep(100);
      }
    })();
    await waitFor('five acknowledged', () => acks.size >= 5, { timeoutMs: 10_000 });

    const stoppedAt = Date.now();
    const stop = docker(['stop', drained], { timeoutMs: 60_000 });
    const closes = await within(
      Promise.all(movers.map(({ client }) => client.closed)),
      BACK_WITHIN_MS,
      'the drained replica closing its sockets',
    );
    for (const close of closes) expect(close.code).toBe(CloseCode.Restart);
    const back = await Promise.all(
      movers.map(async ({ name, token }, index) => {
        const { client } = await rejoin(baseUrl, room, name, token, BACK_WITHIN_MS);
        clients.push(client);
        const took = Date.now() - stoppedAt;
        await resumeFrom(client, recordSeqs(client, seen[index] ?? new Set<number>()));
        return { client, took };
      }),
    );
    await stop;
    figures.drainBackMs = Math.max(...back.map(({ took }) => took));
    expect(figures.drainBackMs).toBeLessThan(BACK_WITHIN_MS);

    talking = false;
    await talk;
    await sleep(500);
    const acked = [...acks.values()];
    for (const seqs of seen)
      for (const seq of acked) expect([seq, seqs.has(seq)]).toEqual([seq, true]);
    expect(watcher.client.socket.readyState).toBe(watcher.client.socket.OPEN);
    figures.drainAcked = acked.length;
    await closeAll([...tracked, ...back]);

    // `docker compose up -d` brings the stopped replica back.
    await compose().run(['up', '-d'], { timeoutMs: 180_000 });
    await waitHealthy(REPLICAS);
  });

  it(`scales to ${SCALED} replicas and back to ${REPLICAS}`, async () => {
    const room = `scale-${suffix}`;
    await createRoom(room, 'host');
    const old = new Set((await compose().running('api')).map((c) => c.id));
    const scaledAt = Date.now();
    await scaleApi(SCALED);
    await waitHealthy(SCALED);
    figures.scaleUpHealthySeconds = seconds(Date.now() - scaledAt);

    // nginx re-resolves `api` every second; least_conn then prefers the empty new replicas.
    const tracked: Tracked[] = [];
    await waitFor(
      'a client on a new replica and one on an old one',
      async () => {
        tracked.push(await connectTracked(room, `guest ${tracked.length}`));
        return (
          tracked.some((t) => !old.has(t.container)) && tracked.some((t) => old.has(t.container))
        );
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    const fresh = tracked.find((t) => !old.has(t.container));
    const veteran = tracked.find((t) => old.has(t.container));
    if (!fresh || !veteran) throw new Error('no client on a new replica or on an old one');
    figures.clientsToReachANewReplica = tracked.length;
    fresh.client.send({ type: FrameType.Message, body: 'from a new replica', client_id: 'n1' });
    for (const t of tracked) {
      expect(await t.client.next(isLive, 5000)).toMatchObject({ body: 'from a new replica' });
    }
    veteran.client.send({ type: FrameType.Message, body: 'to the new one', client_id: 'n2' });
    for (const t of tracked) {
      expect(await t.client.next(isLive, 5000)).toMatchObject({ body: 'to the new one' });
    }

    // Someone opens the app while replicas go away: every credentials call through nginx is
    // answered, from the scale-down until well after nginx has re-resolved `api`.
    let scaledDownAt = Number.POSITIVE_INFINITY;
    const answers: number[] = [];
    const asking = askCredentials(baseUrl, room, answers, () => scaledDownAt + 6000);
    await scaleApi(REPLICAS);
    scaledDownAt = Date.now();
    await asking;
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    figures.scaleDownAnswers = answers.length;
    await waitHealthy(REPLICAS);
    const left = new Set((await compose().running('api')).map((c) => c.id));
    // Clients of the removed replicas were drained (1012) and come back through nginx.
    for (const t of tracked.filter((t) => !left.has(t.container))) {
      expect((await within(t.client.closed, BACK_WITHIN_MS, `${t.name} closed`)).code).toBe(
        CloseCode.Restart,
      );
      const { client } = await rejoin(baseUrl, room, t.name, t.token, BACK_WITHIN_MS);
      clients.push(client);
      await client.close();
    }
    await closeAll(tracked);
  });

  it('loses no acknowledged message when a replica is SIGKILLed under traffic; every client is back within 15 s', async () => {
    const room = `kill-${suffix}`;
    await createRoom(room, 'keeper');
    const names = [0, 1, 2, 3, 4, 5].map((i) => `sender ${i}`);
    const tracked: Tracked[] = [];
    for (const name of names) tracked.push(await connectTracked(room, name));
    const victim = tracked[0]?.container ?? '';
    const victims = tracked.filter((t) => t.container === victim);
    const survivors = tracked.filter((t) => t.container !== victim);
    expect(survivors.length).toBeGreaterThan(0);

    // Every client sends every 50 ms (at most 70 each, so history's 500 hold them all).
    const acks = new Map<string, Map<string, number>>();
    for (const t of tracked) acks.set(t.name, acknowledgements(t.client, t.name));
    const bodies = new Map<string, string>(); // client_id → body
    const traffic = tracked.map(async ({ client, name }) => {
      for (let i = 0; i < 70 && client.socket.readyState === client.socket.OPEN; i++) {
        const clientId = `${name}-${i}`;
        bodies.set(clientId, `${name} says ${i}`);
        client.send({ type: FrameType.Message, body: `${name} says ${i}`, client_id: clientId });
        await sleep(50);
      }
    });
    await waitFor(
      'five acknowledged messages per client',
      () => [...acks.values()].every((map) => map.size >= 5),
      { timeoutMs: 10_000 },
    );

    const killedAt = Date.now();
    await docker(['kill', victim], { timeoutMs: 30_000 });
    const closes = await within(
      Promise.all(victims.map(({ client }) => client.closed)),
      BACK_WITHIN_MS,
      'the killed replica’s sockets dropping',
    );
    for (const close of closes) expect(close.code).toBe(CloseCode.Abnormal);
    const back = await Promise.all(
      victims.map(async ({ name, token }) => {
        const { client } = await rejoin(baseUrl, room, name, token, BACK_WITHIN_MS);
        clients.push(client);
        const took = Date.now() - killedAt;
        const map = acknowledgements(client, name, acks.get(name));
        sendBack(client, name, bodies);
        await waitFor(`${name}'s echoes after rejoining`, () => map.has(`${name}-back-4`), {
          timeoutMs: 5000,
        });
        return { client, took };
      }),
    );
    figures.killReconnectMs = Math.max(...back.map(({ took }) => took));
    expect(figures.killReconnectMs).toBeLessThan(BACK_WITHIN_MS);
    await Promise.all(traffic);
    await sleep(500);
    for (const { client } of survivors) {
      expect(client.socket.readyState).toBe(client.socket.OPEN);
    }

    // Every acknowledged message is in history exactly once, under the seq it was given.
    const stored = (await history(survivors[0]?.client as RawClient, 500)).messages;
    figures.killAcked = expectEachAckedOnce(stored, acks, bodies);
    figures.killInHistory = stored.length;
    figures.killVictimClients = victims.length;
    await closeAll([...tracked, ...back]);

    // Back to three replicas for what follows.
    await scaleApi(REPLICAS);
    await waitHealthy(REPLICAS);
  });

  it('keeps history and seq across a Redis restart (AOF), and live delivery resumes', async () => {
    const room = `kill-${suffix}`;
    const watcher = await joinRoom(
      baseUrl,
      room,
      'watcher',
      await credentials(baseUrl, room, 'watcher'),
    );
    clients.push(watcher);
    const before = await history(watcher, 500);
    expect(before.messages.length).toBeGreaterThan(0);

    const restartedAt = Date.now();
    await compose().run(['restart', 'redis'], { timeoutMs: 120_000 });
    await waitHealthy(REPLICAS);
    figures.redisRestartHealthySeconds = seconds(Date.now() - restartedAt);

    const reader = await joinRoom(
      baseUrl,
      room,
      'reader',
      await credentials(baseUrl, room, 'reader'),
    );
    clients.push(reader);
    const after = await history(reader, 500);
    expect(after.messages.map(key)).toEqual(before.messages.map(key));
    expect((after as { epoch?: string }).epoch).toBe((before as { epoch?: string }).epoch);

    // The next message continues the room's seq, and reaches a socket opened before the restart.
    const lastSeq = Math.max(...before.messages.map((message) => message.seq));
    reader.send({ type: FrameType.Message, body: 'after the restart', client_id: 'r1' });
    const echo = await reader.next<LiveMessage & ServerFrame>(isLive, 10_000);
    expect(echo).toMatchObject({ body: 'after the restart', seq: lastSeq + 1 });
    expect(await watcher.next(isLive, 15_000)).toMatchObject({ body: 'after the restart' });
    figures.historyAfterRedisRestart = after.messages.length;
    await Promise.all([watcher.close(), reader.close()]);
  });

  it(
    'runs the k6 chat script (PROFILE=smoke) from the compose k6 service without losing a message',
    async () => {
      const out = mkdtempSync(join(tmpdir(), 'taco-k6-'));
      try {
        const { code, stdout, stderr } = await runK6Smoke(compose(), out);
        const { summary, k6 } = k6Figures(out, code, stdout, stderr);
        figures.k6 = k6;
        if (code !== 0) process.stderr.write(`k6 exited ${code}:\n${stdout}\n${stderr}\n`);
        // k6 exits 0 only when every threshold of the script held (loss, latency, checks).
        expect(code).toBe(0);
        expect(k6.sent).toBeGreaterThan(0);
        expect(k6.received).toBeGreaterThan(0);
        expect(k6.lost).toBe(0);
        expect(k6.errorFrames).toBe(0);
        expect(summary.metrics.chat_messages_lost).toBeDefined();
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    K6_TIMEOUT_MS + 30_000,
  );

  it('logs one line per socket in the replicas, and never a token in any log', async () => {
    const api = await compose().logs('api');
    const nginx = await compose().logs('nginx');
    // The replicas log socket opens and closes with the room (never the token).
    const socketLines = api
      .split('\n')
      .filter((line) => line.includes(`spread-${suffix}`) || line.includes(`kill-${suffix}`));
    figures.apiSocketLogLines = socketLines.length;
    expect(socketLines.length).toBeGreaterThan(0);
    // nginx logs every socket request, without its query string.
    expect(nginx).toMatch(new RegExp(`GET /api/room/kill-${suffix}/ws HTTP/1.1"? 101`));
    for (const [name, text] of [
      ['api', api],
      ['nginx', nginx],
    ] as const) {
      expect([name, text.includes('token=')]).toEqual([name, false]);
      expect([name, text.includes('eyJ')]).toEqual([name, false]);
    }
  });
});
