import { type ChatMessage } from '@taco/protocol';
import { messagePayload } from '../room-events';
import { decodeEnvelope } from './envelope';
import { appendTexts, entryHead } from './append-texts';

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
      const [message, frameHead, tail] = appendTexts(
        room,
        { ...draft, seq: -1 },
        clientId,
        'conn-7',
      );
      const stored: ChatMessage = { ...draft, seq: 42 };
      // What the append script writes around the parts. The entry keeps the client_id, and the
      // connection whose copy is held back.
      expect(JSON.parse(`${entryHead('conn-7')}${message}42${tail}`)).toStrictEqual({
        except_connection: 'conn-7',
        ...stored,
        ...(clientId === undefined ? {} : { client_id: clientId }),
      });
      expect(
        decodeEnvelope(Buffer.from(`${frameHead}${message}42,"epoch":"Ep0ch"${tail}`)),
      ).toEqual({
        exceptConnection: 'conn-7',
        payload: Buffer.from(messagePayload(room, stored, 'Ep0ch', clientId)),
      });
    },
  );

  it('names no connection when no copy is held back', () => {
    const draft = { sender: 'Ann', body: 'hello', timestamp: 1.5, seq: -1 };
    const [message, frameHead, tail] = appendTexts('teal-otter', draft, 'c-1', undefined);
    expect(JSON.parse(`${entryHead(undefined)}${message}7${tail}`)).toStrictEqual({
      ...draft,
      seq: 7,
      client_id: 'c-1',
    });
    expect(decodeEnvelope(Buffer.from(`${frameHead}${message}7,"epoch":"E"${tail}`))).toEqual({
      payload: Buffer.from(messagePayload('teal-otter', { ...draft, seq: 7 }, 'E', 'c-1')),
    });
  });
});
