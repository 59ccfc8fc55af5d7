import { decodeEnvelope, encodeEnvelope } from './envelope';
import { roomKeys, roomOfChannel } from './redis-keys';

describe('envelope', () => {
  it('round-trips an event with and without an except name', () => {
    const payload = '{"type":2,"room":"teal-otter","sender":"Ann","typing":true}';
    for (const event of [{ payload }, { payload, except: 'Ann Lee' }]) {
      const decoded = decodeEnvelope(Buffer.from(encodeEnvelope(event)));
      expect(decoded && { ...decoded, payload: decoded.payload.toString() }).toEqual(event);
    }
  });

  it('carries a control event: the creator holder and the removed one', () => {
    const payload = '{"type":9,"room":"teal-otter","locked":true,"is_creator":false}';
    for (const event of [
      { payload, control: { creator: 'jti-ann' } },
      { payload, control: { creator: null } },
      { payload, control: { creator: 'jti-ann', removed: 'jti-bob' } },
    ]) {
      const decoded = decodeEnvelope(Buffer.from(encodeEnvelope(event)));
      expect(decoded && { ...decoded, payload: decoded.payload.toString() }).toEqual(event);
    }
  });

  it('keeps newlines and multi-byte text inside the payload', () => {
    const payload = JSON.stringify({ type: 1, body: 'line one\nline two 🌮', sender: 'Zoë' });
    const decoded = decodeEnvelope(Buffer.from(encodeEnvelope({ payload, except: 'Zoë' })));
    expect(decoded?.except).toBe('Zoë');
    expect(decoded?.payload.toString()).toBe(payload);
  });

  it('carries the connection whose copy is held back, with or without an except name', () => {
    const payload = '{"type":1,"room":"teal-otter","sender":"Ann","body":"hi","seq":3}';
    for (const event of [
      { payload, exceptConnection: 'api-1:17' },
      { payload, except: 'Ann', exceptConnection: 'api-1:17' },
    ]) {
      const decoded = decodeEnvelope(Buffer.from(encodeEnvelope(event)));
      expect(decoded && { ...decoded, payload: decoded.payload.toString() }).toEqual(event);
    }
  });

  it('refuses a payload that is not an envelope', () => {
    expect(decodeEnvelope(Buffer.from('no newline here'))).toBeNull();
  });
});

describe('room keys', () => {
  it('puts the room in a hash tag so one room lives in one cluster slot', () => {
    expect(roomKeys('teal-otter')).toEqual({
      log: 'chat:{teal-otter}:log',
      seq: 'chat:{teal-otter}:seq',
      epoch: 'chat:{teal-otter}:epoch',
      cleared: 'chat:{teal-otter}:cleared',
      presence: 'chat:{teal-otter}:presence',
      settings: 'chat:{teal-otter}:room',
      removed: 'chat:{teal-otter}:removed',
      channel: 'chat:{teal-otter}',
    });
  });

  it('reads the room back from its channel, as text or as the subscriber hands it over', () => {
    for (const room of ['café-öwl', 'a', 'x}y{z']) {
      const { channel } = roomKeys(room);
      expect(roomOfChannel(channel)).toBe(room);
      expect(roomOfChannel(Buffer.from(channel))).toBe(room);
    }
    for (const other of ['other:channel', 'chat:{}', 'chat:{teal-otter', 'chat:teal-otter}']) {
      expect(roomOfChannel(other)).toBeNull();
      expect(roomOfChannel(Buffer.from(other))).toBeNull();
    }
  });
});
