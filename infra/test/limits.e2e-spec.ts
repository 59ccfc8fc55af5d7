import { ApiPath, CloseCode } from '@taco/protocol';
import { type Cluster, startCluster, waitFor } from '@taco/harness';
import { credentials, isPresence, RawClient } from './support/chat';

const CREDENTIALS_PER_MINUTE = 6;
const CONNECTIONS_PER_IP = 4;

/** Opens a socket through nginx; resolves when it joined its room or was closed. */
async function open(url: string, room: string, name: string, token: string) {
  const client = RawClient.connect(
    `${url.replace(/^http/, 'ws')}${ApiPath.roomSocket(room, token)}`,
    undefined,
    name,
  );
  const joined = client.next(isPresence(name, true), 5000).then(() => 'joined' as const);
  const outcome = await Promise.race([joined, client.closed]);
  return { client, outcome: outcome === 'joined' ? outcome : outcome.code };
}

/** Every call and socket here comes from one address, 127.0.0.1, through nginx. */
describe.each([
  ['one Redis', false],
  ['a Redis Cluster', true],
])('per-IP limits over three replicas behind nginx, %s', (_label, redisCluster) => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({
      replicas: 3,
      redisCluster,
      env: {
        CREDENTIALS_PER_MINUTE: String(CREDENTIALS_PER_MINUTE),
        CONNECTIONS_PER_IP: String(CONNECTIONS_PER_IP),
        LOG_LEVEL: 'warn',
      },
    });
  }, 90_000);
  afterAll(() => cluster?.stop(), 30_000);

  it('holds open connections at CONNECTIONS_PER_IP however nginx spreads them', async () => {
    const room = 'crowded-room';
    // One credentials call: a name may keep several sockets open with its token.
    const token = await credentials(cluster.url, room, 'ann');
    const sockets = [];
    for (let i = 0; i < CONNECTIONS_PER_IP + 3; i++) {
      sockets.push(await open(cluster.url, room, 'ann', token));
    }
    const outcomes = sockets.map((socket) => socket.outcome);
    expect(outcomes.filter((outcome) => outcome === 'joined')).toHaveLength(CONNECTIONS_PER_IP);
    expect(outcomes.slice(CONNECTIONS_PER_IP)).toEqual(
      Array<number>(3).fill(CloseCode.TryAgainLater),
    );
    // A socket that leaves frees its place, whichever replica counted it.
    await sockets[0]?.client.close();
    await waitFor(
      'a freed place',
      async () => {
        const retry = await open(cluster.url, room, 'ann', token);
        if (retry.outcome === 'joined') sockets.push(retry);
        return retry.outcome === 'joined';
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    for (const socket of sockets) socket.client.socket.terminate();
  }, 60_000);

  it('holds credential calls at CREDENTIALS_PER_MINUTE however nginx spreads them', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < CREDENTIALS_PER_MINUTE * 3; i++) {
      const response = await fetch(`${cluster.url}${ApiPath.roomCredentials('budget-room')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sender_id: `user ${i}` }),
        signal: AbortSignal.timeout(5000),
      });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    // The previous test spent one call of the minute's budget.
    expect(statuses.filter((status) => status === 200)).toHaveLength(CREDENTIALS_PER_MINUTE - 1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(
      CREDENTIALS_PER_MINUTE * 2 + 1,
    );
  }, 60_000);
});
