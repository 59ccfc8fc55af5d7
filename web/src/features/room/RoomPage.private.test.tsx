import { CloseCode, FrameType, type ServerFrame } from '@taco/protocol';
import { roomCipher } from '@taco/protocol/e2e-crypto';
import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { authenticated, openRoom, ROOM } from '../../../test/openRoom';
import { renderApp } from '../../../test/render';
import { keyOf } from '../../common/keyed';
import { API, server } from '../../../test/server';
import { selectMessages } from '../messages/messagesSlice';
import { selectRoomAuth } from '../roomAuth/roomAuthSlice';
import { UNDECRYPTABLE_TEXT } from './MessageBubble';
import { NEEDS_KEY_TITLE, REMOVED_TITLE } from './RoomPage';
import { roomUrl } from './share';

// The key of protocol/README.md §6.12's test vectors, and another one.
const KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const OTHER_KEY = 'BBECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const SLOW = { timeout: 5000 };

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  window.history.replaceState(null, '', '/');
});
afterAll(() => server.close());

/** `GET /api/room/:room_id` says the room is encrypted, with the key check of `KEY`. */
async function encryptedRoomInfo() {
  const keyCheck = (await roomCipher(KEY, ROOM)).keyCheck;
  server.use(
    http.get(`${API}/api/room/:room`, () =>
      HttpResponse.json({
        room_id: ROOM,
        participants: 1,
        settings: {
          encrypted: true,
          key_check: keyCheck,
          locked: false,
          disappear_after: 0,
          disappear_choices: [0, 3600, 86400, 604800],
        },
      }),
    ),
  );
}

const roomFrame = (overrides: Partial<Extract<ServerFrame, { type: 9 }>> = {}): ServerFrame => ({
  type: FrameType.Room,
  room: ROOM,
  encrypted: false,
  locked: false,
  disappear_after: 0,
  creator: 'Bob',
  is_creator: false,
  ...overrides,
});

