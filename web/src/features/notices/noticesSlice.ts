import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { ErrorCode } from '@taco/protocol';
import { errorFrameReceived } from '../chat/chatActions';

/** A brief, non-blocking notice: the text of an error frame from the server. */
export interface Notice {
  id: number;
  text: string;
}

export interface NoticesState {
  items: Notice[];
  nextId: number;
}

const initialState: NoticesState = { items: [], nextId: 1 };

/** One notice at a time: a new one replaces the one showing. */
export const MAX_NOTICES = 1;

export const noticesSlice = createSlice({
  name: 'notices',
  initialState,
  reducers: {
    noticeDismissed(state, action: PayloadAction<{ id: number }>) {
      state.items = state.items.filter((n) => n.id !== action.payload.id);
    },
  },
  extraReducers: (builder) => {
    builder.addCase(errorFrameReceived, (state, action) => {
      // A socket refused its name: the name prompt says so (`nameRefused`), not a notice.
      if (action.payload.code === ErrorCode.NameTaken && action.payload.clientId === null) return;
      // The same notice again (a burst refused one frame after another) stays as it is.
      if (state.items.some((n) => n.text === action.payload.message)) return;
      state.items.push({ id: state.nextId, text: action.payload.message });
      state.nextId += 1;
      if (state.items.length > MAX_NOTICES) state.items.splice(0, state.items.length - MAX_NOTICES);
    });
  },
});

export const { noticeDismissed } = noticesSlice.actions;

export const selectNotices = (state: { notices: NoticesState }) => state.notices.items;
