import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { FrameType, type ServerFrame } from '@taco/protocol';
import { WebSocket } from 'ws';
import { loadConfig } from '../config/load-config';
import { type MetricsService } from '../metrics/metrics.service';
import { messageFrame, messagePayload } from '../bus/room-events';
import { ChatConnection, InTurn } from './chat-connection';
import { nameClaim } from '../bus/name-claim';
import { textFrame } from './text-frame';

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
  let duplicates = 0;
  const metrics = {
    framesOut: { inc: () => framesOut++ },
    duplicateCopies: { inc: () => duplicates++ },
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
  return {
    connection,
    writes,
    socket,
    counted: () => framesOut,
    duplicates: () => duplicates,
  };
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

  it('pings with an empty, unmasked ping frame, and not once the socket is closing', async () => {
    const { connection, writes, socket } = setup();
    connection.ping();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[Buffer.from([0x89, 0x00])]]);
    (socket as { readyState: number }).readyState = WebSocket.CLOSING;
    connection.ping();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
  });
});

describe('ChatConnection messages', () => {
  const message = (seq: number) => ({ sender: 'Ann', body: `m${seq}`, timestamp: 1.5, seq });
  const fromRoom = (seq: number, epoch = 'E1') =>
    textFrame(messagePayload('teal-otter', message(seq), epoch));

  it('sends each stored message once, from the room or as the acknowledgement, in whichever order', async () => {
    const { connection, writes, duplicates } = setup();
    expect(connection.writeMessage(fromRoom(1), { epoch: 'E1', seq: 1 })).toBe(true);
    // Her own 2 is held back until durable; 3 comes from the room first.
    expect(connection.writeMessage(fromRoom(3), { epoch: 'E1', seq: 3 })).toBe(true);
    expect(connection.send(messageFrame('teal-otter', message(2), 'E1', 'c-2'))).toBe(true);
    // A gap fill offers 2 and 3 again; the acknowledgement of 3 comes too late to matter.
    expect(connection.writeMessage(fromRoom(2), { epoch: 'E1', seq: 2 })).toBe(false);
    expect(connection.send(messageFrame('teal-otter', message(3), 'E1', 'c-3'))).toBe(false);
    // Another epoch is another sequence.
    expect(connection.writeMessage(fromRoom(2, 'E2'), { epoch: 'E2', seq: 2 })).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    const sent = writes.flat().flatMap(texts);
    expect(sent.map((text) => (JSON.parse(text) as { seq: number }).seq)).toEqual([1, 3, 2, 2]);
    expect(duplicates()).toBe(2);
  });

  it('sends history pages whatever it was sent live', () => {
    const { connection } = setup();
    expect(connection.writeMessage(fromRoom(1), { epoch: 'E1', seq: 1 })).toBe(true);
    const page: ServerFrame = {
      type: FrameType.Message,
      room: 'teal-otter',
      epoch: 'E1',
      messages: [message(1)],
      complete: true,
    };
    expect(connection.send(page)).toBe(true);
    expect(connection.send(page)).toBe(true);
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
