import { EventEmitter } from 'node:events';
import { type IncomingMessage } from 'node:http';
import { CloseCode, CloseReason } from '@taco/protocol';
import { ClientIpResolver } from '../common/client-ip';
import { AppConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { type HealthService } from '../health/health.service';
import { type RoomTokenService } from '../rooms/room-token.service';
import { ConnectionAdmission } from './connection-admission';
import { MemoryTicketStore } from '../bus/memory/memory-ticket.store';
import { MemoryConnectionLimiter } from '../bus/memory/memory-connection-limiter';

function request(url: string, headers: Record<string, string> = {}): IncomingMessage {
  return {
    url,
    headers: { host: 'chat.test', ...headers },
    socket: Object.assign(new EventEmitter(), { remoteAddress: '203.0.113.9' }),
  } as unknown as IncomingMessage;
}

function setup(overrides: Partial<AppConfig> = {}) {
  const config = new AppConfig({ ...loadConfig({ WEB_DIST: 'off' }), ...overrides });
  const health = { isDraining: false };
  const tokens = {
    verify: (token: string | null, room: string) =>
      token === `ok-${room}` ? { name: 'Ann', holder: 'ann-credential' } : null,
  };
  const limiter = new MemoryConnectionLimiter(config.connectionsPerIp);
  let now = 1_000_000;
  const clock = { advance: (ms: number) => (now += ms) };
  const tickets = new MemoryTicketStore(() => now);
  const admission = new ConnectionAdmission(
    config,
    health as HealthService,
    tokens as RoomTokenService,
    tickets,
    limiter,
    new ClientIpResolver([]),
  );
  return { admission, health, tickets, clock };
}

describe('ConnectionAdmission', () => {
  it('admits a room socket with a valid token, naming room, user and address', async () => {
    const { admission } = setup();
    expect(await admission.admit(request('/api/room/teal-otter/ws?token=ok-teal-otter'))).toEqual({
      admitted: true,
      room: 'teal-otter',
      name: 'Ann',
      holder: 'ann-credential',
      ip: '203.0.113.9',
    });
  });

  it.each([
    ['a path that is not a room socket', '/api/other', {}, CloseCode.Policy, 'NotARoomSocket'],
    [
      'an Origin of another host',
      '/api/room/r1/ws?token=ok-r1',
      { origin: 'https://elsewhere.test' },
      CloseCode.Policy,
      'OriginNotAllowed',
    ],
    [
      'a token for another room',
      '/api/room/r1/ws?token=ok-r2',
      {},
      CloseCode.Unauthorized,
      'Unauthorized',
    ],
    ['no token', '/api/room/r1/ws', {}, CloseCode.Unauthorized, 'Unauthorized'],
  ] as const)('refuses %s', async (_label, url, headers, code, reason) => {
    const { admission } = setup();
    expect(await admission.admit(request(url, headers))).toMatchObject({
      admitted: false,
      code,
      reason: CloseReason[reason],
    });
  });

  it('refuses everything while draining, before reading the token', async () => {
    const { admission, health } = setup();
    health.isDraining = true;
    expect(await admission.admit(request('/api/room/r1/ws?token=ok-r1'))).toEqual({
      admitted: false,
      room: 'r1',
      code: CloseCode.Restart,
      reason: CloseReason.Restarting,
    });
  });

  it('holds a place per admitted socket until it leaves', async () => {
    const { admission } = setup({ connectionsPerIp: 1 });
    const open = () => admission.admit(request('/api/room/r1/ws?token=ok-r1'));
    expect((await open()).admitted).toBe(true);
    expect(await open()).toMatchObject({
      code: CloseCode.TryAgainLater,
      reason: 'Too many connections',
    });
    admission.leave('203.0.113.9');
    expect((await open()).admitted).toBe(true);
  });

  it('admits a ticket once, for its own room, within its lifetime', async () => {
    const { admission, tickets, clock } = setup();
    const ticket = await tickets.issue('r1', { name: 'Ann', holder: 'ann-credential' });
    const open = (room: string, value: string) =>
      admission.admit(request(`/api/room/${room}/ws?ticket=${value}`));
    expect(await open('r1', ticket)).toMatchObject({
      admitted: true,
      room: 'r1',
      name: 'Ann',
      holder: 'ann-credential',
    });
    expect(await open('r1', ticket)).toMatchObject({ code: CloseCode.Unauthorized });

    const elsewhere = await tickets.issue('r2', { name: 'Ann', holder: 'ann-credential' });
    expect(await open('r1', elsewhere)).toMatchObject({ code: CloseCode.Unauthorized });

    const late = await tickets.issue('r1', { name: 'Ann', holder: 'ann-credential' });
    clock.advance(30_001);
    expect(await open('r1', late)).toMatchObject({ code: CloseCode.Unauthorized });
    expect(await open('r1', 'not-a-ticket')).toMatchObject({ code: CloseCode.Unauthorized });
  });

  it('hands the gateway the decision made before the upgrade, once', async () => {
    const { admission } = setup({ connectionsPerIp: 1 });
    const first = request('/api/room/r1/ws?token=ok-r1');
    await admission.prepare(first);
    expect(admission.take(first)).toMatchObject({ admitted: true, name: 'Ann' });
    expect(admission.take(first)).toMatchObject({ admitted: false });
  });

  it('keeps nothing of the request on an upgraded socket: the gateway owns its place', async () => {
    const { admission } = setup({ connectionsPerIp: 1 });
    const upgraded = request('/api/room/r1/ws?token=ok-r1');
    await admission.prepare(upgraded);
    admission.take(upgraded);
    // A listener left on the TCP socket would hold the request, headers and all, while it is open.
    expect(upgraded.socket.listenerCount('close')).toBe(0);
    // Its close is the gateway's to handle: the place is not given back twice.
    upgraded.socket.emit('close');
    const next = request('/api/room/r1/ws?token=ok-r1');
    await admission.prepare(next);
    expect(admission.take(next)).toMatchObject({ admitted: false, code: CloseCode.TryAgainLater });
  });

  it('gives the place back when the client goes away before the upgrade completes', async () => {
    const { admission } = setup({ connectionsPerIp: 1 });
    const gone = request('/api/room/r1/ws?token=ok-r1');
    await admission.prepare(gone);
    gone.socket.emit('close');
    const next = request('/api/room/r1/ws?token=ok-r1');
    await admission.prepare(next);
    expect(admission.take(next)).toMatchObject({ admitted: true });
  });
});
