/**
 * What both comparison peers store per message, with Taco Chat's semantics: a per-room seq and a
 * history list trimmed to HISTORY_MAX, refreshed to ROOM_TTL, in one Lua script (one round trip).
 */
import { createServer } from 'node:http';
import {
  ErrorCode,
  errorFrame,
  FrameErrorMessage,
  FrameType,
  HISTORY_MAX_DEFAULT,
} from '@taco/protocol';
import Redis from 'ioredis';

export const ROOM_TTL_SECONDS = 7 * 24 * 3600;
export const HISTORY_MAX = HISTORY_MAX_DEFAULT;

export const keys = {
  seq: (room: string) => `peer:{${room}}:seq`,
  log: (room: string) => `peer:{${room}}:log`,
  channel: (room: string) => `peer:{${room}}`,
};

/**
 * KEYS: seq, log[, channel]. ARGV: history entry without its seq, frame without its seq, max, ttl.
 * Both texts end just before the seq, so the script only appends `<seq>}`; with a channel it also
 * publishes the finished frame, so delivery and history can never disagree.
 */
const APPEND = `
local seq = redis.call('INCR', KEYS[1])
redis.call('RPUSH', KEYS[2], ARGV[1] .. seq .. '}')
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
if KEYS[3] then redis.call('PUBLISH', KEYS[3], ARGV[2] .. seq .. '}') end
return seq`;

interface PeerRedis extends Redis {
  appendMessage(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
}

export function defineCommands(redis: Redis): PeerRedis {
  redis.defineCommand('appendMessage', { lua: APPEND });
  return redis as PeerRedis;
}

/**
 * Stores one message of `sender` in `room`: its seq. With `publish`, the same script publishes
 * the message frame Taco Chat would send (`client_id` echoed) on the room's channel.
 */
export function storeMessage(
  redis: PeerRedis,
  room: string,
  sender: string,
  body: string,
  timestamp: number,
  publish?: { clientId: string | undefined },
): Promise<number> {
  const keyList = [keys.seq(room), keys.log(room)];
  // The history entry and the frame, each up to its seq (the script appends `<seq>}`).
  const fields = `"sender":${JSON.stringify(sender)},"body":${JSON.stringify(body)},"timestamp":${timestamp}`;
  let frame = '';
  if (publish) {
    keyList.push(keys.channel(room));
    const id =
      publish.clientId === undefined ? '' : `,"client_id":${JSON.stringify(publish.clientId)}`;
    frame = `{"type":${FrameType.Message},"room":${JSON.stringify(room)},${fields}${id},"seq":`;
  }
  const args = [`{${fields},"seq":`, frame, HISTORY_MAX, ROOM_TTL_SECONDS];
  return redis.appendMessage(keyList.length, ...keyList, ...args);
}

/**
 * A peer process: its port and Redis (`PORT`, `REDIS_URL`), the store's connection, and an HTTP
 * server answering `/health`, listening once `listen` is called; on SIGTERM or SIGINT `close`
 * runs, Redis disconnects and the process exits.
 */
export function peer(close: () => void) {
  const port = Number(process.env.PORT);
  const redisUrl = process.env.REDIS_URL;
  if (!Number.isInteger(port) || port <= 0 || !redisUrl) {
    throw new Error('PORT and REDIS_URL must be set');
  }
  const redis = defineCommands(new Redis(redisUrl));
  const httpServer = createServer((req, res) => {
    res.writeHead(req.url === '/health' ? 200 : 404).end();
  });
  const stop = () => {
    close();
    redis.disconnect();
    setTimeout(() => process.exit(0), 100).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return { redisUrl, redis, httpServer, listen: () => httpServer.listen(port, '127.0.0.1') };
}

/** The error frames a peer answers with: a frame it does not take, and Redis unavailable. */
export const peerErrors = (unsupported: string) => ({
  unsupported: errorFrame({ code: ErrorCode.BadFrame, message: unsupported }),
  unavailable: errorFrame({ code: ErrorCode.Unavailable, message: FrameErrorMessage.unavailable }),
});
