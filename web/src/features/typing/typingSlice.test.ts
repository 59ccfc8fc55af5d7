import type { UnknownAction } from '@reduxjs/toolkit';
import { TYPING_STALE_MS } from '@taco/protocol';
import {
  connectionClosed,
  presenceUpdated,
  typingExpired,
  typingUpdated,
} from '../chat/chatActions';
import { selectRoomTyping, type TypingState, typingSlice } from './typingSlice';
import { keyOf } from '../../common/keyed';

const ROOM = 'teal-otter';

function after(...actions: UnknownAction[]): { typing: TypingState } {
  return { typing: actions.reduce(typingSlice.reducer, typingSlice.getInitialState()) };
}

const bobTypes = typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: 1000 });

describe('typing slice', () => {
  it('records who types and when', () => {
    expect(selectRoomTyping(after(bobTypes), ROOM)).toEqual({
      [keyOf('Bob')]: { typing: true, lastTypingTime: 1000 },
    });
    const stops = typingUpdated({ room: ROOM, sender: 'Bob', typing: false, time: 1500 });
    expect(selectRoomTyping(after(bobTypes, stops), ROOM)).toEqual({
      [keyOf('Bob')]: { typing: false, lastTypingTime: 1500 },
    });
  });

  it('drops typing indicators that were not refreshed in time', () => {
    const early = typingExpired({ room: ROOM, now: 1000 + TYPING_STALE_MS - 1 });
    expect(selectRoomTyping(after(bobTypes, early), ROOM)[keyOf('Bob')]?.typing).toBe(true);
    const late = typingExpired({ room: ROOM, now: 1000 + TYPING_STALE_MS });
    expect(selectRoomTyping(after(bobTypes, late), ROOM)[keyOf('Bob')]).toEqual({
      typing: false,
      lastTypingTime: 1000,
    });
  });

  it('stops the typing of someone who left, not of someone who arrived', () => {
    const left = presenceUpdated({ room: ROOM, sender: 'Bob', active: false });
    expect(selectRoomTyping(after(bobTypes, left), ROOM)[keyOf('Bob')]?.typing).toBe(false);
    const back = presenceUpdated({ room: ROOM, sender: 'Bob', active: true });
    expect(selectRoomTyping(after(bobTypes, back), ROOM)[keyOf('Bob')]?.typing).toBe(true);
  });

  it('forgets who was typing when the connection closes', () => {
    const cy = typingUpdated({ room: ROOM, sender: 'Cy', typing: true, time: 1200 });
    const closed = connectionClosed({ room: ROOM, code: 1006 });
    expect(selectRoomTyping(after(bobTypes, cy, closed), ROOM)).toEqual({
      [keyOf('Bob')]: { typing: false, lastTypingTime: 1000 },
      [keyOf('Cy')]: { typing: false, lastTypingTime: 1200 },
    });
  });

  it('keeps rooms apart', () => {
    const elsewhere = typingExpired({ room: 'red-fox', now: 1000 + TYPING_STALE_MS });
    expect(selectRoomTyping(after(bobTypes, elsewhere), ROOM)[keyOf('Bob')]?.typing).toBe(true);
    expect(selectRoomTyping(after(bobTypes), 'red-fox')).toEqual({});
  });
});
