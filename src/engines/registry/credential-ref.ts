/** Where a credential is read from, never the credential: `{"env": "NAME"}` or `{"file": "/run/secrets/key"}`. */
export type CredentialRef = { env: string } | { file: string };

export const CREDENTIAL_REF_RULE = 'must be {"env": "VARIABLE"} or {"file": "/path"} (never the key itself)';

/**
 * A credential reference from a configuration value: null when absent; anything else (a key pasted in
 * as a string, an object with other keys) is refused through `refuse`, with CREDENTIAL_REF_RULE.
 */
export function credentialRef(value: unknown, refuse: (rule: string) => Error): CredentialRef | null {
  if (value === undefined) return null;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const ref = value as Record<string, unknown>;
    const keys = Object.keys(ref);
    if (keys.length === 1 && typeof ref.env === 'string' && ref.env !== '') return { env: ref.env };
    if (keys.length === 1 && typeof ref.file === 'string' && ref.file !== '') return { file: ref.file };
  }
  throw refuse(CREDENTIAL_REF_RULE);
}
