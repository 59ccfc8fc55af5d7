export { roomCallKey, roomKeys, SHARED_KEYS } from '@taco/protocol';

const CHANNEL_START = 'chat:{';
const CHANNEL_END = '}';
const CHANNEL_START_BYTES = Buffer.from(CHANNEL_START);
const CHANNEL_END_BYTE = CHANNEL_END.charCodeAt(0);

/**
 * The room of a channel name (as text, or as the bytes the subscriber hands over, read without a
 * copy of the whole name), or `null` when it is not a room channel.
 */
export function roomOfChannel(channel: string | Buffer): string | null {
  const start = CHANNEL_START.length;
  const end = channel.length - 1;
  if (end <= start) return null;
  if (typeof channel === 'string') {
    return channel.startsWith(CHANNEL_START) && channel.endsWith(CHANNEL_END)
      ? channel.slice(start, end)
      : null;
  }
  if (channel[end] !== CHANNEL_END_BYTE || channel.compare(CHANNEL_START_BYTES, 0, start, 0, start))
    return null;
  return channel.toString('utf8', start, end);
}
