import { FrameType } from '@taco/protocol';
import { act, screen, within } from '@testing-library/react';
import { chatMessage, EPOCH, openRoom, ROOM } from '../../../test/openRoom';
import { server } from '../../../test/server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const messagesSent = (socket: { sent: unknown[] }) =>
  socket.sent
    .filter((f) => (f as { type: number }).type === FrameType.Message)
    .map((f) => (f as { body: string }).body);

const desktopMatchMedia = window.matchMedia.bind(window);

function setMatchMedia(matchMedia: (query: string) => MediaQueryList) {
  Object.defineProperty(window, 'matchMedia', { configurable: true, value: matchMedia });
}

/** A device whose main pointer is a finger. */
function setTouch() {
  setMatchMedia((query) => ({
    ...desktopMatchMedia(query),
    matches: query === '(pointer: coarse)' || desktopMatchMedia(query).matches,
  }));
}

afterEach(() => setMatchMedia(desktopMatchMedia));

describe('Composer', () => {
  it('is a multi-line input with dir=auto: Shift+Enter starts a line, Enter sends', async () => {
    const { socket, user } = openRoom();
    const input = screen.getByPlaceholderText('Type a message...');
    expect(input.tagName).toBe('TEXTAREA');
    expect(input).toHaveAttribute('dir', 'auto');
    await user.type(input, 'first line{Shift>}{Enter}{/Shift}second line');
    expect(input).toHaveValue('first line\nsecond line');
    expect(messagesSent(socket)).toEqual([]);
    await user.keyboard('{Enter}');
    expect(messagesSent(socket)).toEqual(['first line\nsecond line']);
    expect(input).toHaveValue('');
  });

  it('on a touch device Enter starts a new line and the send button sends', async () => {
    setTouch();
    const { socket, user } = openRoom();
    const input = screen.getByPlaceholderText('Type a message...');
    expect(input).toHaveAttribute('enterkeyhint', 'enter');
    await user.type(input, 'one{Enter}two');
    expect(input).toHaveValue('one\ntwo');
    expect(messagesSent(socket)).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(messagesSent(socket)).toEqual(['one\ntwo']);
  });

  it('sends nothing that shows nothing: only spaces, zero-width or filler characters', async () => {
    const { socket, user } = openRoom();
    const input = screen.getByPlaceholderText('Type a message...');
    const send = screen.getByRole('button', { name: 'Send' });
    for (const blank of ['   ', '\u200B\u200B', '\u3164', ' \u0301 ']) {
      await user.clear(input);
      await user.type(input, blank);
      expect(send).toBeDisabled();
      await user.keyboard('{Enter}');
    }
    expect(messagesSent(socket)).toEqual([]);
    await user.type(input, 'x');
    expect(send).toBeEnabled();
  });

  it('completes @mentions of present participants by keyboard', async () => {
    const { socket, user } = openRoom();
    act(() => {
      for (const sender of ['Bea', 'Mary Jane', 'Gone']) {
        socket.serverSend({ type: FrameType.Presence, room: ROOM, sender, connecting: true });
      }
      socket.serverSend({
        type: FrameType.Presence,
        room: ROOM,
        sender: 'Gone',
        connecting: false,
      });
    });
    const input = screen.getByPlaceholderText('Type a message...');
    await user.type(input, 'hi @');
    const list = screen.getByRole('listbox', { name: 'Mention' });
    // Present participants other than the user, alphabetical; nobody who left.
    expect(
      within(list)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['@Bea', '@Bob', '@Mary Jane']);
    expect(input).toHaveAttribute('aria-controls', 'mention-list');
    expect(input).toHaveAttribute('aria-activedescendant', 'mention-option-0');
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(within(list).getByRole('option', { selected: true })).toHaveTextContent('@Mary Jane');
    await user.keyboard('{Enter}');
    expect(input).toHaveValue('hi @Mary Jane ');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    expect(messagesSent(socket)).toEqual([]);

    await user.type(input, 'and @b');
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['@Bea', '@Bob']);
    await user.keyboard('{Tab}');
    expect(input).toHaveValue('hi @Mary Jane and @Bea ');
    await user.type(input, '@m');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    await user.keyboard('{Enter}');
    expect(messagesSent(socket)).toEqual(['hi @Mary Jane and @Bea @m']);
  });

  it('picks a mention by click', async () => {
    const { user } = openRoom();
    const input = screen.getByPlaceholderText('Type a message...');
    await user.type(input, '@');
    await user.click(screen.getByRole('option', { name: '@Bob' }));
    expect(input).toHaveValue('@Bob ');
    expect(input).toHaveFocus();
  });
});

describe('tab title', () => {
  it('marks unread messages that mention the user with @', () => {
    const { socket } = openRoom({ fakeTimers: true });
    const hidden = jest.spyOn(document, 'hidden', 'get').mockReturnValue(true);
    const say = (seq: number, body: string) =>
      socket.serverSend({
        type: FrameType.Message,
        room: ROOM,
        epoch: EPOCH,
        ...chatMessage(seq, 'Bob', body),
      });
    act(() => say(3, 'hello'));
    expect(document.title).toBe(`(1) ${ROOM} · Taco Chat`);
    act(() => say(4, 'look @alice'));
    expect(document.title).toBe(`(2 @) ${ROOM} · Taco Chat`);
    hidden.mockReturnValue(false);
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    expect(document.title).toBe(`${ROOM} · Taco Chat`);
    hidden.mockRestore();
  });
});
