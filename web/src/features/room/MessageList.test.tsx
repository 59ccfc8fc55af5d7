import { type ChatMessage, CloseCode, ErrorCode, FrameType } from '@taco/protocol';
import { act, screen, within } from '@testing-library/react';
import { renderApp } from '../../../test/render';
import { messageSent, reconnectRequested, roomJoined, typingUpdated } from '../chat/chatActions';
import { dayLabel } from '../feed/feedItems';
import { MessageList } from './MessageList';
import { keyOf } from '../../common/keyed';

const ROOM = 'teal-otter';
const EPOCH = 'e1';
const SEEN_KEY = `taco:seen:${ROOM}`;

/** Seconds since the epoch, `minutes` after the start of today (or of `daysAgo` days before). */
function at(minutes: number, daysAgo = 0): number {
  const day = new Date();
  day.setHours(0, 0, 0, 0);
  day.setDate(day.getDate() - daysAgo);
  return day.getTime() / 1000 + minutes * 60;
}

const chat = (seq: number, sender: string, body: string, timestamp = at(1)): ChatMessage => ({
  seq,
  sender,
  body,
  timestamp,
});

/** Alice's own "hello" (client_id c1), as the composer sends it. */
const aliceSaysHello = messageSent({
  room: ROOM,
  clientId: 'c1',
  body: 'hello',
  senderName: 'Alice',
  timestamp: at(1),
});

interface SetupOptions {
  history?: ChatMessage[];
  /** Names in the roster the server sends on joining, before the history answer. */
  roster?: string[];
}

function setup({ history = [], roster = ['Alice'] }: SetupOptions = {}) {
  const rendered = renderApp({
    path: `/r/${ROOM}`,
    preloadedState: {
      roomAuth: {
        [keyOf(ROOM)]: {
          roomID: ROOM,
          senderName: 'Alice',
          token: 't',
          authenticated: true,
          rejectionCount: 0,
        },
      },
    },
    ui: <MessageList room={ROOM} me="Alice" />,
  });
  act(() => {
    rendered.store.dispatch(roomJoined({ room: ROOM, token: 't' }));
    rendered.fake.last().serverOpen();
    for (const sender of roster) {
      rendered.fake
        .last()
        .serverSend({ type: FrameType.Presence, room: ROOM, sender, connecting: true });
    }
    rendered.fake.last().serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: history,
      complete: true,
    });
  });
  const server = {
    send: (message: ChatMessage) =>
      act(() =>
        rendered.fake
          .last()
          .serverSend({ type: FrameType.Message, room: ROOM, epoch: EPOCH, ...message }),
      ),
    presence: (sender: string, connecting: boolean) =>
      act(() =>
        rendered.fake
          .last()
          .serverSend({ type: FrameType.Presence, room: ROOM, sender, connecting }),
      ),
  };
  return { ...rendered, server };
}

const rows = () => within(screen.getByRole('log', { name: 'Messages' })).queryAllByRole('listitem');
const messageRows = () => rows().filter((row) => row.classList.contains('message'));
const rowTexts = () => rows().map((row) => row.textContent);

afterEach(() => window.localStorage.clear());

