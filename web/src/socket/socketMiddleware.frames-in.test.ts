import { ErrorCode, FrameType, TYPING_STALE_MS, TYPING_THROTTLE_MS } from '@taco/protocol';
import { chatMessage, EPOCH, ME, openAndSync, ROOM, setup } from '../../test/socketRoom';
import { messageRetried, messageSent } from '../features/chat/chatActions';
import { selectMessages } from '../features/messages/messagesSlice';
import { selectParticipants } from '../features/presence/presenceSlice';
import { selectNotices } from '../features/notices/noticesSlice';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('lets a typing indicator outlive the pause between two typing frames', () => {
  expect(TYPING_STALE_MS).toBeGreaterThan(TYPING_THROTTLE_MS);
});

describe('socket middleware: frames in', () => {
  it('turns message, typing, presence and clear frames into state', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Bob', connecting: true });
    socket.serverSend({ type: FrameType.Typing, room: ROOM, sender: 'Bob', typing: true });
    expect(selectParticipants(fake.store.getState(), ROOM)).toEqual([
      { name: 'Bob', active: true, typing: true, lastTypingTime: Date.now() },
    ]);
    socket.serverSend({ type: FrameType.Message, room: ROOM, epoch: EPOCH, ...chatMessage(2) });
    expect(selectMessages(fake.store.getState(), ROOM)).toHaveLength(2);
    socket.serverSend({ type: FrameType.Clear, room: ROOM, sender: 'Bob' });
    expect(selectMessages(fake.store.getState(), ROOM)).toEqual([]);
  });

  it('drops a typing indicator that is not refreshed', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    socket.serverSend({ type: FrameType.Typing, room: ROOM, sender: 'Bob', typing: true });
    jest.advanceTimersByTime(TYPING_STALE_MS);
    expect(selectParticipants(fake.store.getState(), ROOM)[0]?.typing).toBe(false);
  });

  it('notifies for single remote messages only: not own ones, not history batches', () => {
    const fake = setup();
    const socket = openAndSync(fake, [chatMessage(1), chatMessage(2)]);
    expect(fake.notifications).toEqual([]);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(3, 'Bob', 'hey'),
    });
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(4, ME, 'mine'),
    });
    expect(fake.notifications).toEqual([['Bob', 'hey']]);
  });

  it('ignores frames of an unexpected shape and logs them', () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const fake = setup();
    const socket = openAndSync(fake);
    socket.serverSendText('{"type":1,"room":"teal-otter"}');
    expect(selectMessages(fake.store.getState(), ROOM)).toHaveLength(1);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it('shows error frames as notices and fails exactly the message the error names', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    for (const clientId of ['c0', 'c1']) {
      fake.store.dispatch(
        messageSent({ room: ROOM, clientId, body: 'hi', senderName: ME, timestamp: 1 }),
      );
    }
    socket.serverSend({
      type: FrameType.Error,
      code: ErrorCode.RateLimited,
      message: 'You are sending too fast; please slow down',
    });
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.status)).toEqual([
      'sent',
      'pending',
      'pending',
    ]);
    socket.serverSend({
      type: FrameType.Error,
      code: ErrorCode.Unavailable,
      message: 'The server could not store that; please try again',
      client_id: 'c1',
    });
    expect(selectNotices(fake.store.getState()).map((n) => n.text)).toEqual([
      'The server could not store that; please try again',
    ]);
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.status)).toEqual([
      'sent',
      'pending',
      'failed',
    ]);
    socket.sent.length = 0;
    fake.store.dispatch(messageRetried({ room: ROOM, clientId: 'c1' }));
    expect(socket.sent).toEqual([{ type: FrameType.Message, body: 'hi', client_id: 'c1' }]);
  });
});
