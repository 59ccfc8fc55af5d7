/** Waits until `check` holds, polling every `pollMs`; throws once `timeoutMs` has passed. */
export async function until(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 5000,
  pollMs = 25,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
