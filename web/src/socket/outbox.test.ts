import { type ClientFrame, FrameType, TYPING_THROTTLE_MS } from '@taco/protocol';
import { Outbox, TypingSignal } from './outbox';

/** A connection that records frames, open unless told otherwise. */
function connection() {
  const sent: ClientFrame[] = [];
  const state = { open: true };
  const send = (frame: ClientFrame) => {
    if (state.open) sent.push(frame);
    return state.open;
  };
  return { sent, state, send };
}

const message = (clientId: string, body = clientId) => ({
  type: FrameType.Message,
  body,
  client_id: clientId,
});

describe('Outbox', () => {
  it('holds messages until history caught up, then sends each once per connection', () => {
    const { sent, send } = connection();
    const outbox = new Outbox(send);
    outbox.send('c1', 'c1');
    expect(sent).toEqual([]);
    outbox.flush([{ clientId: 'c1', message: 'c1' }]);
    outbox.send('c2', 'c2');
    outbox.flush([
      { clientId: 'c1', message: 'c1' },
      { clientId: 'c2', message: 'c2' },
    ]);
    expect(sent).toEqual([message('c1'), message('c2')]);
  });

  it('sends again on a new connection, once its history caught up', () => {
    const { sent, send } = connection();
    const outbox = new Outbox(send);
    outbox.flush([{ clientId: 'c1', message: 'c1' }]);
    outbox.reset();
    outbox.send('c2', 'c2');
    outbox.flush([{ clientId: 'c1', message: 'c1' }]);
    expect(sent).toEqual([message('c1'), message('c1')]);
  });

  it('does not count a message as sent while the connection is closed', () => {
    const { sent, state, send } = connection();
    const outbox = new Outbox(send);
    outbox.flush([]);
    state.open = false;
    outbox.send('c1', 'c1');
    state.open = true;
    outbox.flush([{ clientId: 'c1', message: 'c1' }]);
    expect(sent).toEqual([message('c1')]);
  });

  it('sends a retried message again', () => {
    const { sent, send } = connection();
    const outbox = new Outbox(send);
    outbox.flush([]);
    outbox.send('c1', 'c1');
    outbox.resend('c1', 'c1');
    expect(sent).toEqual([message('c1'), message('c1')]);
  });
});

describe('TypingSignal', () => {
  const typing = (value: boolean) => ({ type: FrameType.Typing, typing: value });

  it('sends typing=true on the leading edge, at most once per throttle interval', () => {
    const { sent, send } = connection();
    let now = 10_000;
    const signal = new TypingSignal(send, () => now);
    signal.edited(false);
    now += TYPING_THROTTLE_MS - 1;
    signal.edited(false);
    now += 1;
    signal.edited(false);
    expect(sent).toEqual([typing(true), typing(true)]);
  });

  it('sends typing=false only while others may see the user typing', () => {
    const { sent, send } = connection();
    const signal = new TypingSignal(send, () => 0);
    signal.edited(true);
    signal.stopped();
    signal.edited(false);
    signal.edited(true);
    signal.stopped();
    expect(sent).toEqual([typing(true), typing(false)]);
  });

  it('forgets what others saw on a new connection', () => {
    const { sent, send } = connection();
    const signal = new TypingSignal(send, () => 0);
    signal.edited(false);
    signal.reset();
    signal.stopped();
    expect(sent).toEqual([typing(true)]);
  });

  it('keeps showing typing when typing=false could not be sent', () => {
    const { sent, state, send } = connection();
    const signal = new TypingSignal(send, () => 0);
    signal.edited(false);
    state.open = false;
    signal.stopped();
    state.open = true;
    signal.stopped();
    expect(sent).toEqual([typing(true), typing(false)]);
  });
});
