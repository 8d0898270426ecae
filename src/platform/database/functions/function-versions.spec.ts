import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import type { DatabaseFunction } from './database-function';

/** Every version file of this folder, by file name. */
function versions(): Map<string, DatabaseFunction> {
  const found = new Map<string, DatabaseFunction>();
  for (const file of readdirSync(__dirname).filter((f) => /\.v\d+\.ts$/.test(f))) {
    for (const value of Object.values(require(`./${file}`) as Record<string, DatabaseFunction>)) {
      found.set(file, value);
    }
  }
  return found;
}

/**
 * Databases in the field ran these definitions: editing one would give a fresh database a function that
 * no existing database has. Like a migration, a version is only ever followed by a new one, so each
 * is pinned here by its SHA-256 (the way Flyway checksums applied migrations).
 */
const PINNED: Record<string, string> = {
  'admit-session.v1.ts': 'c17ddaa2816bc9f57a1c68db3ed44b3ac7ff21833afc8b339cd99f2af8a4ebb0',
  'admit-sessions.v1.ts': '83b39e8c825969ee0a41b6a984248e38f9c78f4615abdae907122f3f30848a37',
  'admit-sessions.v2.ts': '00e177921c5e12533539a114ccb1bcd12fb1bab237f9174783fba19de7b7d446',
  'admit-sessions.v3.ts': '5a4d0678958e63ee16302ef4fa85e3586454538b86c66e0fa4c82b1960a045b2',
  'record-auth-failure.v1.ts': 'cd935fd8c285cd4816554b7800b68f9c15ba4334f707a06bbc6dbf7ac953c252',
  'record-meter-batches.v1.ts': 'a4d63f065118670beff1f99e80c83a02afd7499ba22c1db5aad730bf429a888b',
  'record-meter-batches.v2.ts': '6f84a2e9faef4e0f76ebec865ca90ddda2b59f5c26f58c22328709709c661dfc',
  'take-request-token.v1.ts': '4e1f2bb8e94d1027a34c56a5faba9575656a37168b44be65ab24bcc3b3f92315',
  'take-request-token.v2.ts': 'f2586d1388abcfe31e762bb0ee1e6830f18cacd3ff39659b5f277aca208dcebc',
};

describe('database function versions', () => {
  it('pins every version file, unchanged since a migration installed it', () => {
    const actual = Object.fromEntries(
      [...versions()].map(([file, fn]) => [file, createHash('sha256').update(fn.definition).digest('hex')]),
    );
    expect(actual).toEqual(PINNED);
  });
});
