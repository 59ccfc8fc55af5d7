import {
  codePointLength,
  NAME_MIN_LENGTH,
  normalizeUserName,
  validateUserName,
  WebRoute,
} from '@taco/protocol';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { errorReason } from '../../api/errorText';
import { Modal, ModalHeader } from '../../components/Dialog';
import { MenuButton } from '../../components/MenuButton';
import { Button, Spinner } from '../../components/ui';
import { useRenameCredentialsMutation } from '../../api/roomsApi';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { renameRequested, roomControlSent, roomForgotten } from '../chat/chatActions';
import { selectIsConnected } from '../connection/connectionSlice';
import { disappearLabel } from '../roomSettings/durations';
import { selectRoomSettings } from '../roomSettings/roomSettingsSlice';
import { DisappearDialog } from './RoomPrivacy';
import { MenuItem } from './MenuItem';

/**
 * The room's menu: change your display name, or leave the room for good; the room's creator
 * also locks or unlocks it and sets how long messages stay.
 */
export function RoomMenu({ room, me }: { room: string; me: string }) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const connected = useAppSelector((state) => selectIsConnected(state, room));
  const [renaming, setRenaming] = useState(false);
  const [choosingDisappear, setChoosingDisappear] = useState(false);
  const [open, setOpen] = useState(false);
  const { isCreator, locked, disappearAfter } = useAppSelector((state) =>
    selectRoomSettings(state, room),
  );
  return (
    <>
      <MenuButton
        label="Room menu"
        open={open}
        onOpenChange={setOpen}
        face={<span aria-hidden="true">⋯</span>}
      >
        <MenuItem
          disabled={!connected}
          onSelect={() => {
            setOpen(false);
            setRenaming(true);
          }}
        >
          Change name…
        </MenuItem>
        {isCreator ? (
          <>
            <MenuItem
              disabled={!connected}
              onSelect={() => {
                setOpen(false);
                const action = locked ? 'unlock' : 'lock';
                dispatch(roomControlSent({ room, control: { action } }));
              }}
            >
              {locked ? 'Unlock room' : 'Lock room'}
            </MenuItem>
            <MenuItem
              disabled={!connected}
              onSelect={() => {
                setOpen(false);
                setChoosingDisappear(true);
              }}
            >
              Disappearing messages: {disappearLabel(disappearAfter)}…
            </MenuItem>
          </>
        ) : null}
        <MenuItem
          onSelect={() => {
            // No confirmation: the link still works, with a new name.
            void navigate(WebRoute.create);
            dispatch(roomForgotten({ room }));
          }}
        >
          Leave room
        </MenuItem>
      </MenuButton>
      {renaming ? <RenameModal room={room} me={me} onDone={() => setRenaming(false)} /> : null}
      {choosingDisappear ? (
        <DisappearDialog room={room} onDone={() => setChoosingDisappear(false)} />
      ) : null}
    </>
  );
}

/**
 * Asks for the new name, gets credentials for it, and hands them to the socket, which sends them
 * on the current connection; the others then see "{old} is now {new}".
 */
function RenameModal({ room, me, onDone }: { room: string; me: string; onDone: () => void }) {
  const dispatch = useAppDispatch();
  const [name, setName] = useState(me);
  const [problem, setProblem] = useState<string | null>(null);
  const [renameCredentials, { isLoading }] = useRenameCredentialsMutation();
  const trimmed = normalizeUserName(name);
  const unchanged = trimmed === normalizeUserName(me);
  const tooShort = codePointLength(trimmed) < NAME_MIN_LENGTH;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (tooShort || unchanged || isLoading) return;
    const invalid = validateUserName(trimmed);
    if (invalid !== null) {
      setProblem(invalid);
      return;
    }
    const answer = await renameCredentials({ room, senderId: trimmed });
    if ('error' in answer) {
      setProblem(errorReason(answer.error));
      return;
    }
    const { sender_id, token } = answer.data;
    dispatch(renameRequested({ room, name: sender_id, token }));
    onDone();
  };

  return (
    <Modal onHide={onDone} labelledBy="rename-title">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <ModalHeader id="rename-title" onHide={onDone}>
          Change your name
        </ModalHeader>
        <div className="modal-body">
          <label className="form-label" htmlFor="rename-input">
            New display name
          </label>
          <input
            id="rename-input"
            data-autofocus
            className={`form-control ${problem !== null ? 'is-invalid' : ''}`}
            value={name}
            autoComplete="nickname"
            aria-describedby={problem !== null ? 'rename-error' : 'rename-help'}
            onChange={(event) => {
              setName(event.target.value);
              setProblem(null);
            }}
          />
          {problem !== null ? (
            <div id="rename-error" className="invalid-feedback d-block" role="alert">
              {problem}
            </div>
          ) : (
            <small id="rename-help" className="form-text">
              Everyone in the room sees that {me} is now called by the new name.
            </small>
          )}
        </div>
        <div className="modal-footer">
          <Button variant="secondary" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" disabled={tooShort || unchanged || isLoading}>
            {isLoading ? <Spinner size="sm" className="me-2" /> : null}
            Change name
          </Button>
        </div>
      </form>
    </Modal>
  );
}
