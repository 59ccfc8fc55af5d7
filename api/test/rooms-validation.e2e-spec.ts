import {
  BODY_NOT_JSON_MESSAGE,
  BODY_NOT_JSON_TYPE_MESSAGE,
  BODY_NOT_OBJECT_MESSAGE,
  ApiPath,
  ValidationMessage,
} from '@taco/protocol';
import { useTestApp } from './support/test-app';

describe('Rooms HTTP API', () => {
  const t = useTestApp();

  describe('validation', () => {
    const long = (n: number) => 'x'.repeat(n);
    it.each([
      ['a missing room id', { sender: 'Ann' }, [ValidationMessage.RoomNameTooShort]],
      [
        'a 2-character room id',
        { room_id: 'ab', sender: 'Ann' },
        [ValidationMessage.RoomNameTooShort],
      ],
      [
        'a 41-character room id',
        { room_id: long(41), sender: 'Ann' },
        [ValidationMessage.RoomNameTooLong],
      ],
      [
        'a room id with a space',
        { room_id: 'teal otter', sender: 'Ann' },
        [ValidationMessage.RoomNameInvalid],
      ],
      [
        'a room id with a slash',
        { room_id: 'teal/otter', sender: 'Ann' },
        [ValidationMessage.RoomNameInvalid],
      ],
      [
        'a room id with a zero-width space',
        { room_id: 'teal\u200Botter', sender: 'Ann' },
        [ValidationMessage.RoomNameInvalid],
      ],
      [
        'a room id that is a number',
        { room_id: 12345, sender: 'Ann' },
        [ValidationMessage.RoomNameInvalid],
      ],
      ['a missing user name', { room_id: 'teal-otter' }, [ValidationMessage.UserNameTooShort]],
      [
        'a user name of 2 after trimming',
        { room_id: 'teal-otter', sender: '  ab  ' },
        [ValidationMessage.UserNameTooShort],
      ],
      [
        'a 33-character user name',
        { room_id: 'teal-otter', sender: long(33) },
        [ValidationMessage.UserNameTooLong],
      ],
      [
        'a user name with @',
        { room_id: 'teal-otter', sender: 'ann@home' },
        [ValidationMessage.UserNameInvalid],
      ],
      [
        'a user name with a bidi override',
        { room_id: 'teal-otter', sender: 'ann\u202Eevil' },
        [ValidationMessage.UserNameInvalid],
      ],
      [
        'a user name that is an object',
        { room_id: 'teal-otter', sender: { name: 'x' } },
        [ValidationMessage.UserNameInvalid],
      ],
      [
        'both wrong',
        { room_id: 'a', sender: 'b' },
        [ValidationMessage.RoomNameTooShort, ValidationMessage.UserNameTooShort],
      ],
    ])('refuses %s with 400 and the exact text', async (_label, body, messages) => {
      const response = await t.post(ApiPath.createRoom, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: messages,
      });
    });

    it('validates the room id in the credentials path', async () => {
      const response = await t.post(`/api/room/${encodeURIComponent('a b c')}`, {
        sender_id: 'Ann',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ message: [ValidationMessage.RoomNameInvalid] });
    });

    it.each([
      ['POST', '/api/room/abc%ED%A0%80', { sender_id: 'Ann' }],
      ['POST', '/api/room/%E0%A4%A', { sender_id: 'Ann' }],
      ['GET', '/api/room/abc%ED%A0%80', undefined],
      ['POST', '/api/room/abc%FF/ticket', undefined],
    ])(
      'answers %s %s (not valid percent-encoding) as an invalid room name',
      async (method, path, body) => {
        const response = await fetch(`${t.baseUrl}${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({
          statusCode: 400,
          error: 'Bad Request',
          message: [ValidationMessage.RoomNameInvalid],
        });
      },
    );

    it('validates the name in the credentials body', async () => {
      const response = await t.post(ApiPath.roomCredentials('teal-otter'), { sender_id: 'a<b>c' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ message: [ValidationMessage.UserNameInvalid] });
    });

    it.each([
      ['malformed JSON', '{"room_id":', BODY_NOT_JSON_MESSAGE],
      ['only whitespace', ' \n ', BODY_NOT_JSON_MESSAGE],
      ['a JSON array', '[1,2]', BODY_NOT_OBJECT_MESSAGE],
      ['a JSON string', '"teal-otter"', BODY_NOT_OBJECT_MESSAGE],
      ['null', 'null', BODY_NOT_OBJECT_MESSAGE],
    ])('answers %s with a 400 JSON error saying so, never a 500', async (_label, raw, message) => {
      for (const path of [ApiPath.createRoom, ApiPath.roomCredentials('teal-otter')]) {
        const response = await t.post(path, raw);
        expect(response.status).toBe(400);
        const body = (await response.json()) as { statusCode: number; error: string };
        expect(body).toEqual({ statusCode: 400, error: 'Bad Request', message: [message] });
      }
    });

    it.each([
      ['application/json', 'application/json'],
      ['a charset', 'application/json; charset=utf-8'],
      ['a +json type', 'application/vnd.api+json'],
    ])('reads a JSON body sent as %s', async (_label, type) => {
      const body = JSON.stringify({ room_id: 'plain-heron', sender: 'Ann', sender_id: 'Ann' });
      const headers = { 'content-type': type };
      const created = await fetch(`${t.baseUrl}${ApiPath.createRoom}`, {
        method: 'POST',
        headers,
        body: Buffer.from(body),
      });
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({ name: 'Ann', room: 'plain-heron' });
      const credentials = await fetch(`${t.baseUrl}${ApiPath.roomCredentials('plain-heron')}`, {
        method: 'POST',
        headers,
        body: Buffer.from(body),
      });
      expect(credentials.status).toBe(200);
      expect(await credentials.json()).toMatchObject({ sender_id: 'Ann', room_id: 'plain-heron' });
    });

    // A foreign page may send these without a CORS preflight (a form, `fetch` with a string
    // body, `navigator.sendBeacon`): none of them may reach a route and spend the budget.
    it.each([
      ['no Content-Type', undefined, '{"room_id":"plain-heron","sender":"Ann"}'],
      ['text/plain (fetch with a string)', 'text/plain;charset=UTF-8', '{"sender":"Ann"}'],
      ['a form type (curl -d)', 'application/x-www-form-urlencoded', '{"sender":"Ann"}'],
      ['a form', 'application/x-www-form-urlencoded', 'room_id=plain-heron&sender=Ann'],
      ['multipart', 'multipart/form-data; boundary=x', '--x\r\n\r\nAnn\r\n--x--'],
      ['XML', 'application/xml', '<room_id>teal-otter</room_id>'],
    ])('answers a body sent with %s with a 415 saying to send JSON', async (_label, type, raw) => {
      const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
      for (const path of [
        ApiPath.createRoom,
        ApiPath.roomCredentials('plain-heron'),
        ApiPath.roomTicket('plain-heron'),
      ]) {
        const response = await fetch(`${t.baseUrl}${path}`, {
          method: 'POST',
          headers,
          body: Buffer.from(raw),
        });
        expect(response.status).toBe(415);
        expect(await response.json()).toEqual({
          statusCode: 415,
          error: 'Unsupported Media Type',
          message: [BODY_NOT_JSON_TYPE_MESSAGE],
        });
      }
    });

    it('refuses a body over the size limit with 413', async () => {
      const response = await t.post(ApiPath.createRoom, {
        room_id: 'x'.repeat(10_000),
        sender: 'Ann',
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ statusCode: 413 });
    });
  });
});
