import { decodeClientFrame, ErrorCode, FrameType, type ServerFrame } from '@taco/protocol';
import fc from 'fast-check';
import { startTestApp, type TestApp } from './support/test-app';
import { type RawClient } from '@taco/harness';

const ERROR_CODES = new Set<string>(Object.values(ErrorCode));

/** Frames that look like real ones, then get a field broken, dropped, retyped or inflated. */
const mutatedFrame = fc
  .record(
    {
      type: fc.oneof(
        fc.constantFrom(1, 2, 4, 5, 6),
        fc.integer(),
        fc.double(),
        fc.string(),
        fc.constant(null),
      ),
      body: fc.oneof(
        fc.string({ maxLength: 50 }),
        fc.integer(),
        fc.constant(''),
        fc.constant('   '),
        fc.array(fc.string()),
      ),
      client_id: fc.oneof(fc.string({ maxLength: 80 }), fc.integer(), fc.constant(null)),
      typing: fc.oneof(fc.boolean(), fc.string(), fc.integer()),
      count: fc.oneof(
        fc.integer({ min: -5, max: 600 }),
        fc.double(),
        fc.constant(Number.MAX_VALUE),
        fc.string(),
      ),
      after: fc.oneof(
        fc.integer({ min: -5, max: 1e6 }),
        fc.double(),
        fc.string(),
        fc.constant(null),
      ),
      sender: fc.string({ maxLength: 10 }),
    },
    { requiredKeys: [] },
  )
  .map((frame) => JSON.stringify(frame));

const arbitraryText = fc.oneof(
  mutatedFrame,
  fc.json({ maxDepth: 4 }),
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    '',
    '{',
    '[]',
    'null',
    '{"type":1e400}',
    '[[[[[[[[[[[[]]]]]]]]]]]]',
    '{"__proto__":{"type":1}}',
  ),
  fc.integer({ min: 1, max: 2000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
);

describe('Fuzzing live connections', () => {
  let t: TestApp;
  let fuzzer: RawClient;
  let observer: RawClient;

  beforeAll(async () => {
    t = await startTestApp({
      messageBurst: 100_000,
      messagesPerSecond: 100_000,
      typingPerSecond: 100_000,
      historyRequests: 100_000,
    });
    observer = await t.join('fuzz-room', 'Observer');
    fuzzer = await t.join('fuzz-room', 'Fuzzer');
    await observer.drain(50);
  });
  afterAll(() => t.close());

  it('answers every invalid frame with its typed error, leaks nothing, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryText, async (text) => {
        const expected = decodeClientFrame(text);
        fuzzer.send(text);
        if (expected.ok) {
          // A valid frame does what it does; answer a heartbeat so the exchange is settled.
          fuzzer.send({ type: FrameType.Heartbeat });
          await fuzzer.nextOfType(FrameType.Heartbeat);
          await fuzzer.drain(0);
          await observer.drain(0);
          return;
        }
        const error = await fuzzer.nextOfType(FrameType.Error);
        expect(error).toEqual({
          type: FrameType.Error,
          code: expected.error.code,
          message: expected.error.message,
          ...(expected.error.client_id === undefined
            ? {}
            : { client_id: expected.error.client_id }),
        });
        expect(ERROR_CODES.has(expected.error.code)).toBe(true);
        expect(fuzzer.socket.readyState).toBe(fuzzer.socket.OPEN);
        const leaked = (await observer.drain(5)).filter(
          (frame: ServerFrame) => frame.type !== FrameType.Presence,
        );
        expect(leaked).toEqual([]);
      }),
      { numRuns: 300, seed: 20261122 },
    );
    // The room still works for everyone.
    fuzzer.send({ type: FrameType.Message, body: 'still alive' });
    expect(
      await observer.next(
        (frame) =>
          frame.type === FrameType.Message && 'body' in frame && frame.body === 'still alive',
      ),
    ).toMatchObject({ sender: 'Fuzzer' });
  }, 60_000);

  it('closes a text frame of invalid UTF-8 with 1007 and serves everyone else', async () => {
    const broken = await t.join('fuzz-room', 'Broken');
    broken.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await broken.closed).code).toBe(1007);
    observer.send({ type: FrameType.Message, body: 'after utf-8' });
    expect(
      await fuzzer.next(
        (frame) =>
          frame.type === FrameType.Message && 'body' in frame && frame.body === 'after utf-8',
      ),
    ).toBeDefined();
  });

  it('reassembles a frame sent in fragments', async () => {
    const text = JSON.stringify({ type: FrameType.Message, body: 'in three pieces' });
    fuzzer.socket.send(text.slice(0, 5), { fin: false });
    fuzzer.socket.send(text.slice(5, 20), { fin: false });
    fuzzer.socket.send(text.slice(20), { fin: true });
    expect(
      await observer.next(
        (frame) =>
          frame.type === FrameType.Message && 'body' in frame && frame.body === 'in three pieces',
      ),
    ).toMatchObject({ sender: 'Fuzzer' });
  });
});
