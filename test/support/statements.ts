import { Connection } from 'pg';

/**
 * Every statement any instance writes to its database while `work` runs (instances in this process
 * share its pg driver), as sent on the wire: a simple query or an extended one's parse.
 */
export async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const spies = (['query', 'parse'] as const).map((method) => {
    const original = Connection.prototype[method] as (...args: unknown[]) => unknown;
    return jest.spyOn(Connection.prototype, method).mockImplementation(function (this: Connection, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      sent.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return original.apply(this, args);
    } as never);
  });
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return sent;
}

/**
 * What a request's authentication sends: a key's lookup, a failure's record, a secret's redemption.
 * (Instances also run their own timers; their statements are not the client's.)
 */
export const authStatements = (sent: string[]): string[] =>
  sent.filter((text) => /take_request_token|record_auth_failure|client_secrets|secret_hash/i.test(text));
