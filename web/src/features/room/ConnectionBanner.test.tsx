import { CloseCode, RECONNECT_ATTEMPTS } from '@taco/protocol';
import { act, screen } from '@testing-library/react';
import { renderApp } from '../../../test/render';
import { roomJoined } from '../chat/chatActions';
import { ConnectionBanner, ConnectionPill } from './ConnectionBanner';

const ROOM = 'teal-otter';

function setup() {
  const rendered = renderApp({
    path: `/r/${ROOM}`,
    ui: (
      <>
        <ConnectionPill room={ROOM} />
        <ConnectionBanner room={ROOM} />
      </>
    ),
    fakeTimers: true,
  });
  act(() => {
    rendered.store.dispatch(roomJoined({ room: ROOM, token: 't' }));
  });
  return rendered;
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('ConnectionBanner', () => {
  it('says connecting, then online, with no banner while all is well', () => {
    const { fake } = setup();
    expect(screen.getByText('Connecting…')).toBeInTheDocument();
    act(() => fake.last().serverOpen());
    expect(screen.getByText('Online')).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('reconnects at once when the browser comes back online', () => {
    const { fake } = setup();
    act(() => fake.last().serverOpen());
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    expect(fake.sockets).toHaveLength(1);
    act(() => fake.last().serverClose(CloseCode.Abnormal));
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    expect(fake.sockets).toHaveLength(2);
    act(() => fake.last().serverOpen());
    expect(screen.getByText('Online')).toBeInTheDocument();
  });

  it('shows the attempt while reconnecting and offers a reconnect once it gives up', async () => {
    const { fake, user } = setup();
    act(() => fake.last().serverOpen());
    act(() => fake.last().serverClose(CloseCode.Abnormal));
    expect(screen.getByRole('status')).toHaveTextContent(
      `Connection lost. Reconnecting… (attempt 1 of ${RECONNECT_ATTEMPTS})`,
    );
    for (let i = 0; i < RECONNECT_ATTEMPTS; i++) {
      act(() => jest.advanceTimersByTime(10_000));
      act(() => fake.last().serverClose(CloseCode.Abnormal));
    }
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Disconnected. Messages you send will wait until you reconnect.',
    );
    expect(screen.getByText('Disconnected', { selector: '.connection-pill-label' })).toBeVisible();
    const before = fake.sockets.length;
    await user.click(screen.getByRole('button', { name: 'Reconnect' }));
    expect(fake.sockets).toHaveLength(before + 1);
    act(() => fake.last().serverOpen());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('tries again when the user comes back to the tab, also after giving up', () => {
    const { fake } = setup();
    act(() => fake.last().serverOpen());
    const visibility = jest.spyOn(document, 'visibilityState', 'get');
    const backToTab = () => {
      visibility.mockReturnValue('visible');
      act(() => {
        document.dispatchEvent(new Event('visibilitychange'));
      });
    };
    backToTab();
    expect(fake.sockets).toHaveLength(1);
    for (let i = 0; i <= RECONNECT_ATTEMPTS; i++) {
      act(() => fake.last().serverClose(CloseCode.Abnormal));
      act(() => jest.advanceTimersByTime(10_000));
    }
    expect(screen.getByRole('alert')).toHaveTextContent('Disconnected.');
    const before = fake.sockets.length;
    visibility.mockReturnValue('hidden');
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    expect(fake.sockets).toHaveLength(before);
    backToTab();
    expect(fake.sockets).toHaveLength(before + 1);
    act(() => fake.last().serverOpen());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    visibility.mockRestore();
  });
});
