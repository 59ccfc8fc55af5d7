import { RECONNECT_ATTEMPTS } from '@taco/protocol';
import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { reconnectRequested } from '../chat/chatActions';
import { selectConnectionStatus, selectReconnectAttempt } from '../connection/connectionSlice';
import { Button, Spinner } from '../../components/ui';

/** Tells the user when the room is not connected, and offers a reconnect after giving up. */
export function ConnectionBanner({ room }: { room: string }) {
  const dispatch = useAppDispatch();
  const status = useAppSelector((state) => selectConnectionStatus(state, room));
  const attempt = useAppSelector(selectReconnectAttempt);

  useEffect(() => {
    // Back online (a phone leaving a tunnel), or back to the tab: try now instead of waiting for
    // the next attempt, or after they ran out. An open socket ignores the request.
    const retry = () => dispatch(reconnectRequested({ room }));
    const onVisible = () => {
      if (document.visibilityState === 'visible') retry();
    };
    window.addEventListener('online', retry);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.removeEventListener('online', retry);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [dispatch, room]);
  if (status === 'reconnecting') {
    return (
      <div className="connection-banner connection-banner-warning" role="status">
        <Spinner size="sm" />
        <span>
          Connection lost. Reconnecting…
          {attempt > 0 ? (
            <span className="connection-attempt">
              {' '}
              (attempt {attempt} of {RECONNECT_ATTEMPTS})
            </span>
          ) : null}
        </span>
      </div>
    );
  }
  if (status === 'offline') {
    return (
      <div className="connection-banner connection-banner-danger" role="alert">
        <span>
          <strong>Disconnected.</strong> Messages you send will wait until you reconnect.
        </span>
        <Button size="sm" variant="light" onClick={() => dispatch(reconnectRequested({ room }))}>
          Reconnect
        </Button>
      </div>
    );
  }
  return null;
}

/** A compact state for the chat header. */
export function ConnectionPill({ room }: { room: string }) {
  const status = useAppSelector((state) => selectConnectionStatus(state, room));
  const label =
    status === 'open'
      ? 'Online'
      : status === 'offline'
        ? 'Disconnected'
        : status === 'reconnecting'
          ? 'Reconnecting…'
          : 'Connecting…';
  return (
    <span className={`connection-pill connection-pill-${status}`}>
      <span className="connection-pill-dot" aria-hidden="true" />
      <span className="connection-pill-label">{label}</span>
    </span>
  );
}
