import { ApiPath, NAME_TAKEN_MESSAGE } from '@taco/protocol';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

export const API = 'http://localhost';

/** The HTTP API (protocol/src/http.ts) as tests need it; tests override handlers per case. */
/** The name `GET /api/room-name` suggests in tests unless a test says otherwise. */
export const SUGGESTED_ROOM = 'teal-otter';

export const handlers = [
  http.get(`${API}${ApiPath.roomName}`, () => HttpResponse.json({ room_id: SUGGESTED_ROOM })),
  http.get(`${API}/api/room/:room`, ({ params }) =>
    HttpResponse.json({ room_id: String(params.room), participants: 0 }),
  ),
  http.post(`${API}${ApiPath.createRoom}`, async ({ request }) => {
    const body = (await request.json()) as { room_id: string; sender: string };
    return HttpResponse.json(
      { name: body.sender.trim(), room: body.room_id, token: `token-${body.sender.trim()}` },
      { status: 201 },
    );
  }),
  http.post(`${API}/api/room/:room`, async ({ request, params }) => {
    const body = (await request.json()) as { sender_id: string };
    const name = body.sender_id.trim();
    if (name.toLowerCase() === 'taken') {
      return HttpResponse.json(
        { statusCode: 409, error: 'Conflict', message: NAME_TAKEN_MESSAGE },
        { status: 409 },
      );
    }
    return HttpResponse.json({
      room_id: String(params.room),
      sender_id: name,
      token: `token-${name}`,
    });
  }),
];

export const server = setupServer(...handlers);
