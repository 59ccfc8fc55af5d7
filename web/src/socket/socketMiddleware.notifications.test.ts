import { FrameType } from '@taco/protocol';
import { chatMessage, EPOCH, ME, openAndSync, ROOM, setup } from '../../test/socketRoom';
import { notifyModeChosen } from '../features/notifyPrefs/notifyPrefsSlice';
import { notificationTag } from './notifications';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** Whether a message mentions the user loads the Markdown parser first: a few microtasks. */
async function settle() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('socket middleware: notifications', () => {
  const say = (socket: ReturnType<typeof openAndSync>, seq: number, body: string) =>
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(seq, 'Bob', body),
    });

  it('notifies every message by default, each with the room tag', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    say(socket, 2, 'one');
    say(socket, 3, 'two');
    expect(fake.notifications).toEqual([
      ['Bob', 'one'],
      ['Bob', 'two'],
    ]);
    expect(fake.tags).toEqual([notificationTag(ROOM), notificationTag(ROOM)]);
  });

  it('in Mentions only notifies a message that mentions the user, and Off none', async () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(notifyModeChosen({ room: ROOM, mode: 'mentions' }));
    say(socket, 2, 'hello all');
    say(socket, 3, 'hey @alice, look');
    say(socket, 4, 'mail me at bob@alice.test');
    await settle();
    expect(fake.notifications).toEqual([['Bob', 'hey @alice, look']]);
    fake.store.dispatch(notifyModeChosen({ room: ROOM, mode: 'off' }));
    say(socket, 5, '@Alice?');
    await settle();
    expect(fake.notifications).toHaveLength(1);
  });

  it('in Mentions only does not take a mention of a longer name in the room for the user', async () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(notifyModeChosen({ room: ROOM, mode: 'mentions' }));
    socket.serverSend({
      type: FrameType.Presence,
      room: ROOM,
      sender: `${ME} Lee`,
      connecting: true,
    });
    say(socket, 2, `@${ME} Lee, your turn`);
    say(socket, 3, `@${ME}, yours`);
    await settle();
    expect(fake.notifications).toEqual([['Bob', `@${ME}, yours`]]);
  });
});
