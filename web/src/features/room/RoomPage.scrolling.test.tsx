import { FrameType } from '@taco/protocol';
import { act, screen } from '@testing-library/react';
import { chatMessage, EPOCH, openRoom, ROOM } from '../../../test/openRoom';
import { server } from '../../../test/server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('Room page: scrolling', () => {
  it('stays at the bottom when the reader is there, otherwise offers a jump to new messages', async () => {
    const { socket, user } = openRoom();
    const feed = document.querySelector<HTMLElement>('.feed')!;
    Object.defineProperty(feed, 'scrollHeight', { configurable: true, value: 2000 });
    Object.defineProperty(feed, 'clientHeight', { configurable: true, value: 500 });
    const bobSays = (seq: number, body: string) =>
      act(() =>
        socket.serverSend({
          type: FrameType.Message,
          room: ROOM,
          epoch: EPOCH,
          ...chatMessage(seq, 'Bob', body),
        }),
      );
    bobSays(3, 'x');
    expect(feed.scrollTop).toBe(2000);
    feed.scrollTop = 100;
    act(() => {
      feed.dispatchEvent(new Event('scroll'));
    });
    bobSays(4, 'y');
    expect(feed.scrollTop).toBe(100);
    const jump = screen.getByRole('button', { name: /1 new message/ });
    await user.click(jump);
    expect(feed.scrollTop).toBe(2000);
    expect(screen.queryByRole('button', { name: /new message/ })).not.toBeInTheDocument();
  });
});
