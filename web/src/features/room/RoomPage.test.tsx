import {
  ApiPath,
  CloseCode,
  ErrorCode,
  FrameType,
  HISTORY_REQUEST_COUNT,
  NAME_TAKEN_MESSAGE,
} from '@taco/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '../../../test/render';
import { API, server } from '../../../test/server';
import { selectRoomKnown } from '../messages/messagesSlice';
import { SESSION_EXPIRED_MESSAGE } from '../roomAuth/authErrorsSlice';
import { selectRoomAuth } from '../roomAuth/roomAuthSlice';
import { INPUT_FOCUS_DELAY_MS } from './Composer';
import { TOAST_DELAY_MS } from './RoomPage';
import { SHARE_COPIED_MESSAGE } from './share';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

import { chatMessage, EPOCH, openRoom, ROOM, sidebarShare } from '../../../test/openRoom';

/** The feed's messages (its other rows are day dividers and feed lines). */
function messageItems(): HTMLElement[] {
  return within(screen.getByRole('log', { name: 'Messages' }))
    .queryAllByRole('listitem')
    .filter((item) => item.classList.contains('message'));
}

describe('Room page: username modal', () => {
  it('asks for a username in a modal that cannot be dismissed, then enters the room', async () => {
    const { user, fake, store } = renderApp({ path: `/r/${ROOM}` });
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Please choose a username')).toBeInTheDocument();
    expect(
      screen.getByRole('heading', { name: 'Connecting...', hidden: true }),
    ).toBeInTheDocument();
    const input = within(dialog).getByPlaceholderText('John Doe');
    const go = within(dialog).getByRole('button', { name: 'Continue' });
    expect(go).toBeDisabled();
    await user.type(input, 'Al');
    expect(go).toBeDisabled();
    await user.keyboard('{Escape}');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    await user.type(input, 'ice');
    expect(go).toBeEnabled();
    await user.click(go);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByRole('heading', { name: 'Welcome Alice' })).toBeInTheDocument();
    expect(selectRoomKnown(store.getState(), ROOM)).toBe(true);
    expect(fake.last().url).toBe(`ws://chat.test${ApiPath.roomSocket(ROOM, 'token-Alice')}`);
  });

  it('shows a taken name in the modal and lets the user pick another', async () => {
    const { user } = renderApp({ path: `/r/${ROOM}` });
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Username'), 'Taken');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(NAME_TAKEN_MESSAGE);
    await user.type(within(dialog).getByLabelText('Username'), 'Two');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('heading', { name: 'Welcome TakenTwo' })).toBeInTheDocument();
  });

  it('checks the name before asking the server', async () => {
    const { user } = renderApp({ path: `/r/${ROOM}` });
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByLabelText('Username'));
    await user.paste('Bob!');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Invalid user name');
    expect(within(dialog).getByLabelText('Username')).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).getByLabelText('Username')).toHaveAccessibleDescription(
      'Invalid user name',
    );
  });

  it('after a 4401 asks for new credentials silently, and asks the user if that fails again', async () => {
    const { socket, fake, store } = openRoom();
    act(() => socket.serverClose(CloseCode.Unauthorized));
    await waitFor(() => expect(fake.sockets).toHaveLength(2));
    expect(fake.last().url).toContain('token=token-Alice');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    // Refused sockets open first (the server accepts the upgrade, then closes it with 4401).
    act(() => fake.last().serverOpen());
    act(() => fake.last().serverClose(CloseCode.Unauthorized));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('alert')).toHaveTextContent(SESSION_EXPIRED_MESSAGE);
    expect(within(dialog).getByLabelText('Username')).toHaveValue('Alice');
    expect(selectRoomAuth(store.getState(), ROOM)?.rejectionCount).toBe(1);
  });

  it('after a 4409 asks the user for another name, saying why, without retrying the name', async () => {
    const { socket, fake, store, user } = openRoom();
    act(() => {
      socket.serverSend({
        type: FrameType.Error,
        code: ErrorCode.NameTaken,
        message: NAME_TAKEN_MESSAGE,
      });
      socket.serverClose(CloseCode.NameTaken);
    });
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('alert')).toHaveTextContent(NAME_TAKEN_MESSAGE);
    expect(within(dialog).getByLabelText('Username')).toHaveValue('Alice');
    // Said once, in the prompt: no notice beside it, and no socket or request with that token.
    expect(screen.getAllByText(NAME_TAKEN_MESSAGE)).toHaveLength(1);
    expect(fake.sockets).toHaveLength(1);
    expect(selectRoomAuth(store.getState(), ROOM)?.token).toBe('');
    await user.type(within(dialog).getByLabelText('Username'), ' Two');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('heading', { name: 'Welcome Alice Two' })).toBeInTheDocument();
  });

  it('keeps the unsent text in the composer through a silent re-authentication', async () => {
    const { socket, fake, user } = openRoom();
    await user.type(screen.getByPlaceholderText('Type a message...'), 'half a thought');
    act(() => socket.serverClose(CloseCode.Unauthorized));
    await waitFor(() => expect(fake.sockets).toHaveLength(2));
    act(() => fake.last().serverOpen());
    expect(await screen.findByPlaceholderText('Type a message...')).toHaveValue('half a thought');
  });

  it('keeps the modal and the typed name while a new name is checked after a session expired', async () => {
    server.use(
      http.post(`${API}${ApiPath.roomCredentials(ROOM)}`, async ({ request }) => {
        const { sender_id } = (await request.json()) as { sender_id: string };
        if (sender_id === 'Alice') {
          return HttpResponse.json({ room_id: ROOM, sender_id, token: 'again' });
        }
        return HttpResponse.json(
          { statusCode: 409, error: 'Conflict', message: NAME_TAKEN_MESSAGE },
          { status: 409 },
        );
      }),
    );
    const { socket, fake, user } = openRoom();
    act(() => socket.serverClose(CloseCode.Unauthorized));
    await waitFor(() => expect(fake.sockets).toHaveLength(2));
    act(() => fake.last().serverClose(CloseCode.Unauthorized));
    const dialog = await screen.findByRole('dialog');
    const input = within(dialog).getByLabelText('Username');
    await user.clear(input);
    await user.type(input, 'Bobby');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(NAME_TAKEN_MESSAGE);
    expect(screen.getByRole('dialog')).toBe(dialog);
    expect(input).toHaveValue('Bobby');
  });

  it('shows why silent re-authentication failed', async () => {
    server.use(
      http.post(`${API}${ApiPath.roomCredentials(ROOM)}`, () =>
        HttpResponse.json(
          { statusCode: 409, error: 'Conflict', message: NAME_TAKEN_MESSAGE },
          { status: 409 },
        ),
      ),
    );
    const { socket } = openRoom();
    act(() => socket.serverClose(CloseCode.Unauthorized));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('alert')).toHaveTextContent(NAME_TAKEN_MESSAGE);
  });
});

