import { useEffect, useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Modal, ModalHeader } from '../../components/Dialog';
import { Button } from '../../components/ui';
import { messagesExpired, type RoomControl, roomControlSent } from '../chat/chatActions';
import { selectOldestTimestamp } from '../messages/messagesSlice';
import { disappearLabel } from '../roomSettings/durations';
import { selectRoomSettings } from '../roomSettings/roomSettingsSlice';

export const E2E_TITLE = 'End-to-end encrypted';

/**
 * Every stored message leaves the view once its `timestamp` + the room's `disappear_after` has
 * passed (§6.13): one timer, for the oldest message held; when it fires the next one is set.
 */
export function useDisappearing(room: string) {
  const dispatch = useAppDispatch();
  const { disappearAfter } = useAppSelector((state) => selectRoomSettings(state, room));
  const oldest = useAppSelector((state) => selectOldestTimestamp(state, room));
  useEffect(() => {
    if (disappearAfter === 0 || oldest === null) return;
    const expire = () => {
      const before = Date.now() / 1000 - disappearAfter;
      if (oldest <= before) dispatch(messagesExpired({ room, before }));
    };
    const dueMs = (oldest + disappearAfter) * 1000 - Date.now();
    if (dueMs <= 0) {
      expire();
      return;
    }
    const timer = setTimeout(expire, dueMs);
    return () => clearTimeout(timer);
  }, [disappearAfter, dispatch, oldest, room]);
}

/** A padlock (decorative: its button says what it means). */
function LockIcon() {
  return (
    <svg width="12" height="12" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path
        d="M4.5 7V5a3.5 3.5 0 0 1 7 0v2M3 7h10v7H3z"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/**
 * What the header says about the room's settings: encrypted (a button that explains what the
 * server still sees), locked, and how long messages stay.
 */
export function RoomBadges({ room }: { room: string }) {
  const { encrypted, locked, disappearAfter } = useAppSelector((state) =>
    selectRoomSettings(state, room),
  );
  const [explaining, setExplaining] = useState(false);
  if (!encrypted && !locked && disappearAfter === 0) return null;
  return (
    <div className="room-badges">
      {encrypted ? (
        <button
          type="button"
          className="room-badge room-badge-e2e"
          onClick={() => setExplaining(true)}
          aria-haspopup="dialog"
        >
          <LockIcon />
          <span>Encrypted</span>
        </button>
      ) : null}
      {locked ? (
        <span className="room-badge" title="Nobody new can join">
          Locked
        </span>
      ) : null}
      {disappearAfter > 0 ? (
        <span className="room-badge" title="Messages disappear after this long">
          Disappearing: {disappearLabel(disappearAfter)}
        </span>
      ) : null}
      {explaining ? (
        <Modal onHide={() => setExplaining(false)} labelledBy="e2e-title">
          <ModalHeader id="e2e-title" onHide={() => setExplaining(false)}>
            {E2E_TITLE}
          </ModalHeader>
          <div className="modal-body">
            <p>
              Messages in this room are encrypted on your device with a key that lives only in the
              room&apos;s link, after the <code>#</code>. Our server stores and relays them without
              being able to read them. Anyone with the full link can read them: share it with care.
            </p>
            <p className="mb-1">The server still sees:</p>
            <ul className="mb-0">
              <li>the room&apos;s name and settings</li>
              <li>display names, who is present and who is typing</li>
              <li>when each message was sent, and how long it is</li>
            </ul>
          </div>
          <div className="modal-footer">
            <Button data-autofocus onClick={() => setExplaining(false)}>
              Got it
            </Button>
          </div>
        </Modal>
      ) : null}
    </div>
  );
}

/** A creator's change, asked for after a confirmation: remove someone, or hand over the room. */
export function ParticipantControlDialog({
  room,
  control,
  onDone,
}: {
  room: string;
  control: Extract<RoomControl, { name: string }>;
  onDone: () => void;
}) {
  const dispatch = useAppDispatch();
  const removing = control.action === 'remove';
  return (
    <Modal onHide={onDone} labelledBy="participant-control-title">
      <ModalHeader id="participant-control-title" onHide={onDone}>
        {removing ? `Remove ${control.name}?` : `Make ${control.name} the room's creator?`}
      </ModalHeader>
      <div className="modal-body">
        {removing ? (
          <>
            <bdi>{control.name}</bdi> leaves the room at once and cannot come back under this name
            for an hour. Lock the room first to keep them from rejoining under another name.
          </>
        ) : (
          <>
            <bdi>{control.name}</bdi> gets the room&apos;s controls: locking it, removing people and
            disappearing messages. You keep none of them.
          </>
        )}
      </div>
      <div className="modal-footer">
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
        <Button
          variant={removing ? 'danger' : 'primary'}
          onClick={() => {
            dispatch(roomControlSent({ room, control }));
            onDone();
          }}
        >
          {removing ? 'Remove' : 'Hand over'}
        </Button>
      </div>
    </Modal>
  );
}

/** The creator chooses how long messages stay (the room's `disappear_choices`). */
export function DisappearDialog({ room, onDone }: { room: string; onDone: () => void }) {
  const dispatch = useAppDispatch();
  const { disappearAfter, choices } = useAppSelector((state) => selectRoomSettings(state, room));
  const offered = choices.includes(disappearAfter) ? choices : [disappearAfter, ...choices];
  const [chosen, setChosen] = useState(disappearAfter);
  return (
    <Modal onHide={onDone} labelledBy="disappear-title">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (chosen !== disappearAfter) {
            dispatch(roomControlSent({ room, control: { action: 'disappear', after: chosen } }));
          }
          onDone();
        }}
      >
        <ModalHeader id="disappear-title" onHide={onDone}>
          Disappearing messages
        </ModalHeader>
        <div className="modal-body">
          <fieldset>
            <legend className="form-text mb-2">
              Messages disappear for everyone this long after they were sent, those older already at
              once.
            </legend>
            {offered.map((seconds) => (
              <div className="choice" key={seconds}>
                <input
                  type="radio"
                  name="disappear"
                  id={`disappear-${seconds}`}
                  checked={chosen === seconds}
                  onChange={() => setChosen(seconds)}
                  {...(chosen === seconds ? { 'data-autofocus': true } : {})}
                />
                <label htmlFor={`disappear-${seconds}`}>{disappearLabel(seconds)}</label>
              </div>
            ))}
          </fieldset>
        </div>
        <div className="modal-footer">
          <Button variant="secondary" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit">Save</Button>
        </div>
      </form>
    </Modal>
  );
}
