import { ApiPath, FrameType, type ServerFrame, WebRoute } from '@taco/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import { chatMessage, EPOCH, openRoom, ROOM } from '../../../test/openRoom';
import { PROTOTYPE_ROOM_IDS, PROTOTYPE_USER_NAMES } from '../../../test/prototypeNames';
import { renderApp } from '../../../test/render';
import { server } from '../../../test/server';

/**
 * Names and room ids that are properties of `Object.prototype` (`constructor`, `__proto__`,
 * `toString`, …) are valid: whoever uses one is shown like anyone else, and such a room works
 * like any other.
 */

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());
afterEach(() => window.localStorage.clear());

/** An HTTP round trip through MSW can take more than a second on a busy machine. */
const SLOW = { timeout: 5000 };

const participantList = () => screen.getByRole('list', { name: /Participants/ });
/** The participant list's names, in no particular order, "(you)" beside the reader's. */
const participantRows = () =>
  within(participantList())
    .getAllByRole('listitem')
    .map((item) => {
      const name = item.querySelector('.participant-name')?.textContent ?? '';
      return item.querySelector('.participant-you') ? `${name} (you)` : name;
    })
    .sort();
const feed = () => screen.getByRole('log', { name: 'Messages' });
const feedLines = () =>
  within(feed())
    .queryAllByRole('listitem')
    .filter((row) => row.classList.contains('feed-line'))
    .map((row) => row.textContent);
const messageRows = () =>
  within(feed())
    .queryAllByRole('listitem')
    .filter((row) => row.classList.contains('message'));

describe.each(PROTOTYPE_USER_NAMES)('Someone named %s', (name) => {
  it('is listed among the participants and counted, present or gone', () => {
    const { socket } = openRoom();
    const presence = (connecting: boolean) =>
      act(() =>
        socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: name, connecting }),
      );
    presence(true);
    expect(participantList()).toHaveAccessibleName('Participants · 3 online');
    expect(participantRows()).toEqual(['Alice (you)', 'Bob', name].sort());
    presence(false);
    expect(participantList()).toHaveAccessibleName('Participants · 2 online');
    expect(participantRows()).toEqual(['Alice (you)', 'Bob', name].sort());
  });

  it('has their joining, leaving and renames shown in the feed', () => {
    const { socket } = openRoom();
    const send = (frame: ServerFrame) => act(() => socket.serverSend(frame));
    send({ type: FrameType.Presence, room: ROOM, sender: name, connecting: true });
    send({ type: FrameType.Message, room: ROOM, epoch: EPOCH, ...chatMessage(3, name, 'hi all') });
    send({ type: FrameType.Presence, room: ROOM, sender: name, connecting: false });
    expect(feedLines().slice(-2)).toEqual([`${name} joined`, `${name} left`]);
    expect(messageRows().at(-1)).toHaveTextContent(`${name}`);
    expect(messageRows().at(-1)).toHaveTextContent('hi all');

    // Bob takes the name, then leaves it for another.
    send({
      type: FrameType.Presence,
      room: ROOM,
      sender: name,
      connecting: true,
      renamed_from: 'Bob',
    });
    send({
      type: FrameType.Presence,
      room: ROOM,
      sender: 'Bob',
      connecting: false,
      renamed_to: name,
    });
    expect(feedLines().at(-1)).toBe(`Bob is now ${name}`);
    expect(participantRows()).toEqual(['Alice (you)', name].sort());
    send({
      type: FrameType.Presence,
      room: ROOM,
      sender: 'Robin',
      connecting: true,
      renamed_from: name,
    });
    send({
      type: FrameType.Presence,
      room: ROOM,
      sender: name,
      connecting: false,
      renamed_to: 'Robin',
    });
    expect(feedLines().at(-1)).toBe(`${name} is now Robin`);
    expect(participantRows()).toEqual(['Alice (you)', 'Robin'].sort());
  });

  it('is shown typing, in the feed and in the participant list', () => {
    const { socket } = openRoom();
    act(() =>
      socket.serverSend({ type: FrameType.Typing, room: ROOM, sender: name, typing: true }),
    );
    expect(screen.getByText(`${name} is typing`)).toBeInTheDocument();
    const row = within(participantList()).getByText(name).closest('li')!;
    expect(within(row).getByRole('img', { name: 'typing' })).toBeInTheDocument();
    act(() =>
      socket.serverSend({ type: FrameType.Typing, room: ROOM, sender: name, typing: false }),
    );
    expect(screen.queryByText(/is typing/)).toBeNull();
  });

  it('is offered to mention, and a mention of them is shown as one', async () => {
    const { socket, user } = openRoom();
    act(() =>
      socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: name, connecting: true }),
    );
    await user.type(screen.getByPlaceholderText('Type a message...'), '@');
    expect(
      within(screen.getByRole('listbox', { name: 'Mention' }))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toContain(`@${name}`);
    act(() =>
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        ...chatMessage(3, 'Bob', `ask @${name} about it`),
      }),
    );
    const mentions = messageRows().at(-1)!.querySelectorAll('.mention');
    expect([...mentions].map((m) => [m.textContent, m.classList.contains('mention-me')])).toEqual([
      [`@${name}`, false],
    ]);
  });

  it('can be the reader: welcomed, listed as "you", and mentioned as such', async () => {
    const { user, fake } = renderApp({ path: WebRoute.room(ROOM) });
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Username'), name);
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByRole('heading', { name: `Welcome ${name}` }, SLOW),
    ).toBeInTheDocument();
    const socket = fake.last();
    act(() => {
      socket.serverOpen();
      socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Bob', connecting: true });
      socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: name, connecting: true });
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        messages: [chatMessage(1, 'Bob', `hi @${name}`), chatMessage(2, name, 'hi Bob')],
        complete: true,
      });
    });
    expect(participantList()).toHaveAccessibleName('Participants · 2 online');
    expect(participantRows()).toEqual(['Bob', `${name} (you)`].sort());
    const [fromBob, own] = messageRows();
    expect(fromBob!.querySelector('.mention')).toHaveClass('mention-me');
    expect(own).toHaveClass('message-own');
  });
});