describe('Room page: chat', () => {
  it('shows the welcome, the feed with sender names, own messages right and others left', () => {
    openRoom();
    expect(screen.getByRole('heading', { name: 'Welcome Alice' })).toBeInTheDocument();
    const items = messageItems();
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveClass('message-other');
    expect(items[0]).toHaveTextContent('Bob');
    expect(items[0]).toHaveTextContent('Hi Alice');
    expect(items[1]).toHaveClass('message-own');
    expect(items[1]).toHaveTextContent('Hi Bob');
    expect(within(items[0]!).getByText((_, el) => el?.tagName === 'TIME')).toHaveAttribute(
      'datetime',
      new Date(1_700_000_001 * 1000).toISOString(),
    );
    expect(document.title).toBe(`${ROOM} · Taco Chat`);
  });

  it('asks for the last 100 messages when the socket first opens', () => {
    const { socket } = openRoom();
    expect(socket.sent[0]).toEqual({ type: FrameType.History, count: HISTORY_REQUEST_COUNT });
  });

  it('lists participants with presence dots, and a typing indicator in place of the dot', () => {
    const { socket } = openRoom();
    const list = screen.getByRole('list', { name: /Participants/ });
    const bob = within(list).getByText('Bob').closest('li')!;
    expect(within(bob).getByRole('img', { name: 'active' })).toBeInTheDocument();
    act(() => {
      socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Cy', connecting: false });
      socket.serverSend({ type: FrameType.Typing, room: ROOM, sender: 'Bob', typing: true });
    });
    const cy = within(list).getByText('Cy').closest('li')!;
    expect(within(cy).getByRole('img', { name: 'inactive' })).toBeInTheDocument();
    expect(within(bob).getByRole('img', { name: 'typing' })).toBeInTheDocument();
    expect(within(bob).queryByRole('img', { name: 'active' })).not.toBeInTheDocument();
    expect(screen.getByText('Bob is typing')).toBeInTheDocument();
  });

  it('sends a message: frame, typing=false, input cleared, shown at once', async () => {
    const { socket, user } = openRoom();
    const input = screen.getByPlaceholderText('Type a message...');
    const send = screen.getByRole('button', { name: 'Send' });
    expect(input).toHaveFocus();
    expect(send).toBeDisabled();
    socket.sent.length = 0;
    await user.type(input, 'Hello there');
    expect(send).toBeEnabled();
    await user.keyboard('{Enter}');
    expect(input).toHaveValue('');
    expect(socket.sent).toEqual([
      { type: FrameType.Typing, typing: true },
      { type: FrameType.Message, body: 'Hello there', client_id: expect.any(String) as string },
      { type: FrameType.Typing, typing: false },
    ]);
    const last = messageItems().at(-1)!;
    expect(last).toHaveClass('message-own');
    expect(last).toHaveTextContent('Hello there');
    expect(last).toHaveTextContent('Sending…');
  });

  it('does not send whitespace, and sends typing=false when the input is cleared', async () => {
    const { socket, user } = openRoom();
    const input = screen.getByPlaceholderText('Type a message...');
    socket.sent.length = 0;
    await user.type(input, '   ');
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    await user.clear(input);
    expect(socket.sent).toEqual([
      { type: FrameType.Typing, typing: true },
      { type: FrameType.Typing, typing: false },
    ]);
  });

  it('renders links safely and never interprets HTML from a message', () => {
    const { socket } = openRoom();
    act(() =>
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        ...chatMessage(3, 'Bob', 'see https://example.com/a?b=1. <img src=x onerror=alert(1)>'),
      }),
    );
    const link = screen.getByRole('link', { name: 'https://example.com/a?b=1' });
    expect(link).toHaveAttribute('href', 'https://example.com/a?b=1');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link.closest('.bubble')).toHaveTextContent('<img src=x onerror=alert(1)>');
    expect(document.querySelector('.message-list img')).toBeNull();
  });

  it('clears the room after a confirmation: disabled without messages, sends the clear frame', async () => {
    const { socket, user } = openRoom();
    const clear = screen.getByRole('button', { name: 'Clear Room' });
    expect(clear).toBeEnabled();
    socket.sent.length = 0;
    await user.click(clear);
    let dialog = await screen.findByRole('dialog', { name: 'Clear the room?' });
    expect(dialog).toHaveTextContent(`This clears the history of ${ROOM} for everyone in the room`);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(socket.sent).toEqual([]);
    await user.click(clear);
    dialog = await screen.findByRole('dialog', { name: 'Clear the room?' });
    await user.click(within(dialog).getByRole('button', { name: 'Clear for everyone' }));
    expect(socket.sent).toEqual([{ type: FrameType.Clear }]);
    expect(messageItems()).toHaveLength(0);
    expect(screen.getByText('No messages yet. Say hello!')).toBeInTheDocument();
    expect(clear).toBeDisabled();
  });

  it('empties the feed when someone else clears the room, saying who did', () => {
    const { socket } = openRoom();
    act(() => socket.serverSend({ type: FrameType.Clear, room: ROOM, sender: 'Bob' }));
    expect(messageItems()).toHaveLength(0);
    expect(within(screen.getByRole('log')).getByText('History cleared by Bob')).toBeInTheDocument();
  });

  it('shows that the connection is lost while it reconnects', () => {
    const { socket } = openRoom();
    expect(screen.getByText('Online')).toBeInTheDocument();
    act(() => socket.serverClose(CloseCode.Abnormal));
    expect(screen.getByRole('status')).toHaveTextContent('Connection lost. Reconnecting…');
    expect(screen.getByText('Reconnecting…')).toBeInTheDocument();
    // Presence is unknown while offline, and a clear could not reach anyone.
    expect(screen.getByRole('heading', { name: 'Participants · offline' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Clear Room' })).toBeDisabled();
  });

  it('says when earlier messages are no longer available', () => {
    const { socket, fake } = openRoom({ fakeTimers: false });
    act(() => socket.serverClose(CloseCode.Restart));
    return waitFor(
      () => {
        expect(fake.sockets).toHaveLength(2);
      },
      { timeout: 2000 },
    ).then(() => {
      act(() => {
        fake.last().serverOpen();
        fake.last().serverSend({
          type: FrameType.Message,
          room: ROOM,
          epoch: EPOCH,
          messages: [chatMessage(50, 'Bob', 'later')],
          complete: false,
        });
      });
      expect(screen.getByText('Earlier messages are no longer available.')).toBeInTheDocument();
      expect(messageItems()).toHaveLength(1);
    });
  });

  it('after a restart that lost every message, says none are new rather than none exist', async () => {
    const { socket, fake } = openRoom({ fakeTimers: false });
    act(() => socket.serverClose(CloseCode.Restart));
    await waitFor(() => expect(fake.sockets).toHaveLength(2), { timeout: 2000 });
    act(() => {
      fake.last().serverOpen();
      fake.last().serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: 'e2',
        messages: [],
        complete: true,
      });
    });
    expect(screen.getByText('Earlier messages are no longer available.')).toBeInTheDocument();
    expect(screen.getByText('No new messages yet. Say hello!')).toBeInTheDocument();
    expect(screen.queryByText('No messages yet. Say hello!')).not.toBeInTheDocument();
  });

  it('shows error frames as a brief notice', () => {
    const { socket } = openRoom();
    act(() =>
      socket.serverSend({
        type: FrameType.Error,
        code: 'rate_limited',
        message: 'You are sending too fast; please slow down',
      }),
    );
    expect(screen.getByText('You are sending too fast; please slow down')).toBeInTheDocument();
  });
});

