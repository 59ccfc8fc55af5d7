import { draftEdited, messageSent, roomForgotten } from '../chat/chatActions';
import { draftsSlice, selectDraft } from './draftsSlice';

const reduce = (actions: Parameters<typeof draftsSlice.reducer>[1][]) =>
  actions.reduce(draftsSlice.reducer, draftsSlice.getInitialState());

describe('drafts', () => {
  it('keeps each room’s latest unsent text', () => {
    const drafts = reduce([
      draftEdited({ room: 'teal-otter', text: 'hel' }),
      draftEdited({ room: 'blue-heron', text: 'other room' }),
      draftEdited({ room: 'teal-otter', text: 'hello' }),
    ]);
    expect(selectDraft({ drafts }, 'teal-otter')).toBe('hello');
    expect(selectDraft({ drafts }, 'blue-heron')).toBe('other room');
    expect(selectDraft({ drafts }, 'gold-lynx')).toBe('');
  });

  it('forgets a room’s draft once it is emptied, sent, or the room is forgotten', () => {
    const sent = messageSent({
      room: 'teal-otter',
      clientId: 'c1',
      body: 'hello',
      senderName: 'Ann',
      timestamp: 1,
    });
    const drafts = reduce([
      draftEdited({ room: 'teal-otter', text: 'hello' }),
      sent,
      draftEdited({ room: 'blue-heron', text: 'x' }),
      draftEdited({ room: 'blue-heron', text: '' }),
      draftEdited({ room: 'gold-lynx', text: 'bye' }),
      roomForgotten({ room: 'gold-lynx' }),
    ]);
    expect(drafts).toEqual({});
  });
});
