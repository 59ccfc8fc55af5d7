import {
  CloseCode,
  FrameType,
  HISTORY_REQUEST_COUNT,
  PING_INTERVAL_MS,
  RECONNECT_INTERVAL_MS,
} from '@taco/protocol';
import { openAndSync, ROOM, setup } from '../../test/socketRoom';
import { roomJoined, roomLeft } from '../features/chat/chatActions';
import { selectConnection } from '../features/connection/connectionSlice';
import { selectRoomAuth } from '../features/roomAuth/roomAuthSlice';
import { type TicketResult } from './socketDeps';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('socket middleware: connection', () => {
  it('opens the socket with the room token and asks for the last 100 messages on first open', () => {
    const fake = setup();
    const socket = fake.last();
    expect(socket.url).toBe('ws://chat.test/api/room/teal-otter/ws?token=tok%20en');
    expect(selectConnection(fake.store.getState()).status).toBe('connecting');
    socket.serverOpen();
    expect(socket.sent).toEqual([{ type: FrameType.History, count: HISTORY_REQUEST_COUNT }]);
    expect(selectConnection(fake.store.getState()).status).toBe('open');
  });

  it('keeps one socket per tab: joining again with the same token does nothing', () => {
    const fake = setup();
    fake.store.dispatch(roomJoined({ room: ROOM, token: 'tok en' }));
    expect(fake.sockets).toHaveLength(1);
    fake.store.dispatch(roomJoined({ room: ROOM, token: 'new' }));
    expect(fake.sockets).toHaveLength(2);
    expect(fake.sockets[0]?.closedWith).toBe(CloseCode.Normal);
  });

  it('sends a heartbeat every ping interval while open', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    for (let beat = 0; beat < 2; beat++) {
      jest.advanceTimersByTime(PING_INTERVAL_MS);
      socket.serverSend({ type: FrameType.Heartbeat });
    }
    expect(socket.sent).toEqual([{ type: FrameType.Heartbeat }, { type: FrameType.Heartbeat }]);
  });

  it('closes the socket when the room is left and ignores its later events', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(roomLeft({ room: ROOM }));
    expect(socket.closedWith).toBe(CloseCode.Normal);
    socket.serverClose(CloseCode.Normal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(fake.sockets).toHaveLength(1);
    expect(selectConnection(fake.store.getState()).status).toBe('idle');
  });
});

describe('socket middleware: single-use tickets', () => {
  /** A ticket service the test answers by hand, one call at a time. */
  function ticketDesk() {
    const calls: Array<{ room: string; token: string; answer: (result: TicketResult) => void }> =
      [];
    const fetchTicket = (room: string, token: string) =>
      new Promise<TicketResult>((answer) => calls.push({ room, token, answer }));
    return { calls, fetchTicket };
  }
  /** Lets the middleware see a settled ticket promise. */
  const settle = () => Promise.resolve();

  it('asks for a ticket with the token and opens the socket with the ticket only', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    expect(fake.sockets).toHaveLength(0);
    expect(desk.calls.map(({ room, token }) => [room, token])).toEqual([[ROOM, 'tok en']]);
    desk.calls[0]?.answer({ ticket: 'T1cket' });
    await settle();
    expect(fake.last().url).toBe('ws://chat.test/api/room/teal-otter/ws?ticket=T1cket');
    expect(fake.last().url).not.toContain('tok');
  });

  it('gets a new ticket for every reconnect', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    desk.calls[0]?.answer({ ticket: 'first' });
    await settle();
    fake.last().serverOpen();
    fake.last().serverClose(CloseCode.Restart);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    expect(desk.calls).toHaveLength(2);
    desk.calls[1]?.answer({ ticket: 'second' });
    await settle();
    expect(fake.last().url).toContain('?ticket=second');
  });

  it('treats a refused ticket (401) like a 4401 close: credentials are requested again', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    desk.calls[0]?.answer({ status: 401 });
    await settle();
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(fake.sockets).toHaveLength(0);
    expect(desk.calls).toHaveLength(1);
    expect(selectRoomAuth(fake.store.getState(), ROOM)).toMatchObject({ authenticated: false });
  });

  it('retries later when the ticket call fails for any other reason', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    desk.calls[0]?.answer({ status: 0 });
    await settle();
    expect(selectConnection(fake.store.getState()).status).not.toBe('open');
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 2);
    expect(desk.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('ignores a ticket that arrives after the room was left', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    fake.store.dispatch(roomLeft({ room: ROOM }));
    desk.calls[0]?.answer({ ticket: 'late' });
    await settle();
    expect(fake.sockets).toHaveLength(0);
  });
});
