import { type ServerHistoryFrame, type ServerMessageFrame, isHistoryFrame } from './frames';

const single: ServerMessageFrame = {
  type: 1,
  room: 'teal-otter',
  sender: 'alice',
  body: 'hi',
  timestamp: 1700000000.5,
  seq: 3,
  epoch: 'Xq3v_8ab1k',
};

const batch: ServerHistoryFrame = {
  type: 1,
  room: 'teal-otter',
  epoch: 'Xq3v_8ab1k',
  messages: [{ sender: 'alice', body: 'hi', timestamp: 1700000000, seq: 1 }],
  complete: true,
};

describe('isHistoryFrame', () => {
  test('tells a history batch from a single message', () => {
    expect(isHistoryFrame(batch)).toBe(true);
    expect(isHistoryFrame(single)).toBe(false);
  });

  test('an empty batch is still a batch', () => {
    expect(isHistoryFrame({ ...batch, messages: [], complete: false })).toBe(true);
  });

  test('a single message whose body mentions messages is not a batch', () => {
    expect(isHistoryFrame({ ...single, body: 'messages' })).toBe(false);
  });

  test('a messages field that is not an array does not make a batch', () => {
    const odd = { ...single, messages: 'not a list' } as unknown as ServerMessageFrame;
    expect(isHistoryFrame(odd)).toBe(false);
  });

  test('narrows the type', () => {
    const frames: Array<ServerMessageFrame | ServerHistoryFrame> = [single, batch];
    const bodies = frames.flatMap((frame) =>
      isHistoryFrame(frame) ? frame.messages.map((m) => m.body) : [frame.body],
    );
    expect(bodies).toEqual(['hi', 'hi']);
  });
});
