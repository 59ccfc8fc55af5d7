/**
 * Helpers of the compose stack suite (stack.compose-spec.ts): its settings, the bounded
 * wait-until-healthy, and the clients it tracks to the replica their socket landed on.
 */
import { join } from 'node:path';
import { ApiPath, type CreateRoomResponse, FrameType, type ServerFrame } from '@taco/protocol';
import { freePorts, sleep, waitFor } from '@taco/harness';
import {
  credentials,
  type HistoryFrame,
  isHistory,
  isLive,
  join as joinRoom,
  type LiveMessage,
  type RawClient,
} from '../../test/support/chat';
import { ComposeProject } from '../../test/support/compose';
import {
  artifacts,
  type Container,
  docker,
  keepFigures,
  seconds,
  TEST_CLIENT_LIMITS,
} from '../../test/support/docker';

export const REPLICAS = 3;
export const SCALED = 5;
/** Every client of a killed or drained replica must be back within this (issue 12). */
export const BACK_WITHIN_MS = 15_000;
export const HEALTHY_WITHIN_MS = 180_000;
/** Where the figures, the logs and the k6 summary are kept for CI. */
export const ARTIFACTS = artifacts('compose');

export interface Tracked {
  client: RawClient;
  name: string;
  token: string;
  /** The api container this client's socket landed on. */
  container: string;
}

/** `promise`, or an error naming `what` after `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One client per replica, from a spread. */
export const onePerReplica = (tracked: Tracked[]): Tracked[] => {
  const seen = new Map<string, Tracked>();
  for (const t of tracked) if (!seen.has(t.container)) seen.set(t.container, t);
  return [...seen.values()];
};

/** Records each own message's echo (the acknowledgement): client_id → seq. */
export const acknowledgements = (
  client: RawClient,
  name: string,
  acks = new Map<string, number>(),
) => {
  client.socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as Partial<LiveMessage>;
    if (frame.type === FrameType.Message && frame.sender === name && frame.client_id) {
      acks.set(frame.client_id, frame.seq ?? -1);
    }
  });
  return acks;
};

/** Adds the seq of every live message `client` receives to `seqs`. */
export const recordSeqs = (client: RawClient, seqs: Set<number>): Set<number> => {
  client.socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
    if (isLive(frame) && 'seq' in frame) seqs.add(frame.seq);
  });
  return seqs;
};

/** Like the web client: asks for history after the last seq seen, and adds what it answers. */
export async function resumeFrom(client: RawClient, seqs: Set<number>): Promise<void> {
  client.send({ type: FrameType.History, count: 500, after: Math.max(0, ...seqs) });
  const resumed = await client.next<HistoryFrame & ServerFrame>(isHistory, 5000);
  for (const message of resumed.messages) seqs.add(message.seq);
}

/** Five messages `<name> is back <j>` (client_id `<name>-back-<j>`), each body kept. */
export function sendBack(client: RawClient, name: string, bodies: Map<string, string>): void {
  for (let j = 0; j < 5; j++) {
    bodies.set(`${name}-back-${j}`, `${name} is back ${j}`);
    client.send({
      type: FrameType.Message,
      body: `${name} is back ${j}`,
      client_id: `${name}-back-${j}`,
    });
  }
}

export const closeAll = async (tracked: { client: RawClient }[]) => {
  await Promise.all(tracked.map(({ client }) => client.close()));
};

export const key = (message: { seq: number; sender: string; body: string }) =>
  `${message.seq}|${message.sender}|${message.body}`;