describe('Room page: timers', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('copies the link when there is no share sheet and shows the toast for 3 seconds', async () => {
    const { user } = openRoom({ fakeTimers: true });
    const write = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(sidebarShare());
    expect(await screen.findByText(SHARE_COPIED_MESSAGE)).toBeInTheDocument();
    expect(write).toHaveBeenCalledWith(`http://localhost/r/${ROOM}`);
    act(() => jest.advanceTimersByTime(TOAST_DELAY_MS + 1000));
    await waitFor(() => expect(screen.queryByText(SHARE_COPIED_MESSAGE)).not.toBeInTheDocument());
  });

  it('uses the share sheet when the device has one', async () => {
    const share = jest.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'share', { configurable: true, value: share });
    try {
      const { user } = openRoom({ fakeTimers: true });
      await user.click(sidebarShare());
      expect(share).toHaveBeenCalledWith({
        title: ROOM,
        text: 'Join me on Taco Chat!',
        url: `http://localhost/r/${ROOM}`,
      });
      expect(screen.queryByText(SHARE_COPIED_MESSAGE)).not.toBeInTheDocument();
    } finally {
      Reflect.deleteProperty(navigator, 'share');
    }
  });

  it('focuses the message input on load and again after 500 ms', () => {
    openRoom({ fakeTimers: true });
    const input = screen.getByPlaceholderText('Type a message...');
    expect(input).toHaveFocus();
    act(() => sidebarShare().focus());
    act(() => jest.advanceTimersByTime(INPUT_FOCUS_DELAY_MS));
    expect(input).toHaveFocus();
  });

  it('counts messages from others in the tab title while the tab is hidden', () => {
    const { socket } = openRoom({ fakeTimers: true });
    const hidden = jest.spyOn(document, 'hidden', 'get').mockReturnValue(true);
    act(() => {
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        ...chatMessage(3, 'Bob', 'a'),
      });
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        ...chatMessage(4, 'Bob', 'b'),
      });
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        ...chatMessage(5, 'Alice', 'c'),
      });
    });
    expect(document.title).toBe(`(2) ${ROOM} · Taco Chat`);
    hidden.mockReturnValue(false);
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    expect(document.title).toBe(`${ROOM} · Taco Chat`);
    hidden.mockRestore();
  });
});

