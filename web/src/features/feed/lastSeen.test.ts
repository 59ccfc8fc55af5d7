import { refuseStorage } from '../../../test/refusedStorage';
import { isNewer, readLastSeen, writeLastSeen } from './lastSeen';

afterEach(() => window.localStorage.clear());

describe('lastSeen', () => {
  it('keeps the furthest point seen per room, a new epoch replacing an old one', () => {
    expect(readLastSeen('a-room')).toBeNull();
    writeLastSeen('a-room', { epoch: 'e1', seq: 5 });
    writeLastSeen('a-room', { epoch: 'e1', seq: 3 });
    expect(readLastSeen('a-room')).toEqual({ epoch: 'e1', seq: 5 });
    writeLastSeen('a-room', { epoch: 'e2', seq: 1 });
    expect(readLastSeen('a-room')).toEqual({ epoch: 'e2', seq: 1 });
    expect(readLastSeen('b-room')).toBeNull();
    expect(window.localStorage.getItem('persist:root')).toBeNull();
  });

  it('reads damaged entries as unknown', () => {
    for (const raw of ['not json', 'null', '{"epoch":1,"seq":"2"}', '[]']) {
      window.localStorage.setItem('taco:seen:a-room', raw);
      expect(readLastSeen('a-room')).toBeNull();
    }
  });

  it('reads nothing and writes nowhere, without throwing, when the browser refuses storage', () => {
    const restore = refuseStorage();
    try {
      expect(() => writeLastSeen('a-room', { epoch: 'e1', seq: 5 })).not.toThrow();
      expect(readLastSeen('a-room')).toBeNull();
    } finally {
      restore();
    }
    expect(readLastSeen('a-room')).toBeNull();
  });

  it('compares within an epoch by seq', () => {
    expect(isNewer({ epoch: 'e1', seq: 2 }, null)).toBe(true);
    expect(isNewer({ epoch: 'e1', seq: 2 }, { epoch: 'e1', seq: 2 })).toBe(false);
    expect(isNewer({ epoch: 'e1', seq: 3 }, { epoch: 'e1', seq: 2 })).toBe(true);
  });
});
