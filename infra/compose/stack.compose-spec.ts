/**
 * The compose stack for real: `docker-compose up --build` of the repository's docker-compose.yml
 * under a project name of its own, then, from the host through nginx on TACO_PORT, everything
 * README.md's "Run it at scale" tells users to do (open the app, scale, drain one replica, the k6
 * load test) plus a SIGKILLed replica under traffic and a Redis restart. Always ends with
 * `down -v`. Needs a Docker engine: run with `npm run test:compose` (never part of `npm test`).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiPath,
  CloseCode,
  type CreateRoomResponse,
  FrameType,
  type ServerFrame,
} from '@taco/protocol';
import { freePorts, REPO_ROOT, sleep, waitFor } from '@taco/harness';
import {
  credentials,
  history,
  type HistoryFrame,
  isHistory,
  isLive,
  isPresence,
  join as joinRoom,
  type LiveMessage,
  liveMessages,
  rejoin,
  type RawClient,
} from '../test/support/chat';
import {
  ComposeProject,
  type ContainerState,
  docker,
  TEST_CLIENT_LIMITS as LIMITS,
  uniqueProjectName,
} from './compose';

const REPLICAS = 3;
const SCALED = 5;
/** Every client of a killed or drained replica must be back within this (issue 12). */
const BACK_WITHIN_MS = 15_000;
const HEALTHY_WITHIN_MS = 180_000;
/** The smoke profile runs for well under a minute; the bound leaves room for a slow machine. */
const K6_TIMEOUT_MS = 240_000;
/** Where the figures and the k6 summary are kept for CI (artifacts/ is ignored by git). */
const ARTIFACTS = join(REPO_ROOT, 'artifacts', 'compose');

interface Tracked {
  client: RawClient;
  name: string;
  token: string;
  /** The api container this client's socket landed on. */
  container: string;
}

const figures: Record<string, unknown> = {};

