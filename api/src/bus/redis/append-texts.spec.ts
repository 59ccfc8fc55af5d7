import { type ChatMessage } from '@taco/protocol';
import { messagePayload } from '../room-events';
import { decodeEnvelope, envelopeHeader } from './envelope';
import { appendTexts } from './append-texts';

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
    'joined with a seq and epoch, gives exactly the stored entry and the live envelope (%s)',
    (room, draft, clientId) => {
      const header = envelopeHeader({ exceptConnection: 'conn-7' });
      const [message, frameHead, tail] = appendTexts(room, { ...draft, seq: -1 }, clientId, header);
      const stored: ChatMessage = { ...draft, seq: 42 };
      // What the append script writes around the parts. The entry keeps the client_id.
      expect(JSON.parse(`{${message}42${tail}`)).toStrictEqual(
        clientId === undefined ? stored : { ...stored, client_id: clientId },
      );
      expect(
        decodeEnvelope(Buffer.from(`${frameHead}${message}42,"epoch":"Ep0ch"${tail}`)),
      ).toEqual({
        exceptConnection: 'conn-7',
        payload: Buffer.from(messagePayload(room, stored, 'Ep0ch', clientId)),
      });
    },
  );
});
