/** A part of the benchmark that ran (its figures), failed (its error), or was left out (both null). */
export interface Outcome<T> {
  figures: T | null;
  error: string | null;
}

export const skipped = (): Outcome<never> => ({ figures: null, error: null });

/** The figures of a run, or its error's message, written with `log` when given. */
export async function settle<T>(
  run: () => Promise<T>,
  log?: (line: string) => void,
): Promise<Outcome<T>> {
  try {
    return { figures: await run(), error: null };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log?.(`    error: ${message}`);
    return { figures: null, error: message };
  }
}
