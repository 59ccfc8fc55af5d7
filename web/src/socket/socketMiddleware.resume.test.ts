import { CloseCode, FrameType, HISTORY_REQUEST_COUNT, RECONNECT_INTERVAL_MS } from '@taco/protocol';
import {
  chatMessage,
  EPOCH,
  historyFrame,
  messagesFrom,
  openAndSync,
  reconnected,
  resumeRequest,
  ROOM,
  setup,
} from '../../test/socketRoom';
import { selectMessages, selectResumePoint } from '../features/messages/messagesSlice';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('socket middleware: the resume point', () => {
  /** Reconnects, and a live message comes before the resume's answer. */
  function resumeOvertaken(liveSeq: number) {
    const fake = setup();
    const socket = reconnected(fake);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(liveSeq),
    });
    return { fake, socket };
  }

  it('asks for the next page after the page, not after a live message that overtook it', () => {
    const live = HISTORY_REQUEST_COUNT * 3;
    const { fake, socket } = resumeOvertaken(live);
    socket.serverSend(historyFrame(messagesFrom(3, HISTORY_REQUEST_COUNT)));
    expect(socket.sent[1]).toEqual(resumeRequest(HISTORY_REQUEST_COUNT + 2));
    socket.serverSend(historyFrame(messagesFrom(HISTORY_REQUEST_COUNT + 3, HISTORY_REQUEST_COUNT)));
    expect(socket.sent[2]).toEqual(resumeRequest(HISTORY_REQUEST_COUNT * 2 + 2));
    socket.serverSend(
      historyFrame(messagesFrom(HISTORY_REQUEST_COUNT * 2 + 3, HISTORY_REQUEST_COUNT - 2)),
    );
    const seqs = selectMessages(fake.store.getState(), ROOM).map((m) => m.seq);
    expect(seqs).toEqual(Array.from({ length: live }, (_, i) => i + 1));
    expect(selectResumePoint(fake.store.getState(), ROOM).after).toBe(live);
  });

  it('resumes from where it was when the socket drops before the answer', () => {
    const { fake } = resumeOvertaken(50);
    fake.last().serverClose(CloseCode.Abnormal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 1.2);
    fake.last().serverOpen();
    expect(fake.last().sent).toEqual([resumeRequest(2)]);
  });
});

describe('socket middleware: epoch', () => {
  it('resumes with the epoch of its seq, and replaces the list when the room started again', () => {
    const fake = setup();
    openAndSync(fake, [chatMessage(1), chatMessage(2)]);
    fake.last().serverClose(CloseCode.Restart);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    const socket = fake.last();
    socket.serverOpen();
    expect(socket.sent).toEqual([
      { type: FrameType.History, count: HISTORY_REQUEST_COUNT, after: 2, epoch: EPOCH },
    ]);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: 'e2',
      messages: [chatMessage(1, 'Bob', 'new numbering')],
      complete: false,
    });
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => [m.seq, m.message])).toEqual([
      [1, 'new numbering'],
    ]);
    socket.serverSend({ type: FrameType.Message, room: ROOM, epoch: 'e2', ...chatMessage(2) });
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2]);
    expect(selectResumePoint(fake.store.getState(), ROOM).epoch).toBe('e2');
  });
});

describe('socket middleware: a server restart', () => {
  it('keeps the messages held until the answer of the new epoch replaces them', () => {
    const fake = setup();
    openAndSync(fake, [chatMessage(1), chatMessage(2)]);
    fake.last().serverClose(CloseCode.Restart);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.message)).toEqual(['m1', 'm2']);
    const socket = fake.last();
    socket.serverOpen();
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.message)).toEqual(['m1', 'm2']);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: 'e2',
      messages: [],
      complete: false,
    });
    expect(selectMessages(fake.store.getState(), ROOM)).toEqual([]);
  });
});
