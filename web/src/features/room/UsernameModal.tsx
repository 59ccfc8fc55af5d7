import {
  codePointLength,
  NAME_MIN_LENGTH,
  normalizeUserName,
  validateUserName,
} from '@taco/protocol';
import { type FormEvent, useState } from 'react';
import Button from 'react-bootstrap/Button';
import FormControl from 'react-bootstrap/FormControl';
import Modal from 'react-bootstrap/Modal';
import Spinner from 'react-bootstrap/Spinner';

interface UsernameModalProps {
  room: string;
  initialName: string;
  /** Why the last attempt failed (a taken name, an expired session, a server message). */
  error: string | undefined;
  busy: boolean;
  onSubmit: (name: string) => void;
}

/** Asks for a username before entering a room; it cannot be dismissed. */
export function UsernameModal({ room, initialName, error, busy, onSubmit }: UsernameModalProps) {
  const [name, setName] = useState(initialName);
  const [localError, setLocalError] = useState<string | null>(null);
  const [edited, setEdited] = useState(false);
  const tooShort = codePointLength(normalizeUserName(name)) < NAME_MIN_LENGTH;
  const shown = localError ?? (edited ? undefined : error);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (tooShort || busy) return;
    const problem = validateUserName(name);
    setLocalError(problem);
    setEdited(false);
    if (problem === null) onSubmit(normalizeUserName(name));
  };

  return (
    <Modal show backdrop="static" keyboard={false} centered aria-labelledby="username-title">
      <form onSubmit={submit} noValidate>
        <Modal.Header>
          <Modal.Title id="username-title" as="h2" className="h5">
            Please choose a username
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <p className="text-body-secondary small mb-2">
            This is how others in <strong>{room}</strong> will see you.
          </p>
          <FormControl
            autoFocus
            placeholder="John Doe"
            aria-label="Username"
            value={name}
            isInvalid={Boolean(shown)}
            autoComplete="nickname"
            aria-describedby={shown ? 'username-error' : undefined}
            onChange={(event) => {
              setName(event.target.value);
              setLocalError(null);
              setEdited(true);
            }}
          />
          {shown ? (
            <div id="username-error" className="invalid-feedback d-block" role="alert">
              {shown}
            </div>
          ) : null}
        </Modal.Body>
        <Modal.Footer>
          <Button type="submit" disabled={tooShort || busy}>
            {busy ? (
              <Spinner animation="border" size="sm" className="me-2" aria-hidden="true" />
            ) : null}
            Continue
          </Button>
        </Modal.Footer>
      </form>
    </Modal>
  );
}
