import {
  type CreateRoomRequest,
  generateRoomName,
  NAME_REMOVED_MESSAGE,
  normalizeUserName,
  ROOM_EXISTS_MESSAGE,
  ROOM_LOCKED_MESSAGE,
  validateRoomName,
  validateUserName,
  WebRoute,
} from '@taco/protocol';
import {
  type ChangeEvent,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type RefObject,
  useEffect,
  useRef,
  useState,
} from 'react';
import { useNavigate } from 'react-router-dom';
import { errorReason, errorStatus } from '../../api/errorText';
import { useCreateRoomMutation, useRoomInfoQuery, useRoomNameQuery } from '../../api/roomsApi';
import { PRODUCT_NAME } from '../../common/brand';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { BadgeIcon } from '../../components/BadgeIcon';
import { roomCreated } from '../chat/chatActions';
import { newRoomSecret } from '../e2e/roomCiphers';
import { disappearLabel } from '../roomSettings/durations';
import { selectRoomAuth } from '../roomAuth/roomAuthSlice';
import { RecentRooms } from './RecentRooms';
import { Alert, Button, Spinner } from '../../components/ui';

export const CREATE_ERROR_MESSAGE =
  'We encountered an error when creating your room, please try again.';

/** How long typing in the room name must pause before the form asks how busy that room is. */
export const ROOM_INFO_DEBOUNCE_MS = 300;

/** "teal-otter already has 3 people in it". */
export function busyRoomText(room: string, participants: number): string {
  return `${room} already has ${participants} ${participants === 1 ? 'person' : 'people'} in it`;
}

/** `value`, once it has stopped changing for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

interface FormFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  id: string;
  label: string;
  help: string;
  /** The error to show (after a submit attempt), or `null`. */
  error: string | null;
  inputRef: RefObject<HTMLInputElement | null>;
  /** Shown under the help text. */
  children?: ReactNode;
}

/** A required text field with its label, its help text and, when refused, its error. */
function FormField({
  id,
  label,
  help,
  error,
  className,
  inputRef,
  children,
  ...input
}: FormFieldProps) {
  const errorId = `${id}Error`;
  const helpId = `${id}Help`;
  return (
    <div className={className}>
      <label className="form-label" htmlFor={id}>
        {label}
      </label>
      <input
        {...input}
        id={id}
        ref={inputRef}
        className={`form-control ${error !== null ? 'is-invalid' : ''}`}
        required
        aria-invalid={error !== null}
        aria-describedby={error !== null ? `${errorId} ${helpId}` : helpId}
      />
      {error !== null ? (
        <div id={errorId} className="invalid-feedback">
          {error}
        </div>
      ) : null}
      <small id={helpId} className="form-text">
        {help}
      </small>
      {children}
    </div>
  );
}

