/** Asks for permission to show browser notifications, where the Notification API exists. */
export function requestNotificationPermission(): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'default') return;
  Notification.requestPermission().catch((error: unknown) => {
    console.error('Taco Chat: notification permission request failed', error);
  });
}

/** Every notification of a room carries this tag, so a new one replaces the last. */
export function notificationTag(room: string): string {
  return `taco-chat:${room}`;
}

/** Shows a browser notification reading the sender, then the message, tagged for its room. */
export function showNotification(sender: string, message: string, tag: string): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  try {
    new Notification(sender, { body: message, tag });
  } catch (error) {
    console.error('Taco Chat: could not show a notification', error);
  }
}

/**
 * Why this browser will show no notification whatever the bell says, or `null` when it may: the
 * Notification API is missing, or the user blocked notifications for the site.
 */
export function notificationsBlockedReason(): string | null {
  if (typeof Notification === 'undefined') return 'Not supported by this browser';
  if (Notification.permission === 'denied') {
    return 'Blocked in the browser’s site settings';
  }
  return null;
}
