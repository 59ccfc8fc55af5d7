import { FrameType, NAME_TAKEN_MESSAGE, WebRoute } from '@taco/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import { openRoom, ROOM } from '../../../test/openRoom';
import { renderApp } from '../../../test/render';
import { server } from '../../../test/server';
import { selectNotifyMode } from '../notifyPrefs/notifyPrefsSlice';
import { selectRecentRooms, selectRoomAuth } from '../roomAuth/roomAuthSlice';
import { keyOf } from '../../common/keyed';

/** An HTTP round trip through MSW can take more than a second on a busy machine. */
const SLOW = { timeout: 5000 };

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('Room header', () => {
  it('shows the room name and a Share button for phones', () => {
    openRoom();
    const header = screen.getByRole('heading', { name: 'Welcome Alice' }).closest('.chat-header')!;
    expect(within(header as HTMLElement).getByText(`# ${ROOM}`)).toBeInTheDocument();
    expect(
      within(header as HTMLElement).getByRole('button', { name: 'Share' }),
    ).toBeInTheDocument();
  });

  it('has a bell: All messages by default, Mentions only or Off, remembered', async () => {
    const { user, store } = openRoom();
    const bell = screen.getByRole('button', { name: 'Notifications: All messages' });
    await user.click(bell);
    const menu = await screen.findByRole('menu', { name: 'Notifications: All messages' });
    expect(
      within(menu)
        .getAllByRole('menuitemradio')
        .map((i) => [i.textContent, i.getAttribute('aria-checked')]),
    ).toEqual([
      ['All messages', 'true'],
      ['Mentions only', 'false'],
      ['Off', 'false'],
    ]);
    await user.click(within(menu).getByRole('menuitemradio', { name: 'Mentions only' }));
    expect(selectNotifyMode(store.getState(), ROOM)).toBe('mentions');
    expect(
      screen.getByRole('button', { name: 'Notifications: Mentions only' }),
    ).toBeInTheDocument();
    expect(selectNotifyMode(store.getState(), 'red-fox')).toBe('all');
    // This browser (jsdom) has no Notification API: the menu says none will show.
    await user.click(screen.getByRole('button', { name: 'Notifications: Mentions only' }));
    expect(
      within(await screen.findByRole('menu')).getByRole('menuitem', {
        name: 'Not supported by this browser',
      }),
    ).toBeDisabled();
  });

  it('changes the display name: new credentials, sent on the socket, adopted once confirmed', async () => {
    const { user, socket, store } = openRoom();
    await user.click(screen.getByRole('button', { name: 'Room menu' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Change name…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change your name' }, SLOW);
    const input = within(dialog).getByLabelText('New display name');
    const save = within(dialog).getByRole('button', { name: 'Change name' });
    expect(input).toHaveValue('Alice');
    expect(save).toBeDisabled();
    await user.clear(input);
    await user.type(input, 'Taken');
    await user.click(save);
    expect(await within(dialog).findByRole('alert', {}, SLOW)).toHaveTextContent(
      NAME_TAKEN_MESSAGE,
    );
    await user.clear(input);
    await user.type(input, 'Alicia');
    socket.sent.length = 0;
    await user.click(within(dialog).getByRole('button', { name: 'Change name' }));
    await waitFor(
      () => expect(socket.sent).toEqual([{ type: FrameType.Rename, token: 'token-Alicia' }]),
      SLOW,
    );
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    act(() => {
      socket.serverSend({
        type: FrameType.Presence,
        room: ROOM,
        sender: 'Alicia',
        connecting: true,
        renamed_from: 'Alice',
      });
      socket.serverSend({
        type: FrameType.Presence,
        room: ROOM,
        sender: 'Alice',
        connecting: false,
        renamed_to: 'Alicia',
      });
    });
    expect(await screen.findByRole('heading', { name: 'Welcome Alicia' })).toBeInTheDocument();
    expect(within(screen.getByRole('log')).getByText('Alice is now Alicia')).toBeInTheDocument();
    expect(selectRoomAuth(store.getState(), ROOM)?.token).toBe('token-Alicia');
    const list = screen.getByRole('list', { name: /Participants/ });
    expect(within(list).queryByText('Alice')).not.toBeInTheDocument();
    expect(within(list).getByText('Alicia')).toBeInTheDocument();
  });

  it("shows someone else's rename as a line in the feed", () => {
    const { socket } = openRoom();
    act(() => {
      socket.serverSend({
        type: FrameType.Presence,
        room: ROOM,
        sender: 'Bobby',
        connecting: true,
        renamed_from: 'Bob',
      });
    });
    expect(within(screen.getByRole('log')).getByText('Bob is now Bobby')).toBeInTheDocument();
  });

  it('leaves the room at once: the credential is forgotten and the home page shows', async () => {
    const { user, socket, store } = openRoom();
    expect(selectRecentRooms(store.getState()).map((r) => r.room)).toEqual([ROOM]);
    await user.click(screen.getByRole('button', { name: 'Room menu' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Leave room' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(WebRoute.create));
    expect(socket.closedWith).not.toBeNull();
    expect(selectRoomAuth(store.getState(), ROOM)).toBeUndefined();
    expect(selectRecentRooms(store.getState())).toEqual([]);
    expect(screen.queryByText('Rooms you were in')).not.toBeInTheDocument();
  });
});

describe('Sidebar', () => {
  it('lists who is here first, then who left, each alphabetical', () => {
    const { socket } = openRoom();
    act(() => {
      for (const [sender, connecting] of [
        ['zed', true],
        ['Cy', false],
        ['amy', false],
        ['Bea', true],
      ] as const) {
        socket.serverSend({ type: FrameType.Presence, room: ROOM, sender, connecting });
      }
    });
    const list = screen.getByRole('list', { name: /Participants/ });
    const names = within(list)
      .getAllByRole('listitem')
      .map((item) => item.querySelector('.participant-name')?.firstChild?.textContent);
    expect(names).toEqual(['Alice', 'Bea', 'Bob', 'zed', 'amy', 'Cy']);
  });
});

describe('Home page', () => {
  it('lists the rooms this browser has a name in, to rejoin in one click', async () => {
    const record = (room: string, senderName: string) => ({
      roomID: room,
      senderName,
      token: `token-${senderName}`,
      authenticated: true,
      rejectionCount: 0,
    });
    const { user } = renderApp({
      path: '/',
      preloadedState: {
        roomAuth: {
          [keyOf('red-fox')]: record('red-fox', 'Ann'),
          [keyOf(ROOM)]: record(ROOM, 'Alice'),
        },
      },
    });
    const section = screen.getByRole('region', { name: 'Rooms you were in' });
    const links = within(section).getAllByRole('link');
    expect(links.map((l) => l.textContent)).toEqual([ROOM, 'red-fox']);
    expect(section).toHaveTextContent('as Alice');
    await user.click(within(section).getByRole('link', { name: 'red-fox' }));
    expect(screen.getByTestId('location')).toHaveTextContent(WebRoute.room('red-fox'));
    expect(await screen.findByRole('heading', { name: 'Welcome Ann' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