describe('MessageList', () => {
  it('shows an empty state until there are messages', () => {
    setup();
    expect(screen.getByText('No messages yet. Say hello!')).toBeInTheDocument();
  });

  it('keeps list semantics inside the log: a list of rows in a live region', () => {
    setup({ history: [chat(1, 'Bob', 'hi')] });
    const log = screen.getByRole('log', { name: 'Messages' });
    expect(log).toHaveAttribute('aria-live', 'polite');
    const list = within(log).getByRole('list');
    expect(within(list).getAllByRole('listitem').length).toBeGreaterThan(0);
  });

  it('marks a message the server could not store, and sends it again on Retry', async () => {
    const { store, fake, user } = setup();
    act(() => {
      store.dispatch(aliceSaysHello);
      fake.last().serverSend({
        type: FrameType.Error,
        code: ErrorCode.Unavailable,
        message: 'The server could not store that; please try again',
        client_id: 'c1',
      });
    });
    const item = messageRows()[0]!;
    expect(item).toHaveTextContent('Not sent');
    fake.last().sent.length = 0;
    await user.click(within(item).getByRole('button', { name: 'Retry' }));
    expect(fake.last().sent).toEqual([{ type: FrameType.Message, body: 'hello', client_id: 'c1' }]);
    expect(messageRows()[0]).toHaveTextContent('Sending…');
  });

  it('says a message waits for the connection while the room is not connected', () => {
    const { store, fake } = setup();
    act(() => fake.last().serverClose(CloseCode.Abnormal));
    act(() => {
      store.dispatch(aliceSaysHello);
    });
    expect(messageRows()[0]).toHaveTextContent('Waiting for connection…');
    expect(messageRows()[0]).not.toHaveTextContent('Sending…');
    act(() => {
      store.dispatch(reconnectRequested({ room: ROOM }));
      fake.last().serverOpen();
    });
    expect(messageRows()[0]).toHaveTextContent('Sending…');
  });

  it('shows who is typing in a bubble, several at once, but never the reader', () => {
    const { store } = setup();
    act(() => {
      store.dispatch(typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: 1 }));
      store.dispatch(typingUpdated({ room: ROOM, sender: 'Alice', typing: true, time: 1 }));
    });
    expect(screen.getByText('Bob is typing')).toBeInTheDocument();
    act(() => {
      store.dispatch(typingUpdated({ room: ROOM, sender: 'Cy', typing: true, time: 1 }));
    });
    expect(screen.getByText('Bob, Cy are typing')).toBeInTheDocument();
  });
});

