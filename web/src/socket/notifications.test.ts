import {
  notificationsBlockedReason,
  notificationTag,
  requestNotificationPermission,
  showNotification,
} from './notifications';

type Permission = 'default' | 'granted' | 'denied';

function installNotification(permission: Permission) {
  const shown: Array<{ title: string; body: string | undefined; tag: string | undefined }> = [];
  const requestPermission = jest.fn(() => Promise.resolve<Permission>('granted'));
  class FakeNotification {
    static permission = permission;
    static requestPermission = requestPermission;
    constructor(title: string, options?: { body?: string; tag?: string }) {
      shown.push({ title, body: options?.body, tag: options?.tag });
    }
  }
  Object.defineProperty(window, 'Notification', { configurable: true, value: FakeNotification });
  return { shown, requestPermission };
}

afterEach(() => {
  Reflect.deleteProperty(window, 'Notification');
});

describe('browser notifications', () => {
  it('asks for permission at start only when it was never given or refused', () => {
    const { requestPermission } = installNotification('default');
    requestNotificationPermission();
    expect(requestPermission).toHaveBeenCalledTimes(1);
    const denied = installNotification('denied');
    requestNotificationPermission();
    expect(denied.requestPermission).not.toHaveBeenCalled();
  });

  it('shows the sender as title and the message as body once permitted, tagged by room', () => {
    const { shown } = installNotification('granted');
    showNotification('Bob', 'Hi there', notificationTag('teal-otter'));
    showNotification('Ann', 'Hello', notificationTag('teal-otter'));
    expect(shown).toEqual([
      { title: 'Bob', body: 'Hi there', tag: 'taco-chat:teal-otter' },
      { title: 'Ann', body: 'Hello', tag: 'taco-chat:teal-otter' },
    ]);
    expect(notificationTag('red-fox')).not.toBe(notificationTag('teal-otter'));
  });

  it('does nothing without permission or without the API', () => {
    const { shown } = installNotification('denied');
    showNotification('Bob', 'Hi there', 'tag');
    expect(shown).toEqual([]);
    Reflect.deleteProperty(window, 'Notification');
    expect(() => showNotification('Bob', 'Hi', 'tag')).not.toThrow();
    expect(() => requestNotificationPermission()).not.toThrow();
  });

  it('says why none will show: no API, or blocked for the site; nothing when they may', () => {
    expect(notificationsBlockedReason()).toBe('Not supported by this browser');
    installNotification('denied');
    expect(notificationsBlockedReason()).toBe('Blocked in the browser’s site settings');
    installNotification('default');
    expect(notificationsBlockedReason()).toBeNull();
    installNotification('granted');
    expect(notificationsBlockedReason()).toBeNull();
  });
});
