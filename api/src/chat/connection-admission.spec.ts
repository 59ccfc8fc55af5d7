import { type IncomingMessage } from 'node:http';
import { CloseCode, CloseReason } from '@taco/protocol';
import { ClientIpResolver } from '../common/client-ip';
import { AppConfig } from '../config/app-config';
import { loadConfig } from '../config/load-config';
import { type HealthService } from '../health/health.service';
import { type RoomTokenService } from '../rooms/room-token.service';
import { ConnectionAdmission } from './connection-admission';
import { ConnectionLimiter } from './connection-limiter';

function request(url: string, headers: Record<string, string> = {}): IncomingMessage {
  return {
    url,
    headers: { host: 'chat.test', ...headers },
    socket: { remoteAddress: '203.0.113.9' },
  } as unknown as IncomingMessage;
}

function setup(overrides: Partial<AppConfig> = {}) {
  const config = new AppConfig({ ...loadConfig({ WEB_DIST: 'off' }), ...overrides });
  const health = { isDraining: false };
  const tokens = {
    verify: (token: string | null, room: string) => (token === `ok-${room}` ? 'Ann' : null),
  };
  const limiter = new ConnectionLimiter(config);
  const admission = new ConnectionAdmission(
    config,
    health as HealthService,
    tokens as RoomTokenService,
    limiter,
    new ClientIpResolver([]),
  );
  return { admission, health };
}

describe('ConnectionAdmission', () => {
  it('admits a room socket with a valid token, naming room, user and address', () => {
    const { admission } = setup();
    expect(admission.admit(request('/api/room/teal-otter/ws?token=ok-teal-otter'))).toEqual({
      admitted: true,
      room: 'teal-otter',
      name: 'Ann',
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
  ] as const)('refuses %s', (_label, url, headers, code, reason) => {
    const { admission } = setup();
    expect(admission.admit(request(url, headers))).toMatchObject({
      admitted: false,
      code,
      reason: CloseReason[reason],
    });
  });

  it('refuses everything while draining, before reading the token', () => {
    const { admission, health } = setup();
    health.isDraining = true;
    expect(admission.admit(request('/api/room/r1/ws?token=ok-r1'))).toEqual({
      admitted: false,
      room: 'r1',
      code: CloseCode.Restart,
      reason: CloseReason.Restarting,
    });
  });

  it('holds a place per admitted socket until it leaves', () => {
    const { admission } = setup({ connectionsPerIp: 1 });
    const open = () => admission.admit(request('/api/room/r1/ws?token=ok-r1'));
    expect(open().admitted).toBe(true);
    expect(open()).toMatchObject({ code: CloseCode.TryAgainLater, reason: 'Too many connections' });
    admission.leave('203.0.113.9');
    expect(open().admitted).toBe(true);
  });
});
