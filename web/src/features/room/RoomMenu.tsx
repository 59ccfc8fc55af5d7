import {
  codePointLength,
  NAME_MIN_LENGTH,
  normalizeUserName,
  validateUserName,
  WebRoute,
} from '@taco/protocol';
import { type FormEvent, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Dropdown from 'react-bootstrap/Dropdown';
import Form from 'react-bootstrap/Form';
import Modal from 'react-bootstrap/Modal';
import Spinner from 'react-bootstrap/Spinner';
import { useNavigate } from 'react-router-dom';
import { errorReason } from '../../api/errorText';
import { useRenameCredentialsMutation } from '../../api/roomsApi';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { renameRequested, roomForgotten } from '../chat/chatActions';
import { selectIsConnected } from '../connection/connectionSlice';
import { MenuItem } from './MenuItem';

/** The room's menu: change your display name, or leave the room for good. */
export function RoomMenu({ room, me }: { room: string; me: string }) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const connected = useAppSelector((state) => selectIsConnected(state, room));
  const [renaming, setRenaming] = useState(false);
  const [open, setOpen] = useState(false);
  return (
    <>
      <Dropdown
        align="end"
        className="header-dropdown"
        show={open}
        onToggle={(next) => setOpen(next)}
      >
        <Dropdown.Toggle
          variant="outline-secondary"
          size="sm"
          className="header-icon-button"
          aria-label="Room menu"
          title="Room menu"
        >
          <span aria-hidden="true">⋯</span>
        </Dropdown.Toggle>
        <Dropdown.Menu role="menu">
          <MenuItem
            disabled={!connected}
            onSelect={() => {
              setOpen(false);
              setRenaming(true);
            }}
          >
            Change name…
          </MenuItem>
          <MenuItem
            onSelect={() => {
              // No confirmation: the link still works, with a new name.
              void navigate(WebRoute.create);
              dispatch(roomForgotten({ room }));
            }}
          >
            Leave room
          </MenuItem>
        </Dropdown.Menu>
      </Dropdown>
      {renaming ? <RenameModal room={room} me={me} onDone={() => setRenaming(false)} /> : null}
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
    <Modal show onHide={onDone} centered aria-labelledby="rename-title">
      <Form onSubmit={(event) => void submit(event)} noValidate>
        <Modal.Header closeButton>
          <Modal.Title id="rename-title" as="h2" className="h5">
            Change your name
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Form.Label htmlFor="rename-input">New display name</Form.Label>
          <Form.Control
            id="rename-input"
            autoFocus
            value={name}
            autoComplete="nickname"
            isInvalid={problem !== null}
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
            <Form.Text id="rename-help">
              Everyone in the room sees that {me} is now called by the new name.
            </Form.Text>
          )}
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" disabled={tooShort || unchanged || isLoading}>
            {isLoading ? (
              <Spinner animation="border" size="sm" className="me-2" aria-hidden="true" />
            ) : null}
            Change name
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}
