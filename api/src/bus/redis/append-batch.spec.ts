import { APPEND_BATCH_MAX, AppendBatch, type AppendEntry, appendCall } from './append-batch';

const entry = (room: string, message: string): AppendEntry => ({
  room,
  keys: [`${room}:seq`, `${room}:log`, `${room}:epoch`, `${room}:channel`],
  args: [message, 'head', '}'],
});

describe('AppendBatch', () => {
  it("sends a turn's messages in one call, in order, and answers each with its own line", async () => {
    const run = jest.fn((entries: readonly AppendEntry[]) =>
      Promise.resolve(entries.map((_, index) => `${index + 1} E1`).join('\n')),
    );
    const batch = new AppendBatch(run);
    const answers = await Promise.all([
      batch.add(entry('a', 'one')),
      batch.add(entry('b', 'two')),
      batch.add(entry('a', 'three')),
    ]);
    expect(answers).toEqual(['1 E1', '2 E1', '3 E1']);
    expect(run).toHaveBeenCalledTimes(1);
    expect(run.mock.calls[0]?.[0].map((sent) => sent.args[0])).toEqual(['one', 'two', 'three']);
  });

  it('sends what waits at once when flushed, and nothing twice', async () => {
    const run = jest.fn(() => Promise.resolve('1 E1'));
    const batch = new AppendBatch(run);
    const answer = batch.add(entry('a', 'one'));
    batch.flush();
    expect(run).toHaveBeenCalledTimes(1);
    await expect(answer).resolves.toBe('1 E1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('keeps each call to at most APPEND_BATCH_MAX messages, in order', async () => {
    const run = jest.fn((entries: readonly AppendEntry[]) =>
      Promise.resolve(entries.map((sent) => `${sent.args[0]} E1`).join('\n')),
    );
    const batch = new AppendBatch(run);
    const count = APPEND_BATCH_MAX * 2 + 1;
    const answers = await Promise.all(
      Array.from({ length: count }, (_, index) => batch.add(entry('a', String(index)))),
    );
    expect(answers).toEqual(Array.from({ length: count }, (_, index) => `${index} E1`));
    expect(run.mock.calls.map(([entries]) => entries.length)).toEqual([
      APPEND_BATCH_MAX,
      APPEND_BATCH_MAX,
      1,
    ]);
  });

  it('refuses every message of a call Redis did not answer', async () => {
    const batch = new AppendBatch(() => Promise.reject(new Error('Connection is closed.')));
    const outcomes = await Promise.allSettled([
      batch.add(entry('a', 'one')),
      batch.add(entry('b', 'two')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });

  it('refuses a message the answer has no line for', async () => {
    const batch = new AppendBatch(() => Promise.resolve('1 E1'));
    const outcomes = await Promise.allSettled([
      batch.add(entry('a', 'one')),
      batch.add(entry('b', 'two')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
  });
});

describe('appendCall', () => {
  it('puts the shared arguments first, then each message’s keys and arguments in order, and the call’s key last', () => {
    expect(
      appendCall(
        [entry('a', 'one'), entry('b', 'two')],
        [100, 60, 'PUBLISH', 'E1', '{'],
        'a:call:x1',
      ),
    ).toEqual({
      keys: [
        'a:seq',
        'a:log',
        'a:epoch',
        'a:channel',
        'b:seq',
        'b:log',
        'b:epoch',
        'b:channel',
        'a:call:x1',
      ],
      args: [100, 60, 'PUBLISH', 'E1', '{', 'one', 'head', '}', 'two', 'head', '}'],
    });
  });

  it('refuses a call with no message', () => {
    expect(() => appendCall([], [100, 60, 'PUBLISH', 'E1', '{'], 'a:call:x1')).toThrow(
      'An append call needs at least one message',
    );
  });
});
