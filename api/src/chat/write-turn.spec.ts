import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { WriteTurn } from './write-turn';

/** A stream that records each system-call-like write: one entry per `_write`/`_writev`. */
function recordingStream() {
  const writes: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => (chunk as Buffer).toString()));
      done();
    },
  });
  return { stream, writes };
}

describe('WriteTurn', () => {
  it('sends the frames written to a socket during one turn in one write, in order', async () => {
    const turn = new WriteTurn();
    const { stream, writes } = recordingStream();
    for (const frame of ['a', 'b', 'c']) {
      turn.hold(stream);
      stream.write(frame);
    }
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual([['a', 'b', 'c']]);
  });

  it('holds each socket separately and starts afresh on the next turn', async () => {
    const turn = new WriteTurn();
    const one = recordingStream();
    const two = recordingStream();
    turn.hold(one.stream);
    one.stream.write('1a');
    turn.hold(two.stream);
    two.stream.write('2a');
    turn.hold(one.stream);
    one.stream.write('1b');
    await nextTurn();
    expect(one.writes).toEqual([['1a', '1b']]);
    expect(two.writes).toEqual([['2a']]);

    turn.hold(one.stream);
    one.stream.write('1c');
    await nextTurn();
    expect(one.writes).toEqual([['1a', '1b'], ['1c']]);
    expect(one.stream.writableCorked).toBe(0);
  });

  it('sends what a socket holds once it reaches 64 KiB, and holds the rest to the end of the turn', async () => {
    const turn = new WriteTurn();
    const { stream, writes } = recordingStream();
    const chunk = (label: string) => label.repeat(40 * 1024);
    for (const label of ['a', 'b', 'c']) {
      turn.hold(stream);
      stream.write(chunk(label));
    }
    // a and b (80 KiB) went out when c was held; c waits for the end of the turn.
    expect(writes.map((write) => write.map((text) => text[0]))).toEqual([['a', 'b']]);
    await nextTurn();
    expect(writes.map((write) => write.map((text) => text[0]))).toEqual([['a', 'b'], ['c']]);
    expect(stream.writableCorked).toBe(0);
  });
});
