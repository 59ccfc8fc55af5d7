import { ErrorCode, FrameType } from '@taco/protocol';
import { act, screen, within } from '@testing-library/react';
import { renderApp } from '../../../test/render';
import { messageSent, roomJoined, typingUpdated } from '../chat/chatActions';
import { MessageList } from './MessageList';

const ROOM = 'teal-otter';
const EPOCH = 'e1';

function setup() {
  const rendered = renderApp({
    path: `/r/${ROOM}`,
    preloadedState: {
      roomAuth: {
        [ROOM]: {
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
    rendered.fake.last().serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [],
      complete: true,
    });
  });
  return rendered;
}

describe('MessageList', () => {
  it('shows an empty state until there are messages', () => {
    setup();
    expect(screen.getByText('No messages yet. Say hello!')).toBeInTheDocument();
  });

  it('marks a message the server could not store, and sends it again on Retry', async () => {
    const { store, fake, user } = setup();
    act(() => {
      store.dispatch(
        messageSent({
          room: ROOM,
          clientId: 'c1',
          body: 'hello',
          senderName: 'Alice',
          timestamp: 1,
        }),
      );
      fake.last().serverSend({
        type: FrameType.Error,
        code: ErrorCode.Unavailable,
        message: 'The server could not store that; please try again',
        client_id: 'c1',
      });
    });
    const item = within(screen.getByRole('log')).getByRole('listitem');
    expect(item).toHaveTextContent('Not sent');
    fake.last().sent.length = 0;
    await user.click(within(item).getByRole('button', { name: 'Retry' }));
    expect(fake.last().sent).toEqual([{ type: FrameType.Message, body: 'hello', client_id: 'c1' }]);
    expect(within(screen.getByRole('log')).getByRole('listitem')).toHaveTextContent('Sending…');
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