describe('Room page: scrolling', () => {
  it('stays at the bottom when the reader is there, otherwise offers a jump to new messages', async () => {
    const { socket, user } = openRoom();
    const feed = document.querySelector<HTMLElement>('.feed')!;
    Object.defineProperty(feed, 'scrollHeight', { configurable: true, value: 2000 });
    Object.defineProperty(feed, 'clientHeight', { configurable: true, value: 500 });
    act(() =>
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        ...chatMessage(3, 'Bob', 'x'),
      }),
    );
    expect(feed.scrollTop).toBe(2000);
    feed.scrollTop = 100;
    act(() => {
      feed.dispatchEvent(new Event('scroll'));
    });
    act(() =>
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        ...chatMessage(4, 'Bob', 'y'),
      }),
    );
    expect(feed.scrollTop).toBe(100);
    const jump = screen.getByRole('button', { name: /1 new message/ });
    await user.click(jump);
    expect(feed.scrollTop).toBe(2000);
    expect(screen.queryByRole('button', { name: /new message/ })).not.toBeInTheDocument();
  });
});

describe('Other pages', () => {
  it('/a shows the My Account placeholder', () => {
    renderApp({ path: '/a' });
    expect(screen.getByRole('heading', { name: 'My Account' })).toBeInTheDocument();
  });

  it('an invalid room address says so', () => {
    renderApp({ path: '/r/a%20b' });
    expect(screen.getByRole('heading', { name: 'Invalid room name' })).toBeInTheDocument();
  });
});
