import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { FrameType, type ServerFrame } from '@taco/protocol';
import { WebSocket } from 'ws';
import { loadConfig } from '../config/load-config';
import { type MetricsService } from '../metrics/metrics.service';
import { ChatConnection, InTurn } from './chat-connection';
import { nameClaim } from '../bus/name-claim';

function setup() {
  const writes: Buffer[][] = [];
  const transport = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => chunk as Buffer));
      done();
    },
  });
  const socket = Object.assign(new EventEmitter(), {
    readyState: WebSocket.OPEN,
    bufferedAmount: 0,
  }) as unknown as WebSocket;
  let framesOut = 0;
  const metrics = {
    framesOut: { inc: () => framesOut++ },
    closes: { inc: () => undefined },
  } as unknown as MetricsService;
  const config = loadConfig({ WEB_DIST: 'off' });
  const connection = new ChatConnection(
    'c1',
    'teal-otter',
    nameClaim('Ann', 'ann-credential'),
    '203.0.113.9',
    socket,
    transport,
    metrics,
    config,
    0,
  );
  return { connection, writes, counted: () => framesOut };
}

/** The JSON texts of the unmasked, short text frames in `chunk`. */
function texts(chunk: Buffer): string[] {
  const found: string[] = [];
  for (let at = 0; at < chunk.length;) {
    const length = chunk[at + 1] ?? 0;
    found.push(chunk.toString('utf8', at + 2, at + 2 + length));
    at += 2 + length;
  }
  return found;
}

describe('ChatConnection', () => {
  it('sends several frames to one connection in one write, in order', async () => {
    const { connection, writes, counted } = setup();
    const roster: ServerFrame[] = ['Ann', 'Bob', 'Cy'].map((sender) => ({
      type: FrameType.Presence,
      room: 'teal-otter',
      sender,
      connecting: true,
    }));
    expect(connection.sendAll(roster)).toBe(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(writes[0]?.flatMap(texts).map((text) => JSON.parse(text) as ServerFrame)).toEqual(
      roster,
    );
    expect(counted()).toBe(3);
  });
});

describe('InTurn', () => {
  it('runs tasks one after the other, and goes on after one that fails', async () => {
    const turn = new InTurn();
    const order: string[] = [];
    let release = () => {};
    const first = turn.run(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first');
      throw new Error('boom');
    });
    const second = turn.run(() => {
      order.push('second');
      return Promise.resolve(2);
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    release();
    await expect(first).rejects.toThrow('boom');
    expect(await second).toBe(2);
    await turn.idle;
    expect(order).toEqual(['first', 'second']);
  });
});
