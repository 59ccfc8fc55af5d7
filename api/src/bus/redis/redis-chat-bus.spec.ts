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
    'joined with a seq and epoch, gives exactly the stored entry and the live frame (%s)',
    (room, draft, clientId) => {
      const [storedHead, payloadHead, tail] = appendTexts(room, { ...draft, seq: -1 }, clientId);
      const stored: ChatMessage = { ...draft, seq: 42 };
      // What the append script writes between the parts. The entry keeps the client_id.
      expect(JSON.parse(`${storedHead}42${tail}`)).toStrictEqual(
        clientId === undefined ? stored : { ...stored, client_id: clientId },
      );
      expect(`${payloadHead}42,"epoch":"Ep0ch"${tail}`).toBe(
        messagePayload(room, stored, 'Ep0ch', clientId),
      );
    },
  );
});
