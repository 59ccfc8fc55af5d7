import {
  CloseCode,
  FrameType,
  HISTORY_REQUEST_COUNT,
  RECONNECT_INTERVAL_MS,
  TYPING_THROTTLE_MS,
} from '@taco/protocol';
import {
  chatMessage,
  EPOCH,
  historyFrame,
  ME,
  openAndSync,
  ROOM,
  setup,
} from '../../test/socketRoom';
import { draftEdited, messageSent, roomCleared } from '../features/chat/chatActions';
import { selectMessages } from '../features/messages/messagesSlice';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('socket middleware: frames out', () => {
  it('sends a message with its client id, then typing=false, and reconciles the echo', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    socket.sent.length = 0;
    fake.store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'hello', senderName: ME, timestamp: 1 }),
    );
    expect(socket.sent).toEqual([
      { type: FrameType.Message, body: 'hello', client_id: 'c1' },
      { type: FrameType.Typing, typing: false },
    ]);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(2, ME, 'hello'),
      client_id: 'c1',
    });
    const messages = selectMessages(fake.store.getState(), ROOM);
    expect(messages.map((m) => [m.message, m.status, m.id])).toEqual([
      ['m1', 'sent', 'Bob'],
      ['hello', 'sent', 0],
    ]);
    expect(fake.notifications).toEqual([]);
  });

  it('keeps messages typed while offline and sends them once history is resumed', () => {
    const fake = setup();
    openAndSync(fake);
    fake.last().serverClose(CloseCode.Abnormal);
    fake.store.dispatch(
      messageSent({ room: ROOM, clientId: 'c9', body: 'offline', senderName: ME, timestamp: 1 }),
    );
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 1.2);
    const socket = fake.last();
    socket.serverOpen();
    expect(socket.sent).toEqual([
      { type: FrameType.History, count: HISTORY_REQUEST_COUNT, after: 1, epoch: EPOCH },
    ]);
    socket.serverSend(historyFrame([]));
    expect(socket.sent[1]).toEqual({ type: FrameType.Message, body: 'offline', client_id: 'c9' });
  });

  it('does not send again a message that history shows was stored before the drop', () => {
    const fake = setup();
    const first = openAndSync(fake);
    fake.store.dispatch(
      messageSent({ room: ROOM, clientId: 'c5', body: 'sent?', senderName: ME, timestamp: 1 }),
    );
    expect(first.sent[0]).toEqual({ type: FrameType.Message, body: 'sent?', client_id: 'c5' });
    first.serverClose(CloseCode.Abnormal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 1.2);
    const socket = fake.last();
    socket.serverOpen();
    socket.serverSend(historyFrame([chatMessage(2, ME, 'sent?')]));
    expect(socket.sent).toHaveLength(1);
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => [m.message, m.status])).toEqual([
      ['m1', 'sent'],
      ['sent?', 'sent'],
    ]);
  });

  it('sends a clear frame for a local clear only', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(roomCleared({ room: ROOM, source: 'local' }));
    fake.store.dispatch(roomCleared({ room: ROOM, source: 'remote' }));
    expect(socket.sent).toEqual([{ type: FrameType.Clear }]);
  });

  it('sends typing=true at most once per 2 s on the leading edge, and typing=false on clear', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    const typing = () =>
      socket.sent.filter((f) => (f as { type: number }).type === FrameType.Typing);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    jest.advanceTimersByTime(TYPING_THROTTLE_MS - 1);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    expect(typing()).toEqual([{ type: FrameType.Typing, typing: true }]);
    jest.advanceTimersByTime(1);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    fake.store.dispatch(draftEdited({ room: ROOM, text: '' }));
    expect(typing()).toEqual([
      { type: FrameType.Typing, typing: true },
      { type: FrameType.Typing, typing: true },
      { type: FrameType.Typing, typing: false },
    ]);
  });

  it('sends typing=false only while others may see the user typing (typing frames are rate limited)', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(draftEdited({ room: ROOM, text: '' }));
    fake.store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'x', senderName: ME, timestamp: 1 }),
    );
    expect(socket.sent).toEqual([{ type: FrameType.Message, body: 'x', client_id: 'c1' }]);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    fake.store.dispatch(draftEdited({ room: ROOM, text: '' }));
    fake.store.dispatch(draftEdited({ room: ROOM, text: '' }));
    expect(socket.sent.slice(1)).toEqual([
      { type: FrameType.Typing, typing: true },
      { type: FrameType.Typing, typing: false },
    ]);
  });
});
