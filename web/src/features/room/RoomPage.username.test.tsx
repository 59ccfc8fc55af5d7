import { ApiPath, CloseCode, ErrorCode, FrameType, NAME_TAKEN_MESSAGE } from '@taco/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { openRoom, ROOM } from '../../../test/openRoom';
import { renderApp } from '../../../test/render';
import { API, server } from '../../../test/server';
import { selectRoomKnown } from '../messages/messagesSlice';
import { SESSION_EXPIRED_MESSAGE } from '../roomAuth/authErrorsSlice';
import { selectRoomAuth } from '../roomAuth/roomAuthSlice';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

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
