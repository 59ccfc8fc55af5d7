import {
  ApiPath,
  type CreateRoomRequest,
  ROOM_EXISTS_MESSAGE,
  ROOM_LOCKED_MESSAGE,
} from '@taco/protocol';
import { roomCipher } from '@taco/protocol/e2e-crypto';
import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '../../../test/render';
import { API, server, SUGGESTED_ROOM } from '../../../test/server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const SLOW = { timeout: 5000 };
const userInput = () => screen.getByLabelText('Your Name');
const roomInput = () => screen.getByLabelText('Room Name');

/** The suggestion offers these disappearing choices (a deployment whose shortest is 60 s). */
function offerChoices() {
  server.use(
    http.get(`${API}${ApiPath.roomName}`, () =>
      HttpResponse.json({ room_id: SUGGESTED_ROOM, disappear_choices: [0, 60, 86400, 604800] }),
    ),
  );
}

/** Records every create request, and answers it as the server would. */
function recordCreates(answer?: () => Response) {
  const bodies: CreateRoomRequest[] = [];
  server.use(
    http.post(`${API}${ApiPath.createRoom}`, async ({ request }) => {
      const body = (await request.json()) as CreateRoomRequest;
      bodies.push(body);
      if (answer) return answer();
      return HttpResponse.json(
        {
          name: body.sender,
          room: body.room_id,
          token: 't',
          creator: true,
          settings: {
            encrypted: body.encrypted ?? false,
            key_check: body.key_check ?? null,
            locked: false,
            disappear_after: body.disappear_after ?? 0,
            disappear_choices: [0, 60, 86400, 604800],
            creator: body.sender,
          },
        },
        { status: 201 },
      );
    }),
  );
  return bodies;
}

describe('Create Room page: privacy options', () => {
  it('offers encryption off by default, and the disappearing choices the server gives', async () => {
    offerChoices();
    renderApp();
    expect(screen.getByRole('checkbox', { name: 'End-to-end encrypted' })).not.toBeChecked();
    const select = await screen.findByRole('combobox', { name: 'Disappearing messages' }, SLOW);
    expect([...(select as HTMLSelectElement).options].map((o) => o.textContent)).toEqual([
      'Off',
      '1 minute',
      '1 day',
      '7 days',
    ]);
    expect(select).toHaveValue('0');
  });

  it('creates an encrypted room with its key check, and opens the link with the key', async () => {
    offerChoices();
    const bodies = recordCreates();
    const { user } = renderApp();
    const select = await screen.findByRole('combobox', { name: 'Disappearing messages' }, SLOW);
    await user.selectOptions(select, '1 minute');
    await user.click(screen.getByRole('checkbox', { name: 'End-to-end encrypted' }));
    await user.type(userInput(), 'Ana');
    await user.click(screen.getByRole('button', { name: 'Create Room' }));
    await waitFor(
      () => expect(screen.getByTestId('location')).toHaveTextContent(`/r/${SUGGESTED_ROOM}`),
      SLOW,
    );
    const key = screen.getByTestId('location').getAttribute('data-hash')!.slice(1);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bodies).toEqual([
      {
        room_id: SUGGESTED_ROOM,
        sender: 'Ana',
        encrypted: true,
        key_check: (await roomCipher(key, SUGGESTED_ROOM)).keyCheck,
        disappear_after: 60,
      },
    ]);
  });

  it('creates a plain room without a key in its link', async () => {
    const bodies = recordCreates();
    const { user } = renderApp();
    await user.type(userInput(), 'Ana');
    await user.click(screen.getByRole('button', { name: 'Create Room' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(`/r/`), SLOW);
    expect(screen.getByTestId('location').getAttribute('data-hash')).toBe('');
    expect(bodies[0]).not.toHaveProperty('encrypted');
  });

  it.each([
    [409, ROOM_EXISTS_MESSAGE],
    [423, ROOM_LOCKED_MESSAGE],
  ])('shows a %s (%s) on the room name field', async (status, message) => {
    recordCreates(() =>
      HttpResponse.json({ statusCode: status, error: 'Refused', message }, { status }),
    );
    const { user } = renderApp();
    await user.click(screen.getByRole('checkbox', { name: 'End-to-end encrypted' }));
    await user.type(userInput(), 'Ana');
    await user.click(screen.getByRole('button', { name: 'Create Room' }));
    expect(await screen.findByText(message, {}, SLOW)).toBeVisible();
    expect(roomInput()).toHaveAttribute('aria-invalid', 'true');
    expect(roomInput()).toHaveFocus();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
    // Another name clears it.
    await user.type(roomInput(), 'x');
    expect(screen.queryByText(message)).not.toBeInTheDocument();
  });
});
