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
