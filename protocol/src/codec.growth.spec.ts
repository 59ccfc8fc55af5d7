import { decodeClientFrame, decodeServerFrame } from './codec';
import { FrameType } from './frame-types';
import { FRAME_MAX_BYTES } from './limits';
import { type GrowthOptions, LINEAR_RATIO_LIMIT, measureGrowth, repeatTo } from './testing/growth';

/**
 * Every frame a client sends is decoded before anything else looks at it, and a client decodes
 * every frame of the server: decoding must take time linear in the frame, whatever it holds.
 * Frames larger than `FRAME_MAX_BYTES` never reach the decoder, so most frames here grow from an
 * eighth of that to that size; see ./testing/growth for how they are timed. Two kinds grow from
 * there on instead, because below it their cost per character changes while staying linear:
 * - deep nesting: V8's JSON.parse costs about 3× more per level at 16,000 levels than at 2,000
 *   (its stack outgrows the processor's caches), and the same from there on;
 * - a body over the length limit (4,000 code points) is counted in code points, one under it
 *   is not.
 */

const SIZES: GrowthOptions = { maxSize: FRAME_MAX_BYTES / 8 };
/** Eight frames of the limit make garbage a busy machine's collector can slow: more attempts. */
const FROM_THE_LIMIT: GrowthOptions = {
  start: FRAME_MAX_BYTES,
  maxSize: FRAME_MAX_BYTES,
  attempts: 5,
};

const body = (text: string) => JSON.stringify({ type: FrameType.Message, body: text });

/** Frames of about `size` characters. */
const CLIENT_FRAMES: [string, (size: number) => string, GrowthOptions?][] = [
  ['a body of spaces, then a letter', (size) => body(`${' '.repeat(size)}x`)],
  ['a body of spaces only', (size) => body(' '.repeat(size))],
  ['a body of combining marks', (size) => body(repeatTo('\u0301', size))],
  ['a body of zero-width spaces', (size) => body(repeatTo('\u200B', size))],
  ['a body of escapes', (size) => body(repeatTo('\n\t"\\\u0001', size / 6))],
  ['a body of emoji', (size) => body(repeatTo('😀', size)), FROM_THE_LIMIT],
  ['nested arrays', (size) => '['.repeat(size / 2) + ']'.repeat(size / 2), FROM_THE_LIMIT],
  [
    'nested objects',
    (size) => '{"a":'.repeat(size / 6) + '1' + '}'.repeat(size / 6),
    FROM_THE_LIMIT,
  ],
  [
    'a message with nested arrays beside it',
    (size) => `{"type":1,"body":"x","extra":${'['.repeat(size / 2)}${']'.repeat(size / 2)}}`,
    FROM_THE_LIMIT,
  ],
  ['an unclosed string', (size) => `{"type":1,"body":"${'a'.repeat(size)}`],
  ['unclosed arrays', (size) => '['.repeat(size), FROM_THE_LIMIT],
  [
    'a long client_id',
    (size) => JSON.stringify({ type: 1, body: 'x', client_id: 'c'.repeat(size) }),
  ],
  ['a long token', (size) => JSON.stringify({ type: FrameType.Rename, token: 't'.repeat(size) })],
  ['many unknown fields', (size) => `{"type":1,"body":"x"${repeatTo(',"k":0', size)}}`],
  ['many numbers', (size) => `[${repeatTo('1e308,', size)}1]`],
];

const message = (seq: number) => ({ sender: 'Ann', body: 'hi', timestamp: 1, seq });
const history = (count: number) =>
  JSON.stringify({
    type: FrameType.Message,
    room: 'teal-otter',
    epoch: 'e',
    complete: true,
    messages: Array.from({ length: count }, (_, i) => message(i)),
  });

const SERVER_FRAMES: [string, (size: number) => string, GrowthOptions?][] = [
  ['a history page', (size) => history(Math.max(1, Math.floor(size / 50)))],
  ['a message of spaces', (size) => JSON.stringify({ type: 1, room: 'r', epoch: 'e', ...message(1), body: ' '.repeat(size) })],
  ['an unexpected frame', (size) => JSON.stringify({ type: 99, junk: 'j'.repeat(size) })],
  ['nested arrays', (size) => '['.repeat(size / 2) + ']'.repeat(size / 2), FROM_THE_LIMIT],
]; // prettier-ignore

describe('decoding grows linearly with the frame', () => {
  it.each(CLIENT_FRAMES)("a client's frame: %s", (_name, make, options = SIZES) => {
    const growth = measureGrowth(make, decodeClientFrame, options);
    expect(growth.ratio).toBeLessThan(LINEAR_RATIO_LIMIT);
  });

  it.each(SERVER_FRAMES)("the server's frame: %s", (_name, make, options = SIZES) => {
    const growth = measureGrowth(make, decodeServerFrame, options);
    expect(growth.ratio).toBeLessThan(LINEAR_RATIO_LIMIT);
  });
});