describe('Room page: an end-to-end encrypted room', () => {
  it('keeps the key from the link for the room, takes it out of the address bar, and joins', async () => {
    await encryptedRoomInfo();
    window.history.replaceState(null, '', `/r/${ROOM}#${KEY}`);
    const { store, fake } = renderApp({ path: `/r/${ROOM}`, preloadedState: authenticated() });
    expect(window.location.hash).toBe('');
    expect(window.location.pathname).toBe(`/r/${ROOM}`);
    expect(selectRoomAuth(store.getState(), ROOM)?.key).toBe(KEY);
    await waitFor(() => expect(fake.sockets).toHaveLength(1), SLOW);
    expect(screen.queryByRole('heading', { name: NEEDS_KEY_TITLE })).not.toBeInTheDocument();
  });

  it('without the key says the full link is needed, and does not join', async () => {
    await encryptedRoomInfo();
    const { fake } = renderApp({ path: `/r/${ROOM}` });
    expect(await screen.findByRole('heading', { name: NEEDS_KEY_TITLE }, SLOW)).toBeVisible();
    expect(screen.getByText(/The link you opened has no key/)).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(fake.sockets).toHaveLength(0);
  });

  it('with a key whose check differs says so, and does not join', async () => {
    await encryptedRoomInfo();
    window.history.replaceState(null, '', `/r/${ROOM}#${OTHER_KEY}`);
    const { fake } = renderApp({ path: `/r/${ROOM}`, preloadedState: authenticated() });
    expect(await screen.findByRole('heading', { name: NEEDS_KEY_TITLE }, SLOW)).toBeVisible();
    expect(screen.getByText(/carries a key that does not open this room/)).toBeInTheDocument();
    expect(fake.sockets).toHaveLength(0);
  });

  it('takes a key given after the # later in the same tab (a link pasted again)', async () => {
    await encryptedRoomInfo();
    window.history.replaceState(null, '', `/r/${ROOM}`);
    const { store, fake } = renderApp({ path: `/r/${ROOM}`, preloadedState: authenticated() });
    expect(await screen.findByRole('heading', { name: NEEDS_KEY_TITLE }, SLOW)).toBeVisible();
    act(() => {
      window.history.replaceState(null, '', `/r/${ROOM}#${KEY}`);
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    expect(window.location.hash).toBe('');
    expect(selectRoomAuth(store.getState(), ROOM)?.key).toBe(KEY);
    await waitFor(() => expect(fake.sockets).toHaveLength(1), SLOW);
  });

  it('shows decrypted messages with Markdown, and one that does not open as such', async () => {
    await encryptedRoomInfo();
    window.history.replaceState(null, '', `/r/${ROOM}#${KEY}`);
    const { fake, store } = renderApp({ path: `/r/${ROOM}`, preloadedState: authenticated() });
    await waitFor(() => expect(fake.sockets).toHaveLength(1), SLOW);
    const cipher = await roomCipher(KEY, ROOM);
    const other = await roomCipher(OTHER_KEY, ROOM);
    const socket = fake.last();
    const history: ServerFrame = {
      type: FrameType.Message,
      room: ROOM,
      epoch: 'e1',
      messages: [
        { sender: 'Bob', body: await cipher.encrypt('a **bold** hello'), timestamp: 1, seq: 1 },
        { sender: 'Cy', body: await other.encrypt('not for you'), timestamp: 2, seq: 2 },
      ],
      complete: true,
    };
    act(() => {
      socket.serverOpen();
      socket.serverSend(roomFrame({ encrypted: true }));
      socket.serverSend(history);
    });
    await waitFor(() => expect(selectMessages(store.getState(), ROOM)).toHaveLength(2), SLOW);
    const log = screen.getByRole('log', { name: 'Messages' });
    expect(within(log).getByText('bold').tagName).toBe('STRONG');
    expect(within(log).getByText(UNDECRYPTABLE_TEXT)).toBeInTheDocument();
    expect(log.textContent).not.toMatch(/e1\./);
  });

  describe('reached by the socket alone (settings held from before, or none)', () => {
    /** A tab that holds a token and `key`, whose room info said the room is plain. */
    async function joinedAsPlain(key?: string) {
      const preloadedState = authenticated();
      if (key !== undefined) preloadedState.roomAuth![keyOf(ROOM)]!.key = key;
      const rendered = renderApp({ path: `/r/${ROOM}`, preloadedState });
      await waitFor(() => expect(rendered.fake.sockets).toHaveLength(1), SLOW);
      const socket = rendered.fake.last();
      const keyCheck = (await roomCipher(KEY, ROOM)).keyCheck;
      act(() => {
        socket.serverOpen();
        socket.serverSend(roomFrame({ encrypted: true, key_check: keyCheck }));
      });
      return { ...rendered, socket };
    }

    it('tells a wrong key by the room frame’s key check, and leaves the room', async () => {
      const { socket } = await joinedAsPlain(OTHER_KEY);
      expect(await screen.findByRole('heading', { name: NEEDS_KEY_TITLE }, SLOW)).toBeVisible();
      expect(screen.getByText(/carries a key that does not open this room/)).toBeInTheDocument();
      expect(socket.closedWith).not.toBeNull();
    });

    it('tells no key from a wrong one', async () => {
      const { socket } = await joinedAsPlain();
      expect(await screen.findByRole('heading', { name: NEEDS_KEY_TITLE }, SLOW)).toBeVisible();
      expect(screen.getByText(/The link you opened has no key/)).toBeInTheDocument();
      expect(socket.closedWith).not.toBeNull();
    });

    it('stays in the room with the key that fits', async () => {
      const { socket } = await joinedAsPlain(KEY);
      expect(await screen.findByRole('button', { name: 'Encrypted' }, SLOW)).toBeVisible();
      expect(screen.queryByRole('heading', { name: NEEDS_KEY_TITLE })).not.toBeInTheDocument();
      expect(socket.closedWith).toBeNull();
    });
  });

  describe('holding a token: waits for the settings only to check a key (§2.6)', () => {
    /** `GET /api/room/:room_id` answers when the returned function is called, with `answer`. */
    function heldRoomInfo(answer: () => Promise<Response>) {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      server.use(
        http.get(`${API}/api/room/:room`, async () => {
          await released;
          return answer();
        }),
      );
      return release;
    }
    const encryptedAnswer = async () =>
      HttpResponse.json({
        room_id: ROOM,
        participants: 1,
        settings: {
          encrypted: true,
          key_check: (await roomCipher(KEY, ROOM)).keyCheck,
          locked: false,
          disappear_after: 0,
          disappear_choices: [0, 3600, 86400, 604800],
        },
      });

    it('with a key, opens no socket before the settings came and the key fits', async () => {
      const release = heldRoomInfo(encryptedAnswer);
      const preloadedState = authenticated();
      preloadedState.roomAuth![keyOf(ROOM)]!.key = KEY;
      const { fake } = renderApp({ path: `/r/${ROOM}`, preloadedState });
      expect(screen.getByRole('heading', { name: 'Connecting...' })).toBeInTheDocument();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fake.sockets).toHaveLength(0);
      release();
      await waitFor(() => expect(fake.sockets).toHaveLength(1), SLOW);
    });

    it('without a key, opens the socket at once; the room frame decides', async () => {
      heldRoomInfo(encryptedAnswer);
      const { fake } = renderApp({ path: `/r/${ROOM}`, preloadedState: authenticated() });
      await waitFor(() => expect(fake.sockets).toHaveLength(1), SLOW);
      act(() => {
        fake.last().serverOpen();
        fake.last().serverSend(roomFrame({ encrypted: true, key_check: 'kCkgsYkkv54-WIGsWY4ydg' }));
      });
      expect(await screen.findByRole('heading', { name: NEEDS_KEY_TITLE }, SLOW)).toBeVisible();
      expect(fake.last().closedWith).not.toBeNull();
    });

    it('with a key, opens the socket when the settings cannot be read', async () => {
      const release = heldRoomInfo(() => Promise.resolve(HttpResponse.json({}, { status: 503 })));
      const preloadedState = authenticated();
      preloadedState.roomAuth![keyOf(ROOM)]!.key = KEY;
      const { fake } = renderApp({ path: `/r/${ROOM}`, preloadedState });
      release();
      await waitFor(() => expect(fake.sockets).toHaveLength(1), SLOW);
    });
  });

  it('shares the link with its key', () => {
    expect(roomUrl(ROOM, KEY)).toBe(`${window.location.origin}/r/${ROOM}#${KEY}`);
    expect(roomUrl(ROOM)).toBe(`${window.location.origin}/r/${ROOM}`);
  });

  it('explains what the server still sees from the header lock', async () => {
    const preloadedState = authenticated();
    preloadedState.roomAuth![keyOf(ROOM)]!.key = KEY;
    const { fake, user } = renderApp({ path: `/r/${ROOM}`, preloadedState });
    await waitFor(() => expect(fake.sockets).toHaveLength(1), SLOW);
    act(() => {
      fake.last().serverOpen();
      fake.last().serverSend(roomFrame({ encrypted: true, locked: true, disappear_after: 86400 }));
    });
    expect(screen.getByText('Locked')).toBeInTheDocument();
    expect(screen.getByText('Disappearing: 1 day')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Encrypted' }));
    const dialog = screen.getByRole('dialog', { name: 'End-to-end encrypted' });
    expect(dialog).toHaveTextContent('display names, who is present and who is typing');
    expect(dialog).toHaveTextContent('when each message was sent, and how long it is');
  });
});

describe('Room page: the room frame and the creator', () => {
  it('shows each change as a line in the feed', () => {
    const { socket } = openRoom();
    const events: Array<NonNullable<Extract<ServerFrame, { type: 9 }>['event']>> = [
      { action: 'lock', by: 'Ana' },
      { action: 'unlock', by: 'Ana' },
      { action: 'remove', by: 'Ana', name: 'Bob' },
      { action: 'hand_over', by: 'Ana', name: 'Cy' },
      { action: 'disappear', by: 'Cy', after: 3600 },
      { action: 'disappear', by: 'Cy', after: 0 },
    ];
    act(() => {
      for (const event of events) socket.serverSend(roomFrame({ event }));
    });
    const lines = [...document.querySelectorAll('.feed-line-room')].map((li) => li.textContent);
    expect(lines).toEqual([
      'Ana locked the room',
      'Ana unlocked the room',
      'Ana removed Bob',
      "Ana made Cy the room's creator",
      'Cy set messages to disappear after 1 hour',
      'Cy turned off disappearing messages',
    ]);
  });

  it('gives the controls to the creator only', async () => {
    const { socket, user } = openRoom();
    act(() => socket.serverSend(roomFrame({ creator: 'Bob', is_creator: false })));
    await user.click(screen.getByRole('button', { name: 'Room menu' }));
    await screen.findByRole('menuitem', { name: 'Change name…' });
    expect(screen.queryByRole('menuitem', { name: 'Lock room' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Actions for Bob' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Room menu' }));
    await waitFor(() => expect(screen.queryByRole('menu')).not.toBeInTheDocument());

    act(() => socket.serverSend(roomFrame({ creator: 'Alice', is_creator: true })));
    socket.sent.length = 0;
    await user.click(screen.getByRole('button', { name: 'Room menu' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Lock room' }));
    expect(socket.sent).toEqual([{ type: FrameType.Room, action: 'lock' }]);

    // Removing someone asks first.
    await user.click(screen.getByRole('button', { name: 'Actions for Bob' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Remove from room…' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove Bob?' });
    expect(socket.sent).toHaveLength(1);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(socket.sent.at(-1)).toEqual({ type: FrameType.Room, action: 'remove', name: 'Bob' });

    await user.click(screen.getByRole('button', { name: 'Actions for Bob' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Make creator…' }));
    await user.click(screen.getByRole('button', { name: 'Hand over' }));
    expect(socket.sent.at(-1)).toEqual({ type: FrameType.Room, action: 'hand_over', name: 'Bob' });
  });

  it('lets the creator change the disappearing setting', async () => {
    const { socket, user } = openRoom();
    act(() =>
      socket.serverSend(roomFrame({ creator: 'Alice', is_creator: true, disappear_after: 0 })),
    );
    socket.sent.length = 0;
    await user.click(screen.getByRole('button', { name: 'Room menu' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Disappearing messages: Off…' }));
    const dialog = screen.getByRole('dialog', { name: 'Disappearing messages' });
    // No choices told by the server: only the current one (Off) is offered, so nothing changes.
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(socket.sent).toEqual([]);
  });

  it('shows a refused control like other errors', () => {
    const { socket } = openRoom();
    act(() =>
      socket.serverSend({
        type: FrameType.Error,
        code: 'not_creator',
        message: "Only the room's creator can do that",
      }),
    );
    expect(screen.getByText("Only the room's creator can do that")).toBeInTheDocument();
  });
});

describe('Room page: removed from the room (close 4403)', () => {
  it('says so, drops the token and does not reconnect', async () => {
    const { socket, store, fake } = openRoom();
    act(() => socket.serverClose(CloseCode.Removed));
    expect(await screen.findByRole('heading', { name: REMOVED_TITLE })).toBeVisible();
    expect(selectRoomAuth(store.getState(), ROOM)).toMatchObject({ token: '', removed: true });
    await act(() => new Promise((resolve) => setTimeout(resolve, 1500)));
    expect(fake.sockets).toHaveLength(1);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('lets the user join again under another name', async () => {
    const { socket, store, user } = openRoom();
    act(() => socket.serverClose(CloseCode.Removed));
    await user.click(await screen.findByRole('button', { name: 'Join with another name' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Please choose a username')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Username')).toHaveValue('');
    expect(selectRoomAuth(store.getState(), ROOM)?.removed).toBeUndefined();
  });
});

describe('Room page: disappearing messages', () => {
  afterEach(() => jest.useRealTimers());

  it('takes each message out of view when its time is up, by one timer at a time', () => {
    // openRoom's messages were sent at 1_700_000_001 and 1_700_000_002 (seconds).
    jest.useFakeTimers({ now: 1_700_000_030_000 });
    const { socket } = openRoom({ fakeTimers: true });
    const texts = () =>
      [...document.querySelectorAll('.message .bubble')].map((bubble) => bubble.textContent);
    expect(texts()).toEqual(['Hi Alice', 'Hi Bob']);
    const timers = jest.getTimerCount();
    act(() => socket.serverSend(roomFrame({ disappear_after: 60 })));
    expect(jest.getTimerCount()).toBe(timers + 1);
    act(() => jest.advanceTimersByTime(30_000));
    expect(texts()).toEqual(['Hi Alice', 'Hi Bob']);
    act(() => jest.advanceTimersByTime(1_500));
    expect(texts()).toEqual(['Hi Bob']);
    act(() => jest.advanceTimersByTime(1_000));
    expect(texts()).toEqual([]);
    expect(screen.getByText('Disappearing: 1 minute')).toBeInTheDocument();
  });
});