describe('MessageList: Markdown', () => {
  it('renders bold, italics, code, quotes and line breaks, right to left where the text is', () => {
    setup({
      history: [chat(1, 'Bob', '**bold** *it* _al_ `x = 1`\n> quoted\nsecond line\nשלום')],
    });
    const bubble = messageRows()[0]!.querySelector('.bubble')!;
    expect(bubble).toHaveAttribute('dir', 'auto');
    expect(within(bubble as HTMLElement).getByText('bold').tagName).toBe('STRONG');
    expect(within(bubble as HTMLElement).getByText('it').tagName).toBe('EM');
    expect(within(bubble as HTMLElement).getByText('al').tagName).toBe('EM');
    expect(within(bubble as HTMLElement).getByText('x = 1').tagName).toBe('CODE');
    expect(
      within(bubble as HTMLElement)
        .getByText('quoted')
        .closest('blockquote'),
    ).not.toBeNull();
    expect(bubble.textContent).toContain('second line\nשלום');
  });

  it('shows fenced code in monospace with a button that copies it', async () => {
    const { user } = setup({ history: [chat(1, 'Bob', 'try:\n```js\nconst a = "<b>";\n```')] });
    const writeText = jest.spyOn(navigator.clipboard, 'writeText');
    const code = screen.getByText('const a = "<b>";');
    expect(code.closest('pre')).not.toBeNull();
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith('const a = "<b>";');
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('links http and www addresses into a new tab, and never HTML or a javascript: link', () => {
    setup({
      history: [
        chat(
          1,
          'Bob',
          'see www.example.com/tacos, [x](javascript:alert(1)) <img src=x onerror=alert(1)> javascript:alert(2)',
        ),
      ],
    });
    const links = within(messageRows()[0]!).getAllByRole('link');
    expect(links).toHaveLength(1);
    expect(links[0]).toHaveAttribute('href', 'https://www.example.com/tacos');
    expect(links[0]).toHaveAttribute('target', '_blank');
    expect(links[0]).toHaveAttribute('rel', 'noopener noreferrer');
    expect(messageRows()[0]).toHaveTextContent('<img src=x onerror=alert(1)>');
    expect(document.querySelector('.message-list img')).toBeNull();
  });

  it('highlights mentions of participants, the reader differently, by the longest name', () => {
    setup({
      roster: ['Alice', 'Ann', 'Ann Lee'],
      history: [chat(1, 'Bob', 'ping @ann lee and @ALICE, not @Annie')],
    });
    const row = messageRows()[0]!;
    const mentions = row.querySelectorAll('.mention');
    expect([...mentions].map((m) => m.textContent)).toEqual(['@ann lee', '@ALICE']);
    expect(mentions[0]).not.toHaveClass('mention-me');
    expect(mentions[1]).toHaveClass('mention-me');
    expect(row).toHaveClass('message-mentions-me');
  });
});

describe('MessageList: readable history', () => {
  it('groups one sender’s messages within 5 minutes under one name and time', () => {
    setup({
      history: [
        chat(1, 'Bob', 'one', at(60)),
        chat(2, 'Bob', 'two', at(64)),
        chat(3, 'Bob', 'three', at(70)),
        chat(4, 'Alice', 'mine', at(71)),
      ],
    });
    const [one, two, three, mine] = messageRows();
    expect(one).not.toHaveClass('message-continued');
    expect(two).toHaveClass('message-continued');
    expect(three).not.toHaveClass('message-continued');
    expect(mine).toHaveClass('message-own');
    expect(one!.querySelector('.message-header')).toHaveTextContent('Bob');
    expect(two!.querySelector('.message-header')).toBeNull();
  });

  it('shows times in the user’s locale format, the full date and time in the title', () => {
    setup({ history: [chat(1, 'Bob', 'hi', at(19 * 60 + 5))] });
    const time = messageRows()[0]!.querySelector('time')!;
    const date = new Date(at(19 * 60 + 5) * 1000);
    expect(time).toHaveTextContent(
      new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(date),
    );
    expect(time).toHaveAttribute('dateTime', date.toISOString());
    expect(time.getAttribute('title')).toContain(String(date.getFullYear()));
  });

  it('divides days: a date, Yesterday, Today', () => {
    setup({
      history: [
        chat(1, 'Bob', 'long ago', at(600, 3)),
        chat(2, 'Bob', 'yesterday', at(600, 1)),
        chat(3, 'Bob', 'today', at(600)),
      ],
    });
    const dividers = rows()
      .filter((row) => row.classList.contains('feed-day'))
      .map((row) => row.textContent);
    expect(dividers).toEqual([dayLabel(at(600, 3) * 1000, Date.now()), 'Yesterday', 'Today']);
    expect(dividers[0]).not.toMatch(/Today|Yesterday/);
  });

  it('marks where the user left off, and remembers what they have seen', () => {
    window.localStorage.setItem(SEEN_KEY, JSON.stringify({ epoch: EPOCH, seq: 2 }));
    setup({
      history: [
        chat(1, 'Bob', 'old one'),
        chat(2, 'Bob', 'old two'),
        chat(3, 'Alice', 'mine, from another tab'),
        chat(4, 'Bob', 'new one'),
      ],
    });
    const texts = rowTexts();
    const divider = texts.indexOf('New messages');
    expect(divider).toBe(texts.findIndex((t) => t?.includes('new one')) - 1);
    expect(JSON.parse(window.localStorage.getItem(SEEN_KEY)!)).toEqual({ epoch: EPOCH, seq: 4 });
  });

  it('moves the line to what arrived while the tab was in the background', () => {
    const visibility = jest.spyOn(document, 'visibilityState', 'get');
    const { server } = setup({ history: [chat(1, 'Bob', 'before')] });
    expect(screen.queryByText('New messages')).toBeNull();
    visibility.mockReturnValue('hidden');
    act(() => void document.dispatchEvent(new Event('visibilitychange')));
    server.send(chat(2, 'Bob', 'while away'));
    expect(JSON.parse(window.localStorage.getItem(SEEN_KEY)!)).toEqual({ epoch: EPOCH, seq: 1 });
    visibility.mockReturnValue('visible');
    act(() => void document.dispatchEvent(new Event('visibilitychange')));
    const texts = rowTexts();
    expect(texts[texts.indexOf('New messages') + 1]).toContain('while away');
    expect(JSON.parse(window.localStorage.getItem(SEEN_KEY)!)).toEqual({ epoch: EPOCH, seq: 2 });
    visibility.mockRestore();
  });

  it('shows no unread line on a first visit', () => {
    setup({ history: [chat(1, 'Bob', 'hello')] });
    expect(screen.queryByText('New messages')).toBeNull();
  });
});

describe('MessageList: feed lines', () => {
  it('says who joined and left, but not for the roster sent on joining', () => {
    const { server } = setup({ roster: ['Alice', 'Bob'], history: [chat(1, 'Bob', 'hi')] });
    expect(rows().filter((row) => row.classList.contains('feed-line'))).toHaveLength(0);
    server.presence('Cy', true);
    server.send(chat(2, 'Cy', 'hello all'));
    server.presence('Bob', false);
    expect(rowTexts().slice(-3)).toEqual([
      'Cy joined',
      expect.stringContaining('hello all'),
      'Bob left',
    ]);
  });

  it('drops a leave and its join back when nothing was said between (a reload)', () => {
    const { server } = setup({ roster: ['Alice', 'Bob'] });
    server.presence('Bob', false);
    expect(screen.getByText('Bob left')).toBeInTheDocument();
    server.presence('Bob', true);
    expect(screen.queryByText('Bob left')).toBeNull();
    expect(screen.queryByText('Bob joined')).toBeNull();
  });

  it('collapses a run of more than 3 joins into one line that names them', () => {
    const { server } = setup();
    for (const name of ['ana', 'bo', 'cy', 'dee', 'eve']) server.presence(name, true);
    expect(rowTexts()).toEqual(['Today', 'ana, bo, cy and 2 others joined']);
    server.send(chat(1, 'ana', 'hi'));
    server.presence('fay', true);
    server.presence('eve', false);
    expect(rowTexts().slice(-2)).toEqual(['fay joined', 'eve left']);
  });

  it('does not repeat the roster after its own reconnect', () => {
    const { server, fake } = setup({ roster: ['Alice', 'Bob'] });
    act(() => {
      fake.last().serverOpen();
      fake
        .last()
        .serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Bob', connecting: true });
      fake
        .last()
        .serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Alice', connecting: true });
    });
    server.send(chat(1, 'Bob', 'still here'));
    expect(screen.queryByText(/joined/)).toBeNull();
  });

  it('shows "History cleared by {name}" in place of the cleared messages', () => {
    const { fake } = setup({ history: [chat(1, 'Bob', 'soon gone')] });
    act(() => fake.last().serverSend({ type: FrameType.Clear, room: ROOM, sender: 'Bob' }));
    expect(rowTexts()).toEqual(['Today', 'History cleared by Bob']);
  });
});

describe('MessageList: long messages', () => {
  const heights = { scroll: 0, client: 0 };
  beforeEach(() => {
    jest.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockImplementation(function (
      this: HTMLElement,
    ) {
      return this.classList.contains('bubble-clamped') ? heights.scroll : 0;
    });
    jest.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (
      this: HTMLElement,
    ) {
      return this.classList.contains('bubble-clamped') ? heights.client : 0;
    });
  });
  afterEach(() => jest.restoreAllMocks());

  it('collapses a message taller than about 12 lines behind Show more / Show less', async () => {
    heights.scroll = 900;
    heights.client = 235;
    const { user } = setup({ history: [chat(1, 'Bob', 'line\n'.repeat(40) + 'end')] });
    const row = messageRows()[0]!;
    const more = within(row).getByRole('button', { name: 'Show more' });
    expect(more).toHaveAttribute('aria-expanded', 'false');
    expect(row.querySelector('.bubble-body')).toHaveClass('bubble-clamped');
    await user.click(more);
    const less = within(row).getByRole('button', { name: 'Show less' });
    expect(less).toHaveAttribute('aria-expanded', 'true');
    expect(row.querySelector('.bubble-body')).not.toHaveClass('bubble-clamped');
    await user.click(less);
    expect(within(row).getByRole('button', { name: 'Show more' })).toBeInTheDocument();
  });

  it('leaves a short message as it is', () => {
    heights.scroll = 40;
    heights.client = 40;
    setup({ history: [chat(1, 'Bob', 'short')] });
    expect(within(messageRows()[0]!).queryByRole('button')).toBeNull();
  });
});
