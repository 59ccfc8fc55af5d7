/** Asks for permission to show browser notifications, where the Notification API exists. */
export function requestNotificationPermission(): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'default') return;
  Notification.requestPermission().catch((error: unknown) => {
    console.error('Taco Chat: notification permission request failed', error);
  });
}

/** Shows a browser notification reading the sender, then the message. */
export function showNotification(sender: string, message: string): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  try {
    new Notification(sender, { body: message });
  } catch (error) {
    console.error('Taco Chat: could not show a notification', error);
  }
}
