import { FrameType } from '@taco/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import { chatMessage, EPOCH, openRoom, ROOM, sidebarShare } from '../../../test/openRoom';
import { server } from '../../../test/server';
import { INPUT_FOCUS_DELAY_MS } from './Composer';
import { TOAST_DELAY_MS } from './RoomPage';
import { SHARE_COPIED_MESSAGE } from './share';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

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

  it('leaves the focus in a dialog opened within those 500 ms', async () => {
    const { user } = openRoom({ fakeTimers: true });
    await user.click(screen.getByRole('button', { name: 'Room menu' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Change name…' }));
    const dialog = screen.getByRole('dialog', { name: 'Change your name' });
    const field = within(dialog).getByLabelText('New display name');
    expect(field).toHaveFocus();
    act(() => jest.advanceTimersByTime(INPUT_FOCUS_DELAY_MS));
    expect(field).toHaveFocus();
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
