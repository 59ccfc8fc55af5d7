import { useState } from 'react';
import { MenuButton } from '../../components/MenuButton';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { notificationsBlockedReason } from '../../socket/notifications';
import { NOTIFY_MODES, notifyModeChosen, selectNotifyMode } from '../notifyPrefs/notifyPrefsSlice';
import { MenuItem } from './MenuItem';

/**
 * The room's bell: which messages show a browser notification, remembered by this browser. When
 * the browser will show none (no Notification API, or blocked for the site), its menu says so.
 */
export function NotifyBell({ room }: { room: string }) {
  const dispatch = useAppDispatch();
  const mode = useAppSelector((state) => selectNotifyMode(state, room));
  const [open, setOpen] = useState(false);
  const label = NOTIFY_MODES.find((m) => m.mode === mode)?.label ?? '';
  // Read at each render, so an opened menu tells the permission as it is now.
  const blocked = notificationsBlockedReason();
  return (
    <MenuButton
      label={`Notifications: ${label}`}
      open={open}
      onOpenChange={setOpen}
      face={
        <>
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
            <path
              fill="currentColor"
              d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1z"
            />
            {mode === 'off' ? (
              <path stroke="currentColor" strokeWidth="2.2" d="M3.5 3.5 20.5 20.5" />
            ) : null}
          </svg>
          {mode === 'mentions' ? <span className="bell-at">@</span> : null}
        </>
      }
    >
      {NOTIFY_MODES.map((option) => (
        <MenuItem
          key={option.mode}
          checked={option.mode === mode}
          onSelect={() => {
            dispatch(notifyModeChosen({ room, mode: option.mode }));
            setOpen(false);
          }}
        >
          {option.label}
        </MenuItem>
      ))}
      {blocked === null ? null : (
        <MenuItem disabled onSelect={() => undefined}>
          <span className="small">{blocked}</span>
        </MenuItem>
      )}
    </MenuButton>
  );
}
