/**
 * The raw ceiling: `ws` + ioredis doing the least work that delivers Taco Chat's frames. One
 * SUBSCRIBE per room with local members; the Lua script publishes the finished frame text, and the
 * subscriber hands that one Buffer to every local socket (no parse, no per-recipient allocation).
 *
 *   PORT=4001 REDIS_URL=redis://127.0.0.1:6379 tsx loadtest/peers/raw-server.ts
 * Socket: ws://127.0.0.1:PORT/api/room/:room/ws?name=NAME (the name stands in for the token).
 */
import {
  CloseCode,
  decodeClientFrame,
  encodeFrame,
  FRAME_MAX_BYTES,
  FrameType,
  MISSED_PONGS_LIMIT,
  parseSocketPath,
  PING_INTERVAL_MS,
  SEND_BUFFER_MAX_BYTES,
} from '@taco/protocol';
import Redis from 'ioredis';
import { type WebSocket, WebSocketServer } from 'ws';
import { keys, peer, peerErrors, storeMessage } from './store';

const { redisUrl, redis, httpServer, listen } = peer(() => {
  for (const client of wss.clients) client.terminate();
  httpServer.close();
  sub.disconnect();
});
const wss = new WebSocketServer({
  server: httpServer,
  perMessageDeflate: false,
  maxPayload: FRAME_MAX_BYTES,
});
const sub = new Redis(redisUrl);
/** The sockets here of each room with members here, by the room's channel. */
const rooms = new Map<string, Set<WebSocket>>();

const errors = peerErrors('This peer takes message and heartbeat frames');
const UNSUPPORTED = encodeFrame(errors.unsupported);
const UNAVAILABLE = encodeFrame(errors.unavailable);
const HEARTBEAT = encodeFrame({ type: FrameType.Heartbeat });

sub.on('messageBuffer', (channel: Buffer, frame: Buffer) => {
  const members = rooms.get(channel.toString());
  if (!members) return;
  for (const ws of members) {
    if (ws.bufferedAmount > SEND_BUFFER_MAX_BYTES) ws.close(CloseCode.TryAgainLater);
    else ws.send(frame, { binary: false });
  }
});

function presence(room: string, sender: string, connecting: boolean): void {
  const frame = encodeFrame({ type: FrameType.Presence, room, sender, connecting });
  void redis.publish(keys.channel(room), frame);
}

async function join(ws: WebSocket, room: string, name: string): Promise<void> {
  const channel = keys.channel(room);
  let members = rooms.get(channel);
  if (!members) {
    members = new Set();
    rooms.set(channel, members);
    await sub.subscribe(channel);
  }
  members.add(ws);
  presence(room, name, true);
  ws.on('message', (data, isBinary) => {
    // Taco Chat's own codec: the same acceptance rules.
    const decoded = !isBinary && Buffer.isBuffer(data) ? decodeClientFrame(data.toString()) : null;
    const frame = decoded?.ok ? decoded.frame : null;
    if (frame?.type === FrameType.Message) {
      const publish = { clientId: frame.client_id };
      storeMessage(redis, room, name, frame.body, Date.now() / 1000, publish).catch(() =>
        ws.send(UNAVAILABLE),
      );
    } else if (frame?.type === FrameType.Heartbeat) {
      ws.send(HEARTBEAT);
    } else {
      ws.send(UNSUPPORTED);
    }
  });
  ws.on('close', () => {
    members.delete(ws);
    presence(room, name, false);
    if (members.size === 0) {
      rooms.delete(channel);
      void sub.unsubscribe(channel);
    }
  });
}

/**
 * The server's side of liveness, as the contract has it (protocol/README.md §5.7) and `ws`'s own
 * documentation shows: a ping every 25 s, a socket that missed 2 pongs terminated.
 */
const missedPongs = new WeakMap<WebSocket, number>();
wss.on('connection', (ws) => ws.on('pong', () => missedPongs.set(ws, 0)));
setInterval(() => {
  for (const ws of wss.clients) {
    const missed = missedPongs.get(ws) ?? 0;
    if (missed >= MISSED_PONGS_LIMIT) {
      ws.terminate();
    } else {
      missedPongs.set(ws, missed + 1);
      ws.ping();
    }
  }
}, PING_INTERVAL_MS).unref();

wss.on('connection', (ws, req) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const room = parseSocketPath(url.pathname);
  const name = url.searchParams.get('name');
  if (room && name) void join(ws, room, name);
  else ws.terminate();
});
listen();
