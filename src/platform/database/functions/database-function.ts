/**
 * One version of a plpgsql function, as a migration installs it. A version is never edited once a
 * migration installed it (databases in the field ran it); a change is a new version's file, installed
 * by a new migration, and listed in `CURRENT_FUNCTIONS`. A migration names versions, never restates one.
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
