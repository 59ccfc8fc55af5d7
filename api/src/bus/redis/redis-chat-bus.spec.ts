import { type ChatMessage } from '@taco/protocol';
import { messagePayload } from '../room-events';
import { appendTexts } from './redis-chat-bus';

describe('appendTexts', () => {
  const drafts: [string, Omit<ChatMessage, 'seq'>, string | undefined][] = [
    ['teal-otter', { sender: 'Ann', body: 'hello', timestamp: 1732427000.123 }, undefined],
    ['teal-otter', { sender: 'Ann', body: 'hello', timestamp: 1732427000 }, 'c-1'],
    [
      'room "quoted"',
      { sender: 'Zoë', body: '{"seq":-1,"t":"\\n"} 🌮 "seq":-1', timestamp: 1.5 },
      '"seq":-1',
    ],
  ];

  it.each(drafts)(
    'joined with a seq and epoch, gives exactly the stored JSON and the live frame (%s)',
    (room, draft, clientId) => {
      const [storedHead, storedTail, payloadHead, payloadTail] = appendTexts(
        room,
        { ...draft, seq: -1 },
        clientId,
      );
      const stored: ChatMessage = { ...draft, seq: 42 };
      // What the append script writes between the parts.
      expect(`${storedHead}42${storedTail}`).toBe(JSON.stringify(stored));
      expect(`${payloadHead}42,"epoch":"Ep0ch"${payloadTail}`).toBe(
        messagePayload(room, stored, 'Ep0ch', clientId),
      );
    },
  );
});
