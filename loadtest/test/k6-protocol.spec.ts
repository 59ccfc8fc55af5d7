import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const K6_DIR = resolve(__dirname, '..', 'k6');

/** Every name a k6 script imports from ./protocol.js (built from @taco/protocol by build:k6). */
function importedNames(): string[] {
  const names = readdirSync(K6_DIR)
    .filter((file) => file.endsWith('.js') && file !== 'protocol.js')
    .flatMap((file) => {
      const source = readFileSync(join(K6_DIR, file), 'utf8');
      const found = /import\s*\{([^}]*)\}\s*from\s*'\.\/protocol\.js'/.exec(source);
      return found?.[1]?.split(',').map((name) => name.trim()) ?? [];
    });
  return [...new Set(names.filter((name) => name.length > 0))];
}

describe('the k6 build of the wire contract (loadtest/k6/protocol.js)', () => {
  it('exports every name the k6 scripts import, as @taco/protocol does', async () => {
    const names = importedNames();
    expect(names).toEqual(expect.arrayContaining(['FrameType', 'ApiPath', 'decideReconnect']));
    const built = (await import(join(K6_DIR, 'protocol.js'))) as Record<string, unknown>;
    const protocol = (await import('@taco/protocol')) as Record<string, unknown>;
    for (const name of names) {
      expect(built[name]).toBeDefined();
      expect(JSON.stringify(built[name])).toBe(JSON.stringify(protocol[name]));
    }
  });
});
