/**
 * One version of a plpgsql function, as a migration installs it. A version is never edited once a
 * migration installed it (databases in the field ran it); a change is a new version's file, written as
 * its edits to the version before (`revisedFunction`), installed by a new migration, and listed in
 * `CURRENT_FUNCTIONS`. A migration names versions, never restates one.
 */
export interface DatabaseFunction {
  /** `continuum_admit_sessions` */
  readonly name: string;
  /** The name and argument types, as `DROP FUNCTION` takes them. */
  readonly signature: string;
  /** The `CREATE FUNCTION` statement. */
  readonly definition: string;
}

export function databaseFunction(signature: string, definition: string): DatabaseFunction {
  const name = signature.slice(0, signature.indexOf('('));
  if (!definition.includes(`CREATE FUNCTION ${name}(`)) {
    throw new Error(`${signature}: the definition creates another function`);
  }
  return { name, signature, definition };
}

/** One edit of a definition: the text as the version before has it, and as the new version has it. */
export type Revision = readonly [was: string, becomes: string];

/**
 * The next version of `base`: its definition with each edit applied in turn, so a version's file holds
 * only what it changes. Each `was` must stand exactly once in the text so far; an edit that would miss
 * or land twice throws instead of silently giving another function.
 */
export function revisedFunction(
  base: DatabaseFunction,
  revisions: readonly Revision[],
  signature = base.signature,
): DatabaseFunction {
  let definition = base.definition;
  for (const [was, becomes] of revisions) {
    const at = definition.indexOf(was);
    if (at < 0 || definition.indexOf(was, at + 1) >= 0) {
      throw new Error(`${signature}: the edit of ${JSON.stringify(was)} does not stand once in ${base.signature}`);
    }
    definition = definition.slice(0, at) + becomes + definition.slice(at + was.length);
  }
  return databaseFunction(signature, definition);
}
