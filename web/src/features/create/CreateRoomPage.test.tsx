import { ANIMALS, ApiPath, COLOURS, FORBIDDEN_NAME_CHARACTERS } from '@taco/protocol';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { renderApp } from '../../../test/render';
import { API, server, SUGGESTED_ROOM } from '../../../test/server';
import { CREATE_ERROR_MESSAGE } from './CreateRoomPage';
import { selectRoomAuth } from '../roomAuth/roomAuthSlice';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const roomInput = () => screen.getByLabelText('Room Name');
const userInput = () => screen.getByLabelText('Your Name');
const submit = () => screen.getByRole('button', { name: 'Create Room' });
/** Lets the page's requests and timers settle for `ms`, its updates inside act(). */
const settle = (ms: number) => act(() => new Promise<void>((resolve) => setTimeout(resolve, ms)));

async function fill(user: ReturnType<typeof renderApp>['user'], room: string, name: string) {
  await user.clear(roomInput());
  await user.type(roomInput(), room);
  await user.clear(userInput());
  await user.type(userInput(), name);
}

/** The server's suggestion arrives 100 ms after the page asked for it. */
function suggestLate() {
  server.use(
    http.get(`${API}${ApiPath.roomName}`, async () => {
      await delay(100);
      return HttpResponse.json({ room_id: SUGGESTED_ROOM });
    }),
  );
}

describe('Create Room page: the room name', () => {
  it('suggests a name no room uses, from the server', async () => {
    renderApp();
    await waitFor(() => expect(roomInput()).toHaveValue(SUGGESTED_ROOM));
  });

  it('keeps its own suggestion when the server cannot give one', async () => {
    server.use(http.get(`${API}${ApiPath.roomName}`, () => HttpResponse.error()));
    renderApp();
    const local = (roomInput() as HTMLInputElement).value;
    await settle(50);
    expect(roomInput()).toHaveValue(local);
    expect(local).toMatch(/^[a-z]+-[a-z]+$/);
  });

  it('never replaces a name the user already typed', async () => {
    suggestLate();
    const { user } = renderApp();
    await user.clear(roomInput());
    await user.type(roomInput(), 'our-room');
    await settle(200);
    expect(roomInput()).toHaveValue('our-room');
  });

  it('keeps the name shown once the user is typing theirs', async () => {
    suggestLate();
    const { user } = renderApp();
    const shown = (roomInput() as HTMLInputElement).value;
    await user.type(userInput(), 'Ann');
    await settle(200);
    expect(roomInput()).toHaveValue(shown);
    expect(shown).not.toBe(SUGGESTED_ROOM);
  });

  it('never changes the room name while it has focus, so text typed over it stays whole', async () => {
    suggestLate();
    const { user } = renderApp();
    const shown = (roomInput() as HTMLInputElement).value;
    await user.click(roomInput());
    await settle(200);
    expect(roomInput()).toHaveValue(shown);
    await user.tripleClick(roomInput());
    await user.keyboard('busy-room');
    expect(roomInput()).toHaveValue('busy-room');
  });

  it('says how many people a room already has before joining it', async () => {
    server.use(
      http.get(`${API}/api/room/:room`, ({ params }) =>
        HttpResponse.json({
          room_id: String(params.room),
          participants: params.room === 'busy-room' ? 3 : params.room === 'duo-room' ? 1 : 0,
        }),
      ),
    );
    const { user } = renderApp();
    await user.clear(roomInput());
    await user.type(roomInput(), 'busy-room');
    expect(await screen.findByText('busy-room already has 3 people in it')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveAttribute('aria-live', 'polite');
    await user.clear(roomInput());
    await user.type(roomInput(), 'duo-room');
    expect(await screen.findByText('duo-room already has 1 person in it')).toBeInTheDocument();
    await user.clear(roomInput());
    await user.type(roomInput(), 'quiet-room');
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(''));
  });
});

