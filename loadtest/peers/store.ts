/**
 * What both comparison peers store per message, with Taco Chat's semantics: a per-room seq and a
 * history list trimmed to HISTORY_MAX, refreshed to ROOM_TTL, in one Lua script (one round trip).
 */
import {
  CLIENT_ID_MAX_LENGTH,
  FrameType,
  HISTORY_MAX_DEFAULT,
  MESSAGE_MAX_LENGTH,
} from '@taco/protocol';
import type Redis from 'ioredis';

export const ROOM_TTL_SECONDS = 7 * 24 * 3600;

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

export interface PeerRedis extends Redis {
  appendMessage(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
}

export function defineCommands(redis: Redis): PeerRedis {
  redis.defineCommand('appendMessage', { lua: APPEND });
  return redis as PeerRedis;
}

/**
 * Stores one message of `sender` in `room` and, given the message frame's text up to its seq
 * (`frameHead`), publishes the finished frame on the room's channel in the same script: its seq.
 */
export function storeMessage(
  redis: PeerRedis,
  room: string,
  sender: string,
  body: string,
  timestamp: number,
  frameHead?: string,
): Promise<number> {
  const keyList = [keys.seq(room), keys.log(room)];
  if (frameHead !== undefined) keyList.push(keys.channel(room));
  const history = historyPrefix(sender, body, timestamp);
  const args = [history, frameHead ?? '', HISTORY_MAX, ROOM_TTL_SECONDS];
  return redis.appendMessage(keyList.length, ...keyList, ...args);
}

export interface ValidMessage {
  body: string;
  clientId: string | undefined;
}

/** The same acceptance rules as Taco Chat for a message frame (codec.ts), or null. */
export function validMessage(frame: unknown): ValidMessage | null {
  if (typeof frame !== 'object' || frame === null) return null;
  const { type, body, client_id: clientId } = frame as Record<string, unknown>;
  if (type !== FrameType.Message || typeof body !== 'string') return null;
  const trimmed = body.trim();
  if (trimmed.length === 0 || trimmed.length > MESSAGE_MAX_LENGTH) return null;
  if (
    clientId !== undefined &&
    (typeof clientId !== 'string' || clientId.length > CLIENT_ID_MAX_LENGTH)
  ) {
    return null;
  }
  return { body: trimmed, clientId };
}

export const HISTORY_MAX = HISTORY_MAX_DEFAULT;

/** The stored history entry up to its seq: `{"sender":…,"body":…,"timestamp":…,"seq":`. */
export function historyPrefix(sender: string, body: string, timestamp: number): string {
  return `{"sender":${JSON.stringify(sender)},"body":${JSON.stringify(body)},"timestamp":${timestamp},"seq":`;
}

/** The room's port from the environment, and Redis's URL. */
export function peerEnvironment(): { port: number; redisUrl: string } {
  const port = Number(process.env.PORT);
  const redisUrl = process.env.REDIS_URL;
  if (!Number.isInteger(port) || port <= 0 || !redisUrl) {
    throw new Error('PORT and REDIS_URL must be set');
  }
  return { port, redisUrl };
}