describe.each(PROTOTYPE_ROOM_IDS)('The room %s', (room) => {
  it('opens, shows its people and messages, and is remembered like any other', async () => {
    const { user, fake } = renderApp({ path: WebRoute.room(room) });
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Username'), 'Alice');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('heading', { name: 'Welcome Alice' }, SLOW)).toBeInTheDocument();
    const socket = fake.last();
    expect(socket.url).toBe(`ws://chat.test${ApiPath.roomSocket(room, 'token-Alice')}`);
    act(() => {
      socket.serverOpen();
      socket.serverSend({ type: FrameType.Presence, room, sender: 'Alice', connecting: true });
      socket.serverSend({ type: FrameType.Presence, room, sender: 'Bob', connecting: true });
      socket.serverSend({
        type: FrameType.Message,
        room,
        epoch: EPOCH,
        messages: [chatMessage(1, 'Bob', `welcome to ${room}`)],
        complete: true,
      });
    });
    expect(screen.getAllByText(`# ${room}`).length).toBeGreaterThan(0);
    expect(participantRows()).toEqual(['Alice (you)', 'Bob'].sort());
    expect(messageRows().map((row) => row.textContent)).toEqual([
      expect.stringContaining(`welcome to ${room}`),
    ]);

    // A draft, a message sent and the bell's choice belong to this room.
    const input = screen.getByPlaceholderText('Type a message...');
    await user.type(input, 'hello{Enter}');
    expect(socket.sent).toContainEqual(
      expect.objectContaining({ type: FrameType.Message, body: 'hello' }),
    );
    expect(messageRows()).toHaveLength(2);
    await user.type(input, 'half a thought');
    await user.click(screen.getByRole('button', { name: 'Notifications: All messages' }));
    await user.click(await screen.findByRole('menuitemradio', { name: 'Mentions only' }));

    // Home lists it among the rooms this browser was in; back in, nothing was lost.
    await user.click(screen.getByRole('link', { name: 'New room' }));
    const recent = await screen.findByRole('region', { name: 'Rooms you were in' });
    expect(within(recent).getByRole('link', { name: room })).toBeInTheDocument();
    expect(recent).toHaveTextContent('as Alice');
    await user.click(within(recent).getByRole('link', { name: room }));
    expect(await screen.findByRole('heading', { name: 'Welcome Alice' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await waitFor(() => expect(fake.sockets).toHaveLength(2));
    expect(screen.getByPlaceholderText('Type a message...')).toHaveValue('half a thought');
    expect(
      screen.getByRole('button', { name: 'Notifications: Mentions only' }),
    ).toBeInTheDocument();
    expect(messageRows().map((row) => row.textContent)).toEqual([
      expect.stringContaining(`welcome to ${room}`),
      expect.stringContaining('hello'),
    ]);
  });
});