describe('Create Room page', () => {
  it('shows the header, both fields prefilled with a colour-animal room name, and the help texts', () => {
    renderApp();
    expect(screen.getByRole('link', { name: /Taco Chat/ })).toHaveTextContent('🌮 Taco Chat');
    const [colour, animal, ...rest] = (roomInput() as HTMLInputElement).value.split('-');
    expect(COLOURS).toContain(colour);
    expect(ANIMALS).toContain(animal);
    expect(rest).toEqual([]);
    expect(userInput()).toHaveValue('');
    expect(screen.getByText('This is the name of your room.')).toBeInTheDocument();
    expect(
      screen.getByText('This is how you will appear to others in the chat room.'),
    ).toBeInTheDocument();
    expect(document.title).toBe('Taco Chat');
  });

  const cases: Array<[string, string, string]> = [
    ['', 'Alice', 'Your room name is too short'],
    ['ab', 'Alice', 'Your room name is too short'],
    ['my room', 'Alice', 'Invalid room name'],
    ['room{x}', 'Alice', 'Invalid room name'],
    ['a'.repeat(41), 'Alice', 'Your room name is too long'],
    ['teal-otter', '', 'Your user name is too short'],
    ['teal-otter', 'Al', 'Your user name is too short'],
    ['teal-otter', 'Al@ce', 'Invalid user name'],
    ['teal-otter', 'x'.repeat(33), 'Your user name is too long'],
  ];

  /** Types values by pasting: userEvent reads braces and brackets as key descriptors. */
  async function enter(user: ReturnType<typeof renderApp>['user'], room: string, name: string) {
    await user.clear(roomInput());
    await user.click(roomInput());
    if (room !== '') await user.paste(room);
    await user.clear(userInput());
    await user.click(userInput());
    if (name !== '') await user.paste(name);
  }

  it('after a refused submit marks the field invalid and moves focus to it', async () => {
    const { user } = renderApp();
    await user.type(userInput(), 'Al');
    await user.click(roomInput());
    await user.click(submit());
    expect(userInput()).toHaveFocus();
    expect(userInput()).toHaveAttribute('aria-invalid', 'true');
    expect(userInput()).toHaveAccessibleDescription(/Your user name is too short/);
    expect(roomInput()).toHaveAttribute('aria-invalid', 'false');
  });

  it.each(cases)('room %j and name %j show %j after a submit attempt', async (room, name, text) => {
    const { user } = renderApp();
    await enter(user, room, name);
    expect(screen.queryByText(text)).not.toBeInTheDocument();
    await user.click(submit());
    expect(await screen.findByText(text)).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
    // The validated flag resets on each edit.
    await user.type(room === 'teal-otter' ? userInput() : roomInput(), 'z');
    expect(screen.queryByText(text)).not.toBeInTheDocument();
  });

  it('refuses every special character in both names', () => {
    renderApp();
    for (const char of FORBIDDEN_NAME_CHARACTERS) {
      fireEvent.change(roomInput(), { target: { value: `room${char}x` } });
      fireEvent.change(userInput(), { target: { value: `Al${char}ce` } });
      fireEvent.click(submit());
      expect(screen.getByText('Invalid room name')).toBeInTheDocument();
      expect(screen.getByText('Invalid user name')).toBeInTheDocument();
    }
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
  });

  it('allows spaces in a user name', async () => {
    const { user } = renderApp();
    await fill(user, 'teal-otter', 'Jane Doe');
    await user.click(submit());
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/r/teal-otter'));
  });

  it('creates the room and opens /r/{room} once authenticated with zero rejections', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post(`${API}${ApiPath.createRoom}`, async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ name: 'Alice', room: 'red-fox', token: 't' }, { status: 201 });
      }),
    );
    const { user, store } = renderApp();
    await fill(user, 'red-fox', ' Alice ');
    await user.click(submit());
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/r/red-fox'));
    expect(bodies).toEqual([{ room_id: 'red-fox', sender: 'Alice' }]);
    expect(selectRoomAuth(store.getState(), 'red-fox')).toMatchObject({
      authenticated: true,
      rejectionCount: 0,
    });
  });

  it('shows the dismissible danger alert when creation fails, with the reason', async () => {
    server.use(
      http.post(`${API}${ApiPath.createRoom}`, () =>
        HttpResponse.json(
          {
            statusCode: 409,
            error: 'Conflict',
            message: 'That name is already taken in this room',
          },
          { status: 409 },
        ),
      ),
    );
    const { user } = renderApp();
    await fill(user, 'red-fox', 'Alice');
    await user.click(submit());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(CREATE_ERROR_MESSAGE);
    expect(alert).toHaveTextContent('That name is already taken in this room');
    expect(alert).toHaveClass('alert-danger');
    await user.click(screen.getByRole('button', { name: /close/i }));
    await waitFor(() => expect(screen.queryByRole('alert')).not.toBeInTheDocument());
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
    // The focus does not fall to the page: it goes to the name that was taken.
    expect(screen.getByLabelText('Your Name')).toHaveFocus();
  });

  it('sends one request however often the form is submitted while it is in progress', async () => {
    let calls = 0;
    server.use(
      http.post(`${API}${ApiPath.createRoom}`, async () => {
        calls += 1;
        await delay(50);
        return HttpResponse.json({ name: 'Alice', room: 'red-fox', token: 't' }, { status: 201 });
      }),
    );
    const { user } = renderApp();
    await fill(user, 'red-fox', 'Alice');
    await user.dblClick(submit());
    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/r/red-fox'));
    expect(calls).toBe(1);
  });
});
