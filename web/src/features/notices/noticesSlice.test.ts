import { makeStore } from '../../app/store';
import { errorFrameReceived } from '../chat/chatActions';
import { MAX_NOTICES, noticeDismissed, selectNotices } from './noticesSlice';

const ROOM = 'teal-otter';

describe('notices slice', () => {
  it('shows one notice at a time: the newest replaces it, the same one again changes nothing', () => {
    const store = makeStore();
    for (const n of [1, 2, 3, 4]) {
      store.dispatch(
        errorFrameReceived({
          room: ROOM,
          code: 'rate_limited',
          message: `slow ${n}`,
          clientId: null,
        }),
      );
    }
    const notices = selectNotices(store.getState());
    expect(MAX_NOTICES).toBe(1);
    expect(notices.map((n) => n.text)).toEqual(['slow 4']);
    const again = errorFrameReceived({
      room: ROOM,
      code: 'rate_limited',
      message: 'slow 4',
      clientId: null,
    });
    store.dispatch(again);
    expect(selectNotices(store.getState())).toEqual(notices);
    store.dispatch(noticeDismissed({ id: notices[0]!.id }));
    expect(selectNotices(store.getState())).toHaveLength(0);
  });

  it('gives every notice its own id, even after others were dismissed', () => {
    const store = makeStore();
    store.dispatch(
      errorFrameReceived({ room: ROOM, code: 'bad_frame', message: 'one', clientId: null }),
    );
    const [first] = selectNotices(store.getState());
    store.dispatch(noticeDismissed({ id: first!.id }));
    store.dispatch(
      errorFrameReceived({ room: ROOM, code: 'bad_frame', message: 'two', clientId: null }),
    );
    const [second] = selectNotices(store.getState());
    expect(second).toEqual({ id: first!.id + 1, text: 'two' });
  });

  it('dismissing an unknown notice changes nothing', () => {
    const store = makeStore();
    store.dispatch(
      errorFrameReceived({ room: ROOM, code: 'bad_frame', message: 'one', clientId: null }),
    );
    store.dispatch(noticeDismissed({ id: 999 }));
    expect(selectNotices(store.getState()).map((n) => n.text)).toEqual(['one']);
  });
});
