import { type EventEmitter } from 'node:events';
import * as ws from 'ws';
import { textFrame } from './text-frame';

/** ws's frame parser: exported by the package, not declared by its types. */
const { Receiver } = ws as unknown as {
  Receiver: new (options: { isServer: boolean }) => EventEmitter & { write(chunk: Buffer): void };
};

/** Reads frames back with ws's own parser, as a client would. */
function readBack(frame: Buffer): Promise<{ data: string; isBinary: boolean }> {
  return new Promise((resolve, reject) => {
    const receiver = new Receiver({ isServer: false });
    receiver.on('message', (data: Buffer, isBinary: boolean) =>
      resolve({ data: data.toString('utf8'), isBinary }),
    );
    receiver.on('error', reject);
    receiver.write(frame);
  });
}

describe('textFrame', () => {
  it.each([
    ['an empty payload', 0],
    ['a payload with a 7-bit length', 125],
    ['the shortest payload with a 16-bit length', 126],
    ['the longest payload with a 16-bit length', 0xffff],
    ['a payload with a 64-bit length', 0x10000 + 3],
  ])('frames %s that a WebSocket client reads back as the same text', async (_, size) => {
    const text = 'é'.repeat(Math.floor(size / 2)) + 'x'.repeat(size % 2);
    const payload = Buffer.from(text, 'utf8');
    expect(payload.length).toBe(size);
    await expect(readBack(textFrame(payload))).resolves.toEqual({ data: text, isBinary: false });
  });

  it('sets FIN and the text opcode, and never masks (server to client)', () => {
    const frame = textFrame(Buffer.from('{"type":6}'));
    expect(frame[0]).toBe(0x81);
    expect(frame[1]).toBe(10);
    expect(frame.subarray(2).toString()).toBe('{"type":6}');
  });
});
