import {
  CloseCode,
  FrameType,
  HEARTBEAT_REPLY_TIMEOUT_MS,
  PING_INTERVAL_MS,
  type ServerFrame,
} from '@taco/protocol';
import { fakeSocketDeps } from '../../test/fakeSocket';
import { RoomSocket } from './roomSocket';
import { defaultSocketDeps, type SocketDeps } from './socketDeps';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

function setup(overrides: Partial<SocketDeps> = {}) {
  const fake = fakeSocketDeps(overrides);
  const deps: SocketDeps = { ...defaultSocketDeps(), ...fake.deps };
  const events = { opened: 0, frames: [] as ServerFrame[], closed: [] as number[] };
  const socket = new RoomSocket(deps, 'ws://chat.test/ws', 'teal-otter', {
    opened: () => (events.opened += 1),
    frame: (frame) => events.frames.push(frame),
    closed: (code) => events.closed.push(code),
  });
  return { ...fake, socket, events };
}

describe('RoomSocket: one connection from open to close', () => {
  it('sends only while open, and a heartbeat every ping interval', () => {
    const { socket, last, events } = setup();
    expect(socket.send({ type: FrameType.Clear })).toBe(false);
    last().serverOpen();
    expect(events.opened).toBe(1);
    expect(socket.send({ type: FrameType.Clear })).toBe(true);
    jest.advanceTimersByTime(PING_INTERVAL_MS);
    expect(last().sent).toEqual([{ type: FrameType.Clear }, { type: FrameType.Heartbeat }]);
  });

  it('reports frames, and drops (and logs) a frame of an unexpected shape', () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { last, events } = setup();
    last().serverOpen();
    last().serverSendText('{"type":99}');
    last().serverSend({ type: FrameType.Heartbeat });
    expect(events.frames).toEqual([{ type: FrameType.Heartbeat }]);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it('takes a connection that stays silent after its heartbeat for dead, and reports it', () => {
    const { last, events } = setup();
    last().serverOpen();
    // A reply (any frame) in time keeps it alive, heartbeat after heartbeat.
    for (let beat = 0; beat < 3; beat++) {
      jest.advanceTimersByTime(PING_INTERVAL_MS);
      last().serverSend({ type: FrameType.Heartbeat });
    }
    jest.advanceTimersByTime(HEARTBEAT_REPLY_TIMEOUT_MS);
    expect(events.closed).toEqual([]);
    // Then the network goes away without a word: nothing comes back.
    jest.advanceTimersByTime(PING_INTERVAL_MS - HEARTBEAT_REPLY_TIMEOUT_MS);
    jest.advanceTimersByTime(HEARTBEAT_REPLY_TIMEOUT_MS - 1);
    expect(events.closed).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(events.closed).toEqual([CloseCode.Abnormal]);
    expect(last().closedWith).toBe(CloseCode.Normal);
    // Quiet from then on: no more heartbeats, no second report.
    jest.advanceTimersByTime(PING_INTERVAL_MS * 3);
    expect(events.closed).toEqual([CloseCode.Abnormal]);
  });

  it('reports a close by the server, then stops its heartbeat', () => {
    const { last, events } = setup();
    last().serverOpen();
    last().serverClose(CloseCode.Restart);
    expect(events.closed).toEqual([CloseCode.Restart]);
    jest.advanceTimersByTime(PING_INTERVAL_MS * 2);
    expect(last().sent).toEqual([]);
  });

  it('closes normally when closed from this side, and ignores what the old socket still says', () => {
    const { socket, last, events } = setup();
    last().serverOpen();
    socket.close();
    expect(last().closedWith).toBe(CloseCode.Normal);
    last().serverSend({ type: FrameType.Heartbeat });
    last().serverClose(CloseCode.Normal);
    expect(events).toEqual({ opened: 1, frames: [], closed: [] });
    expect(socket.send({ type: FrameType.Clear })).toBe(false);
  });

  it('reports an abnormal close when the socket cannot even be created', () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { events } = setup({
      createSocket: () => {
        throw new Error('blocked');
      },
    });
    expect(events.closed).toEqual([CloseCode.Abnormal]);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });
});