/** `/`: create a room with a generated name and a display name. */
export function CreateRoomPage() {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  // A name at once; the server's suggestion (a room nobody uses) replaces it until the user is in
  // either field (`keepShownName`).
  const [localName] = useState(() => generateRoomName());
  const [editedName, setEditedName] = useState<string | null>(null);
  const suggestion = useRoomNameQuery();
  const roomName = editedName ?? suggestion.data?.room_id ?? localName;
  const [userName, setUserName] = useState('');
  const [validated, setValidated] = useState(false);
  const [submittedRoom, setSubmittedRoom] = useState<string | null>(null);
  const [alertVisible, setAlertVisible] = useState(false);
  const [encrypted, setEncrypted] = useState(false);
  const [disappearAfter, setDisappearAfter] = useState(0);
  /** A refusal that belongs to one field (the room exists, is locked; the name was removed). */
  const [refusal, setRefusal] = useState<{ field: 'room' | 'user'; text: string } | null>(null);
  /** The new encrypted room's key: its link carries it. */
  const [roomKey, setRoomKey] = useState<string | null>(null);
  const choices = suggestion.data?.disappear_choices ?? [];
  const [createRoom, { isLoading, error }] = useCreateRoomMutation();
  /** Set synchronously, so a second submit in the same tick cannot start another request. */
  const inFlight = useRef(false);
  const roomInput = useRef<HTMLInputElement>(null);
  const userInput = useRef<HTMLInputElement>(null);
  const auth = useAppSelector((state) =>
    submittedRoom === null ? undefined : selectRoomAuth(state, submittedRoom),
  );

  const roomError = validateRoomName(roomName);
  const userError = validateUserName(userName);

  // Says so before joining when the room has people in it (joining it on purpose is fine).
  const lookedUp = useDebounced(roomError === null ? roomName : null, ROOM_INFO_DEBOUNCE_MS);
  const info = useRoomInfoQuery(lookedUp ?? '', { skip: lookedUp === null });
  const busy =
    info.data && info.data.room_id === roomName && info.data.participants > 0
      ? busyRoomText(roomName, info.data.participants)
      : null;

  useEffect(() => {
    document.title = PRODUCT_NAME;
  }, []);

  useEffect(() => {
    if (submittedRoom !== null && auth?.authenticated && auth.rejectionCount === 0) {
      void navigate(WebRoute.room(submittedRoom) + (roomKey === null ? '' : `#${roomKey}`));
    }
  }, [auth, navigate, roomKey, submittedRoom]);

  const onEdit =
    (set: (value: string) => void) =>
    (event: ChangeEvent<HTMLInputElement>): void => {
      set(event.target.value);
      setValidated(false);
      setRefusal(null);
    };

  /**
   * Once the user is in either field, the room name shown stays: a suggestion landing while a
   * field has focus would change the name under them, or land between a select-all and the text
   * typed over it.
   */
  const keepShownName = () => {
    if (editedName === null) setEditedName(roomName);
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setValidated(true);
    if (roomError || userError) {
      (roomError ? roomInput : userInput).current?.focus();
      return;
    }
    if (!event.currentTarget.checkValidity() || inFlight.current) return;
    inFlight.current = true;
    setAlertVisible(false);
    setRefusal(null);
    void create(roomName).finally(() => {
      inFlight.current = false;
    });
  };

  /** Makes an encrypted room's key first (its key check goes with the request), then asks. */
  const create = async (room: string) => {
    const request: CreateRoomRequest = { room_id: room, sender: normalizeUserName(userName) };
    if (choices.length > 0) request.disappear_after = disappearAfter;
    try {
      if (encrypted) {
        const { key, keyCheck } = await newRoomSecret(room);
        request.encrypted = true;
        request.key_check = keyCheck;
        setRoomKey(key);
      } else {
        setRoomKey(null);
      }
      dispatch(roomCreated({ room }));
      setSubmittedRoom(room);
      await createRoom(request).unwrap();
    } catch (failure) {
      const reason = errorReason(failure as Parameters<typeof errorReason>[0]);
      if (reason === ROOM_EXISTS_MESSAGE || reason === ROOM_LOCKED_MESSAGE) {
        setRefusal({ field: 'room', text: reason });
        roomInput.current?.focus();
      } else if (reason === NAME_REMOVED_MESSAGE) {
        setRefusal({ field: 'user', text: reason });
        userInput.current?.focus();
      } else {
        setAlertVisible(true);
      }
    }
  };

  return (
    <div className="page-center">
      <div className="card page-card create-card shadow-sm">
        <div className="card-body p-4 p-md-5">
          <div className="text-center mb-4">
            <BadgeIcon name="chat" />
            <h1 className="h3 mb-1">Start a chat room</h1>
            <p className="text-body-secondary mb-0">
              No sign-up. Pick a name, share the link, talk.
            </p>
          </div>
          {alertVisible ? (
            <Alert
              variant="danger"
              onClose={() => {
                setAlertVisible(false);
                // Its close button goes with it: the focus goes back to the form, to the name
                // when that was taken, else to its start.
                (errorStatus(error) === 409 ? userInput : roomInput).current?.focus();
              }}
            >
              {CREATE_ERROR_MESSAGE}
              {error ? <div className="small mt-1">{errorReason(error)}</div> : null}
            </Alert>
          ) : null}
          <form noValidate onSubmit={onSubmit} aria-label="Create Room">
            <FormField
              id="roomName"
              label="Room Name"
              help="This is the name of your room."
              error={
                (validated ? roomError : null) ?? (refusal?.field === 'room' ? refusal.text : null)
              }
              className="mb-3"
              inputRef={roomInput}
              value={roomName}
              onChange={onEdit(setEditedName)}
              onFocus={keepShownName}
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
            >
              <div className="form-text text-warning-emphasis" role="status" aria-live="polite">
                {busy}
              </div>
            </FormField>
            <FormField
              id="userName"
              label="Your Name"
              help="This is how you will appear to others in the chat room."
              error={
                (validated ? userError : null) ?? (refusal?.field === 'user' ? refusal.text : null)
              }
              className="mb-4"
              inputRef={userInput}
              value={userName}
              onChange={onEdit(setUserName)}
              onFocus={keepShownName}
              autoComplete="nickname"
            />
            <fieldset className="create-options mb-4">
              <legend className="form-label mb-2">Privacy</legend>
              <div className="choice mb-2">
                <input
                  type="checkbox"
                  id="encrypted"
                  checked={encrypted}
                  onChange={(event) => setEncrypted(event.target.checked)}
                  aria-describedby="encryptedHelp"
                />
                <label htmlFor="encrypted">End-to-end encrypted</label>
                <div id="encryptedHelp" className="form-text choice-help">
                  Messages are locked with a key that only the room&apos;s link carries; our server
                  cannot read them.
                </div>
              </div>
              {choices.length > 0 ? (
                <div>
                  <label className="form-label small mb-1" htmlFor="disappearAfter">
                    Disappearing messages
                  </label>
                  <select
                    id="disappearAfter"
                    className="form-control form-control-sm create-select"
                    value={disappearAfter}
                    onChange={(event) => setDisappearAfter(Number(event.target.value))}
                  >
                    {choices.map((seconds) => (
                      <option key={seconds} value={seconds}>
                        {disappearLabel(seconds)}
                      </option>
                    ))}
                  </select>
                </div>
              ) : null}
            </fieldset>
            <Button type="submit" size="lg" className="w-100" disabled={isLoading}>
              {isLoading ? <Spinner size="sm" className="me-2" /> : null}
              Create Room
            </Button>
          </form>
          <RecentRooms />
        </div>
      </div>
    </div>
  );
}
