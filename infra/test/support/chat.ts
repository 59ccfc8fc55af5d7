import {
  CloseCode,
  FrameType,
  type ServerFrame,
  type ServerHistoryFrame,
  type ServerMessageFrame,
} from '@taco/protocol';
import { isHistory, isLive, isPresence, RawClient, sleep, socketUrl } from '@taco/harness';

export { credentials, isHistory, isLive, isPresence, RawClient } from '@taco/harness';
export type { ServerHistoryFrame as HistoryFrame, ServerMessageFrame as LiveMessage };

/** Opens a socket to `baseUrl` (nginx or one replica) and waits until it has joined the room. */
export async function join(
  baseUrl: string,
  room: string,
  name: string,
  token: string,
  headers?: Record<string, string>,
): Promise<RawClient> {
  const client = RawClient.connect(socketUrl(baseUrl, room, { token }), { headers }, name);
  await client.opened;
  // Joined: the newcomer hears its own presence (with everyone present).
  await client.next(isPresence(name, true), 5000);
  return client;
}

/**
 * Reconnects a raw client after a drop or 1012: through `baseUrl`, again at once with a little
 * jitter when the socket is refused or closed before joining, until `deadlineMs` passes.
 */
export async function rejoin(
  baseUrl: string,
  room: string,
  name: string,
  token: string,
  deadlineMs = 10_000,
): Promise<{ client: RawClient; attempts: number }> {
  const deadline = Date.now() + deadlineMs;
  let attempts = 0;
  let lastError: unknown;
  while (Date.now() < deadline) {
    attempts++;
    const client = RawClient.connect(socketUrl(baseUrl, room, { token }), undefined, name);
    try {
      await client.opened;
      const joined = client.next(isPresence(name, true), 3000).then(
        () => 'joined' as const,
        () => 'timeout' as const,
      );
      const outcome = await Promise.race([joined, client.closed]);
      if (outcome === 'joined') return { client, attempts };
      client.socket.terminate();
      if (outcome === 'timeout') {
        lastError = new Error('no presence frame within 3000 ms');
      } else if (outcome.code === CloseCode.Unauthorized || outcome.code === CloseCode.Policy) {
        throw new Error(`${name}: closed with ${outcome.code} while rejoining`);
      } else {
        lastError = new Error(`closed with ${outcome.code}`);
      }
    } catch (error) {
      client.socket.terminate();
      if (error instanceof Error && error.message.includes('while rejoining')) throw error;
      lastError = error;
    }
    await sleep(50 + Math.random() * 150);
  }
  throw new Error(`${name}: could not rejoin within ${deadlineMs} ms: ${String(lastError)}`);
}

/** Asks for the last `count` messages and returns the history reply. */
export async function history(client: RawClient, count = 500): Promise<ServerHistoryFrame> {
  client.send({ type: FrameType.History, count });
  return client.next<ServerHistoryFrame & ServerFrame>(isHistory, 5000);
}

/** Takes the next `count` live messages, in arrival order. */
export async function liveMessages(
  client: RawClient,
  count: number,
  timeoutMs = 10_000,
): Promise<ServerMessageFrame[]> {
  const messages: ServerMessageFrame[] = [];
  const deadline = Date.now() + timeoutMs;
  while (messages.length < count) {
    messages.push(
      await client.next<ServerMessageFrame>(isLive, Math.max(1, deadline - Date.now())),
    );
  }
  return messages;
}
