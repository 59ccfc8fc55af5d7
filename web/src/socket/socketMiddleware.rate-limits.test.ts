import { ErrorCode, FrameType, RATE_LIMITS } from '@taco/protocol';
import { chatMessage, EPOCH, ME, openAndSync, ROOM, setup } from '../../test/socketRoom';
import { messageRetried, messageSent } from '../features/chat/chatActions';
import { selectMessages } from '../features/messages/messagesSlice';
import { selectNotices } from '../features/notices/noticesSlice';
import { RATE_LIMITED_TRIES } from './outbox';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('socket middleware: rate limits', () => {
  const rateLimited = (clientId: string) => ({
    type: FrameType.Error,
    code: ErrorCode.RateLimited,
    message: 'You are sending too fast; please slow down',
    client_id: clientId,
  });
  const sentIds = (socket: { sent: unknown[] }) =>
    socket.sent.map((frame) => (frame as { client_id?: string }).client_id);
  const typed = (fake: ReturnType<typeof setup>, ...ids: string[]) => {
    for (const clientId of ids) {
      fake.store.dispatch(
        messageSent({ room: ROOM, clientId, body: clientId, senderName: ME, timestamp: 1 }),
      );
    }
  };

  it('paces a burst beyond the bucket instead of sending it all at once', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    const ids = Array.from({ length: RATE_LIMITS.messageBurst + 2 }, (_, i) => `c${i}`);
    typed(fake, ...ids);
    // typing=false frames are not messages
    const messages = () => sentIds(socket).filter((id) => id !== undefined);
    // All but the last token of the bucket at once (one stays in hand for network jitter).
    expect(messages()).toEqual(ids.slice(0, RATE_LIMITS.messageBurst - 1));
    jest.advanceTimersByTime(3000);
    expect(messages()).toEqual(ids);
  });

  it('retries what the server refused as rate limited, in the order typed, with one notice', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    typed(fake, 'a', 'b', 'c');
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      client_id: 'a',
      ...chatMessage(2, ME, 'a'),
    });
    socket.serverSend(rateLimited('b'));
    socket.serverSend(rateLimited('c'));
    expect(selectNotices(fake.store.getState())).toHaveLength(1);
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.status)).toEqual([
      'sent',
      'sent',
      'pending',
      'pending',
    ]);
    socket.sent.length = 0;
    jest.advanceTimersByTime(2000);
    expect(sentIds(socket)).toEqual(['b', 'c']);
  });

  it('marks a message not sent only when its retries ran out, and Retry sends it again', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    typed(fake, 'a');
    for (let i = 0; i < RATE_LIMITED_TRIES; i++) {
      expect(selectMessages(fake.store.getState(), ROOM)[1]?.status).toBe('pending');
      socket.serverSend(rateLimited('a'));
      jest.advanceTimersByTime(1000);
    }
    expect(selectMessages(fake.store.getState(), ROOM)[1]?.status).toBe('failed');
    socket.sent.length = 0;
    jest.advanceTimersByTime(5000);
    expect(socket.sent).toEqual([]);
    fake.store.dispatch(messageRetried({ room: ROOM, clientId: 'a' }));
    expect(socket.sent).toEqual([{ type: FrameType.Message, body: 'a', client_id: 'a' }]);
  });
});