/** POSTs for credentials through nginx every 50 ms until `until()` (at most 2000), each status kept. */
export async function askCredentials(
  baseUrl: string,
  room: string,
  answers: number[],
  until: () => number,
): Promise<void> {
  for (let i = 0; i < 2000 && Date.now() < until(); i++) {
    const response = await fetch(`${baseUrl}${ApiPath.roomCredentials(room)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sender_id: `newcomer ${i}` }),
      signal: AbortSignal.timeout(15_000),
    });
    answers.push(response.status);
    await sleep(50);
  }
}

/**
 * Every acknowledged message (client_id → seq per sender; `bodies`: client_id → body) is in
 * history exactly once, under the seq it was given. Returns how many were acknowledged.
 */
export function expectEachAckedOnce(
  stored: { seq: number; body: string }[],
  acks: Map<string, Map<string, number>>,
  bodies: Map<string, string>,
): number {
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
  return acked;
}

/**
 * The suite's stack once `beforeAll` has started it, and the helpers that need it. Its helpers
 * are arrow functions, so that the suite can take them out as they are.
 */
export class StackUnderTest {
  stack: ComposeProject | undefined;
  baseUrl = '';
  /** Whether the host reaches container addresses (Linux); else metrics go through docker exec. */
  private direct: boolean | undefined;

  constructor(
    readonly project: string,
    /** The suite's figures, kept for CI. */
    readonly figures: Record<string, unknown>,
    /** Every client opened, terminated by `afterAll`. */
    readonly clients: RawClient[],
  ) {}

  readonly compose = (): ComposeProject => {
    if (!this.stack) throw new Error('the stack did not start');
    return this.stack;
  };

  /** `up -d --build` under the project's own name and image tag, then the bounded wait. */
  readonly start = async (): Promise<void> => {
    const [port] = await freePorts(1);
    const variables = {
      ...TEST_CLIENT_LIMITS,
      TACO_PORT: String(port),
      // Images of this run's own: a run beside it (another checkout) never swaps them.
      TACO_IMAGE_TAG: this.project,
      // No secret: the replicas must agree on the one generated in Redis.
      JWT_SECRET: '',
      LOG_LEVEL: 'info',
    };
    const stack = new ComposeProject(this.project, variables);
    this.stack = stack;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.figures.project = this.project;
    this.figures.compose = stack.command.join(' ');

    const startedAt = Date.now();
    await stack.run(['up', '-d', '--build'], { timeoutMs: 480_000 });
    this.figures.upSeconds = seconds(Date.now() - startedAt);
    await this.waitHealthy(REPLICAS);
    this.figures.healthySeconds = seconds(Date.now() - startedAt);
  };

  /** Sockets terminated, every log kept, `down -v`, and the figures written. */
  readonly finish = async (): Promise<void> => {
    for (const client of this.clients) client.socket.terminate();
    if (this.stack) {
      // Every service's log, kept for a failed run (it never holds a token: see the last test).
      await this.stack.saveLogs(join(ARTIFACTS, 'compose.log'));
      // Always: containers, network and the Redis volume go, whatever happened above.
      this.figures.downExit = await this.stack.tearDown();
    }
    keepFigures(join(ARTIFACTS, 'figures.json'), 'compose', this.figures);
  };

  /** `up -d --scale api=<count> --no-recreate`. */
  readonly scaleApi = (count: number) =>
    this.compose().run(['up', '-d', '--scale', `api=${count}`, '--no-recreate'], {
      timeoutMs: 180_000,
    });

  /**
   * Waits until `replicas` api replicas, redis and nginx are running and healthy; a slow wait's
   * changes of their states are kept in the figures.
   */
  readonly waitHealthy = async (replicas: number, timeoutMs = HEALTHY_WITHIN_MS) => {
    const startedAt = Date.now();
    const changes = await this.compose().waitHealthy(
      { redis: 1, api: replicas, nginx: 1 },
      { timeoutMs, intervalMs: 500 },
    );
    if (Date.now() - startedAt > 20_000) {
      const slow = (this.figures.slowHealthWaits ?? []) as string[][];
      this.figures.slowHealthWaits = [...slow, changes];
    }
  };

  /** One replica's Prometheus text: straight to its address, or through `docker exec`. */
  readonly metrics = async (container: Container): Promise<string> => {
    if (this.direct !== false && container.address) {
      try {
        const response = await fetch(`http://${container.address}:3000${ApiPath.metrics}`, {
          signal: AbortSignal.timeout(1500),
        });
        if (response.ok) {
          this.direct = true;
          return await response.text();
        }
      } catch {
        this.direct ??= false;
      }
    }
    const script =
      "fetch('http://127.0.0.1:3000/api/metrics').then(async (r) => process.stdout.write(await r.text()), () => process.exit(1))";
    return (await docker(['exec', container.id, 'node', '-e', script], { timeoutMs: 15_000 }))
      .stdout;
  };

  /** Open sockets per running api container (taco_connections). */
  readonly connectionCounts = async (): Promise<Map<string, number>> => {
    const replicas = await this.compose().running('api');
    const entries = await Promise.all(
      replicas.map(async (container): Promise<[string, number]> => {
        const match = /^taco_connections\{[^}]*\} (\d+)$/m.exec(await this.metrics(container));
        return [container.id, match ? Number(match[1]) : Number.NaN];
      }),
    );
    return new Map(entries);
  };

  /** POST /api/room through nginx: creates the room, returns the creator's token. */
  readonly createRoom = async (room: string, sender: string): Promise<string> => {
    const response = await fetch(`${this.baseUrl}${ApiPath.createRoom}`, {
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
  readonly connectTracked = async (
    room: string,
    name: string,
    token?: string,
  ): Promise<Tracked> => {
    const before = await this.connectionCounts();
    const key = token ?? (await credentials(this.baseUrl, room, name));
    const client = await joinRoom(this.baseUrl, room, name, key);
    this.clients.push(client);
    let container = '';
    await waitFor(
      `the replica of ${name}`,
      async () => {
        const grown = [...(await this.connectionCounts())].filter(
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
  readonly spread = async (room: string, names: string[], count: number): Promise<Tracked[]> => {
    const tracked: Tracked[] = [];
    for (const name of names) {
      tracked.push(await this.connectTracked(room, name));
      if (new Set(tracked.map((t) => t.container)).size >= count) break;
    }
    return tracked;
  };
}
