import { CloseCode, FrameType, HISTORY_REQUEST_COUNT } from '@taco/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import { chatMessage, EPOCH, openRoom, ROOM } from '../../../test/openRoom';
import { server } from '../../../test/server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** The feed's messages (its other rows are day dividers and feed lines). */
function messageItems(): HTMLElement[] {
  return within(screen.getByRole('log', { name: 'Messages' }))
    .queryAllByRole('listitem')
    .filter((item) => item.classList.contains('message'));
}

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
