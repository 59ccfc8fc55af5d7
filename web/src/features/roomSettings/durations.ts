// Kept apart from the slice: only the create form and the room's chunk spell durations out.

/** "1 hour", "7 days", "1 minute", "90 seconds": how long a `disappear_after` is, in words. */
export function durationText(seconds: number): string {
  const units: Array<[number, string]> = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size && seconds % size === 0) {
      const count = seconds / size;
      return `${count} ${unit}${count === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** A disappearing-messages choice as a menu or the header shows it: "Off", "1 hour"... */
export function disappearLabel(seconds: number): string {
  return seconds === 0 ? 'Off' : durationText(seconds);
}
