import { createSlice } from '@reduxjs/toolkit';
import { NAME_TAKEN_MESSAGE } from '@taco/protocol';
import { errorReason, errorStatus } from '../../api/errorText';
import { roomsApi } from '../../api/roomsApi';
import { type Keyed, keyOf } from '../../common/keyed';
import {
  connectionOpened,
  credentialsShared,
  historyReceived,
  roomLeft,
} from '../chat/chatActions';
import { nameRefused, unauthorized } from './roomAuthSlice';

export const SESSION_EXPIRED_MESSAGE =
  'Your session for this room has expired. Please choose your username again.';

/** Why the user must choose a name again: shown in the username modal (not persisted). */
export interface AuthErrorsState {
  /** Room id → why the last credential request for it failed. */
  byRoom: Keyed<string>;
  /**
   * Socket closes with 4401 since a socket last got into its room (its first history answer), or
   * the room page was left. A refused socket opens before it is closed, so opening is no proof.
   */
  socketRejections: number;
}

const initialState: AuthErrorsState = { byRoom: {}, socketRejections: 0 };

export const authErrorsSlice = createSlice({
  name: 'authErrors',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(unauthorized, (state, action) => {
        // The first refusal is retried silently with new credentials; a socket refused twice in
        // a row without getting into the room in between asks the user.
        if (action.payload.source !== 'socket') return;
        state.socketRejections += 1;
        if (state.socketRejections > 1) {
          state.byRoom[keyOf(action.payload.room)] = SESSION_EXPIRED_MESSAGE;
        }
      })
      .addCase(nameRefused, (state, action) => {
        // Asking again for the same name would only be refused: the user chooses another.
        state.byRoom[keyOf(action.payload.room)] = NAME_TAKEN_MESSAGE;
      })
      .addCase(connectionOpened, (state, action) => {
        // Connected: whatever a credential request said meanwhile no longer stands.
        delete state.byRoom[keyOf(action.payload.room)];
      })
      .addCase(historyReceived, (state) => {
        state.socketRejections = 0;
      })
      .addCase(credentialsShared, (state, action) => {
        delete state.byRoom[keyOf(action.payload.room)];
      })
      .addCase(roomLeft, (state) => {
        state.socketRejections = 0;
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchPending, (state, action) => {
        delete state.byRoom[keyOf(action.meta.arg.originalArgs.room)];
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchFulfilled, (state, action) => {
        delete state.byRoom[keyOf(action.payload.room_id)];
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchRejected, (state, action) => {
        const failure = action.payload ?? action.error;
        state.byRoom[keyOf(action.meta.arg.originalArgs.room)] =
          errorStatus(failure) === 401 ? SESSION_EXPIRED_MESSAGE : errorReason(failure);
      });
  },
});

export const selectAuthError = (state: { authErrors: AuthErrorsState }, room: string) =>
  state.authErrors.byRoom[keyOf(room)];