/** `promise`, or an error naming `what` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
const seconds = (ms: number) => Math.round(ms / 100) / 10;

describe('docker-compose stack: redis, api ×3, nginx, k6', () => {
  const project = uniqueProjectName();
  const suffix = project.slice(-6);
  let stack: ComposeProject | undefined;
  let baseUrl = '';
  const clients: RawClient[] = [];
  /** Whether the host reaches container addresses (Linux); else metrics go through docker exec. */
  let direct: boolean | undefined;

  const compose = (): ComposeProject => {
    if (!stack) throw new Error('the stack did not start');
    return stack;
  };

  /** Waits until `count` api replicas and every other service are running and healthy. */
  const waitHealthy = async (replicas: number, timeoutMs = HEALTHY_WITHIN_MS) => {
    const startedAt = Date.now();
    // Each change of the services' states, with the second it was seen: kept for slow waits.
    const changes: string[] = [];
    let last = '';
    await waitFor(
      `${replicas} healthy api replicas, redis and nginx`,
      async () => {
        const states = await Promise.all(
          ['redis', 'api', 'nginx'].map((service) => compose().running(service)),
        );
        const [redis = [], api = [], nginx = []] = states;
        const seen = states
          .flat()
          .map((c) => `${c.name.replace(`${project}_`, '')}=${c.health}`)
          .join(' ');
        if (seen !== last) changes.push(`${seconds(Date.now() - startedAt)}s ${seen}`);
        last = seen;
        const healthy = (list: ContainerState[]) => list.every((c) => c.health === 'healthy');
        return (
          redis.length === 1 &&
          nginx.length === 1 &&
          api.length === replicas &&
          healthy(redis) &&
          healthy(api) &&
          healthy(nginx)
        );
      },
      { timeoutMs, intervalMs: 500 },
    ).catch(async (error: unknown) => {
      const [nginx] = await compose().ids('nginx');
      const probes = nginx
        ? (
            await docker(['inspect', '--format', '{{json .State.Health.Log}}', nginx], {
              allowFailure: true,
            })
          ).stdout
        : '';
      throw new Error(`${String(error)}\n${changes.join('\n')}\nnginx probes: ${probes}`);
    });
    if (Date.now() - startedAt > 20_000) {
      const slow = (figures.slowHealthWaits ?? []) as string[][];
      figures.slowHealthWaits = [...slow, changes];
    }
  };

  /** One replica's Prometheus text: straight to its address, or through `docker exec`. */
  const metrics = async (container: ContainerState): Promise<string> => {
    if (direct !== false && container.address) {
      try {
        const response = await fetch(`http://${container.address}:3000${ApiPath.metrics}`, {
          signal: AbortSignal.timeout(1500),
        });
        if (response.ok) {
          direct = true;
          return await response.text();
        }
      } catch {
        direct ??= false;
      }
    }
    const script =
      "fetch('http://127.0.0.1:3000/api/metrics').then(async (r) => process.stdout.write(await r.text()), () => process.exit(1))";
    return (await docker(['exec', container.id, 'node', '-e', script], { timeoutMs: 15_000 }))
      .stdout;
  };

  /** Open sockets per running api container (taco_connections). */
  const connectionCounts = async (): Promise<Map<string, number>> => {
    const replicas = await compose().running('api');
    const entries = await Promise.all(
      replicas.map(async (container): Promise<[string, number]> => {
        const match = /^taco_connections\{[^}]*\} (\d+)$/m.exec(await metrics(container));
        return [container.id, match ? Number(match[1]) : Number.NaN];
      }),
    );
    return new Map(entries);
  };

  /** POST /api/room through nginx: creates the room, returns the creator's token. */
  const createRoom = async (room: string, sender: string): Promise<string> => {
    const response = await fetch(`${baseUrl}${ApiPath.createRoom}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ room_id: room, sender }),
      signal: AbortSignal.timeout(5000),
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as CreateRoomResponse;
    expect(body).toMatchObject({ room, name: sender });
    return body.token;
  };

  /**
   * Joins through nginx and finds the replica the socket landed on: the one container whose
   * open-socket count grew. (Only one client connects at a time while this runs.)
   */
  const connectTracked = async (room: string, name: string, token?: string): Promise<Tracked> => {
    const before = await connectionCounts();
    const key = token ?? (await credentials(baseUrl, room, name));
    const client = await joinRoom(baseUrl, room, name, key);
    clients.push(client);
    let container = '';
    await waitFor(
      `the replica of ${name}`,
      async () => {
        const grown = [...(await connectionCounts())].filter(
          ([id, count]) => count > (before.get(id) ?? 0),
        );
        if (grown.length !== 1) return false;
        container = grown[0]?.[0] ?? '';
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    return { client, name, token: key, container };
  };

  /** Clients until `count` distinct replicas hold one (or `max` clients). */
  const spread = async (room: string, names: string[], count: number): Promise<Tracked[]> => {
    const tracked: Tracked[] = [];
    for (const name of names) {
      tracked.push(await connectTracked(room, name));
      if (new Set(tracked.map((t) => t.container)).size >= count) break;
    }
    return tracked;
  };

  /** One client per replica, from a spread. */
  const onePerReplica = (tracked: Tracked[]): Tracked[] => {
    const seen = new Map<string, Tracked>();
    for (const t of tracked) if (!seen.has(t.container)) seen.set(t.container, t);
    return [...seen.values()];
  };

  /** Records each own message's echo (the acknowledgement): client_id → seq. */
  const acknowledgements = (client: RawClient, name: string, acks = new Map<string, number>()) => {
    client.socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as Partial<LiveMessage>;
      if (frame.type === FrameType.Message && frame.sender === name && frame.client_id) {
        acks.set(frame.client_id, frame.seq ?? -1);
      }
    });
    return acks;
  };

  const closeAll = async (tracked: { client: RawClient }[]) => {
    await Promise.all(tracked.map(({ client }) => client.close()));
  };

  const key = (message: { seq: number; sender: string; body: string }) =>
    `${message.seq}|${message.sender}|${message.body}`;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const [port] = await freePorts(1);
    const variables = {
      ...LIMITS,
      TACO_PORT: String(port),
      // Images of this run's own: a run beside it (another checkout) never swaps them.
      TACO_IMAGE_TAG: project,
      // No secret: the replicas must agree on the one generated in Redis.
      JWT_SECRET: '',
      LOG_LEVEL: 'info',
    };
    stack = new ComposeProject(project, variables);
    baseUrl = `http://127.0.0.1:${port}`;
    figures.project = project;
    figures.compose = stack.command.join(' ');

    const startedAt = Date.now();
    await stack.run(['up', '-d', '--build'], { timeoutMs: 480_000 });
    figures.upSeconds = seconds(Date.now() - startedAt);
    await waitHealthy(REPLICAS);
    figures.healthySeconds = seconds(Date.now() - startedAt);
  }, 700_000);

  afterAll(async () => {
    for (const client of clients) client.socket.terminate();
    if (stack) {
      // Every service's log, kept for a failed run (it never holds a token: see the last test).
      const logs = await stack
        .run(['logs', '--no-color', '--timestamps'], { timeoutMs: 60_000, allowFailure: true })
        .catch((error: unknown) => ({ stdout: '', stderr: String(error) }));
      writeFileSync(join(ARTIFACTS, 'compose.log'), logs.stdout + logs.stderr);
      // Always: containers, network and the Redis volume go, whatever happened above.
      const { code, stderr } = await stack.run(['down', '-v', '--remove-orphans'], {
        timeoutMs: 180_000,
        allowFailure: true,
      });
      figures.downExit = code;
      if (code !== 0) process.stderr.write(`compose down failed: ${stderr}\n`);
      // This run's tags go; their layers stay (--no-prune) as the build cache of the next run.
      await docker(
        ['rmi', '--no-prune', `taco-chat-api:${project}`, `taco-chat-nginx:${project}`],
        { timeoutMs: 60_000, allowFailure: true },
      );
    }
    writeFileSync(join(ARTIFACTS, 'figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(`compose scenario figures: ${JSON.stringify(figures)}\n`);
  }, 200_000);

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
    const seen = movers.map(({ client }) => {
      const seqs = new Set<number>();
      client.socket.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
        if (isLive(frame) && 'seq' in frame) seqs.add(frame.seq);
      });
      return seqs;
    });
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
        const seqs = seen[index] ?? new Set<number>();
        client.socket.on('message', (data: Buffer) => {
          const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
          if (isLive(frame) && 'seq' in frame) seqs.add(frame.seq);
        });
        // Like the web client: resume from the last seq seen.
        client.send({ type: FrameType.History, count: 500, after: Math.max(0, ...seqs) });
        const resumed = await client.next<HistoryFrame & ServerFrame>(isHistory, 5000);
        for (const message of resumed.messages) seqs.add(message.seq);
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
    await compose().run(['up', '-d', '--scale', `api=${SCALED}`, '--no-recreate'], {
      timeoutMs: 180_000,
    });
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
    const asking = (async () => {
      for (let i = 0; i < 2000 && Date.now() < scaledDownAt + 6000; i++) {
        const response = await fetch(`${baseUrl}${ApiPath.roomCredentials(room)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sender_id: `newcomer ${i}` }),
          signal: AbortSignal.timeout(15_000),
        });
        answers.push(response.status);
        await sleep(50);
      }
    })();
    await compose().run(['up', '-d', '--scale', `api=${REPLICAS}`, '--no-recreate'], {
      timeoutMs: 180_000,
    });
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
        for (let j = 0; j < 5; j++) {
          bodies.set(`${name}-back-${j}`, `${name} is back ${j}`);
          client.send({
            type: FrameType.Message,
            body: `${name} is back ${j}`,
            client_id: `${name}-back-${j}`,
          });
        }
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
    const byBody = new Map<string, number[]>();
    for (const message of stored) {
      byBody.set(message.body, [...(byBody.get(message.body) ?? []), message.seq]);
    }
    let acked = 0;
    for (const map of acks.values()) {
      for (const [clientId, seq] of map) {
        acked++;
        expect([clientId, byBody.get(bodies.get(clientId) ?? '')]).toEqual([clientId, [seq]]);
      }
    }
    for (const [body, seqs] of byBody) expect([body, seqs.length]).toEqual([body, 1]);
    figures.killAcked = acked;
    figures.killInHistory = stored.length;
    figures.killVictimClients = victims.length;
    await closeAll([...tracked, ...back]);

    // Back to three replicas for what follows.
    await compose().run(['up', '-d', '--scale', `api=${REPLICAS}`, '--no-recreate'], {
      timeoutMs: 180_000,
    });
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
        // The k6 image runs as its own user: let it write the summary.
        chmodSync(out, 0o777);
        const { code, stdout, stderr } = await compose().run(
          [
            '--profile',
            'loadtest',
            'run',
            '--rm',
            '-e',
            'PROFILE=smoke',
            '-v',
            `${out}:/out`,
            'k6',
            'run',
            '--quiet',
            '--summary-export=/out/summary.json',
            '/scripts/k6/chat.js',
          ],
          { timeoutMs: K6_TIMEOUT_MS, allowFailure: true },
        );
        if (!existsSync(join(out, 'summary.json'))) {
          throw new Error(
            `k6 wrote no summary (exit ${code}):\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
          );
        }
        const summaryText = readFileSync(join(out, 'summary.json'), 'utf8');
        writeFileSync(join(ARTIFACTS, 'k6-summary.json'), summaryText);
        const summary = JSON.parse(summaryText) as {
          metrics: Record<string, Record<string, number> | undefined>;
        };
        // The scripts' own metrics (loadtest/k6/chat-metrics.js), never k6's human output.
        const metric = (name: string) => summary.metrics[name] ?? {};
        const latency = metric('chat_delivery_latency');
        const k6 = {
          exit: code,
          sent: metric('chat_messages_sent').count ?? 0,
          received: metric('chat_messages_received').count ?? 0,
          lost: metric('chat_messages_lost').count ?? 0,
          p95Ms: latency['p(95)'],
          p99Ms: latency['p(99)'],
          errorFrames: metric('chat_error_frames').count ?? 0,
          unexpectedCloses: metric('chat_unexpected_closes').count ?? 0,
        };
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
