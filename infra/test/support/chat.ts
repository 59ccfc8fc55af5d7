import {
  ApiPath,
  CloseCode,
  FrameType,
  type RoomCredentialsResponse,
  type ServerFrame,
} from '@taco/protocol';
import { TestClient } from '../../../api/test/support/test-client';
import { sleep } from '@taco/harness';

export { TestClient };

/** A live message as every client receives it. */
export interface LiveMessage {
  type: 1;
  room: string;
  sender: string;
  body: string;
  seq: number;
  timestamp: number;
  client_id?: string;
}

export interface HistoryMessage {
  sender: string;
  body: string;
  seq: number;
  timestamp: number;
}

export interface HistoryFrame {
  type: 1;
  room: string;
  messages: HistoryMessage[];
  complete?: boolean;
}

export const isLive = (frame: ServerFrame): boolean =>
  frame.type === FrameType.Message && !('messages' in frame);

export const isHistory = (frame: ServerFrame): boolean =>
  frame.type === FrameType.Message && 'messages' in frame;

export const isPresence =
  (sender: string, connecting: boolean) =>
  (frame: ServerFrame): boolean =>
    frame.type === FrameType.Presence &&
    'sender' in frame &&
    frame.sender === sender &&
    'connecting' in frame &&
    frame.connecting === connecting;

/** `POST /api/room/:room_id` through `baseUrl`: a token for `name` in `room`. */
export async function credentials(baseUrl: string, room: string, name: string): Promise<string> {
  const response = await fetch(`${baseUrl}${ApiPath.roomCredentials(room)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sender_id: name }),
    signal: AbortSignal.timeout(5000),
  });
  if (response.status !== 200) {
    throw new Error(`credentials for ${name}: ${response.status} ${await response.text()}`);
  }
  return ((await response.json()) as RoomCredentialsResponse).token;
}

const wsUrl = (baseUrl: string, room: string, token: string) =>
  `${baseUrl.replace(/^http/, 'ws')}${ApiPath.roomSocket(room, token)}`;

/** Opens a socket to `baseUrl` (nginx or one replica) and waits until it has joined the room. */
export async function join(
  baseUrl: string,
  room: string,
  name: string,
  token: string,
  headers?: Record<string, string>,
): Promise<TestClient> {
  const client = TestClient.connect(wsUrl(baseUrl, room, token), { headers }, name);
  await client.opened;
  // Joined: the newcomer hears its own presence (with everyone present).
  await client.next(isPresence(name, true), 5000);
  return client;
}

/**
 * Reconnects like the web client after a drop or 1012: through `baseUrl`, again at once with a
 * little jitter when the socket is refused or closed before joining, until `deadlineMs` passes.
 */
export async function rejoin(
  baseUrl: string,
  room: string,
  name: string,
  token: string,
  deadlineMs = 10_000,
): Promise<{ client: TestClient; attempts: number }> {
  const deadline = Date.now() + deadlineMs;
  let attempts = 0;
  let lastError: unknown;
  while (Date.now() < deadline) {
    attempts++;
    const client = TestClient.connect(wsUrl(baseUrl, room, token), undefined, name);
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
export async function history(client: TestClient, count = 500): Promise<HistoryFrame> {
  client.send({ type: FrameType.History, count });
  return client.next<HistoryFrame & ServerFrame>(isHistory, 5000);
}

/** Takes the next `count` live messages, in arrival order. */
export async function liveMessages(
  client: TestClient,
  count: number,
  timeoutMs = 10_000,
): Promise<LiveMessage[]> {
  const messages: LiveMessage[] = [];
  const deadline = Date.now() + timeoutMs;
  while (messages.length < count) {
    const left = Math.max(1, deadline - Date.now());
    messages.push((await client.next(isLive, left)) as unknown as LiveMessage);
  }
  return messages;
}
