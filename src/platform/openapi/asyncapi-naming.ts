/**
 * The naming rules a dialect's part of the AsyncAPI document must keep, checked as the part is built
 * so that a new dialect learns at once which name breaks which rule and what to change, instead of
 * meeting a duplicate key, a dangling `$ref` or a parser diagnostic at boot.
 */
import type { SocketDialectDoc } from './socket-dialect-doc';

/** AsyncAPI 3's rule for the keys of components, and what a `$ref` can name without escaping. */
const KEY = /^[A-Za-z0-9._-]+$/;

export class AsyncApiNamingError extends Error {
  override readonly name = 'AsyncApiNamingError';
}

/** What earlier parts of the document already named: a name → who named it. */
export interface TakenNames {
  readonly channels: Map<string, string>;
  readonly schemas: Map<string, string>;
  readonly securitySchemes: Map<string, string>;
}

function refuse(dialect: SocketDialectDoc, problem: string, fix: string): never {
  throw new AsyncApiNamingError(
    `AsyncAPI channel "${dialect.id}" (${dialect.address}): ${problem}. ${fix} ` +
      `(in the dialect's SocketDialectDoc, its *.asyncapi.ts)`,
  );
}

function checkKey(dialect: SocketDialectDoc, what: string, name: string): void {
  if (!KEY.test(name)) {
    refuse(
      dialect,
      `${what} "${name}" is not an AsyncAPI key (letters, digits, ".", "-" and "_" only)`,
      `Rename it to "${name.replace(/[^A-Za-z0-9._-]+/g, '_')}" or another name of those characters`,
    );
  }
}

/** Checks one channel's names, then records them as taken. Throws AsyncApiNamingError. */
export function checkChannelNames(dialect: SocketDialectDoc, taken: TakenNames): void {
  checkKey(dialect, 'the channel id', dialect.id);
  const other = taken.channels.get(dialect.id);
  if (other !== undefined) {
    refuse(
      dialect,
      `two socket dialects are called ${dialect.id} (the other is at ${other}); a channel id names one channel and ` +
        `prefixes its operations (${dialect.id}.client, ${dialect.id}.server)`,
      'Give this one an id of its own; the address may be shared',
    );
  }
  for (const name of Object.keys(dialect.clientMessages)) {
    if (name in dialect.serverMessages) {
      refuse(
        dialect,
        `message ${name} named both ways (a client message and a server message); a channel's messages share one ` +
          `map (channels.${dialect.id}.messages), so each name is used once`,
        `Rename one of them, e.g. the client's to "${name}.request": the name is the document's, the payload ` +
          `(and so what travels) need not change`,
      );
    }
  }
  for (const name of [...Object.keys(dialect.clientMessages), ...Object.keys(dialect.serverMessages)]) {
    checkKey(dialect, 'the message', name);
  }
  for (const name of Object.keys(dialect.schemas ?? {})) {
    checkKey(dialect, 'the schema', name);
    const owner = taken.schemas.get(name);
    if (owner !== undefined) {
      refuse(
        dialect,
        `schema ${name} is already defined by ${owner}; component schemas are one namespace for the whole document`,
        `Refer to that one (#/components/schemas/${name}) if it is the same, or prefix yours with the channel's ` +
          `name if it is not`,
      );
    }
  }
  for (const name of Object.keys(dialect.securitySchemes ?? {})) {
    checkKey(dialect, 'the security scheme', name);
    const owner = taken.securitySchemes.get(name);
    if (owner !== undefined) {
      refuse(
        dialect,
        `security scheme ${name} is already defined by ${owner}`,
        `List ${name} in \`security\` to use that one, or give yours another name`,
      );
    }
  }
  const declared = new Set([...taken.securitySchemes.keys(), ...Object.keys(dialect.securitySchemes ?? {})]);
  for (const name of dialect.security) {
    if (!declared.has(name)) {
      refuse(
        dialect,
        `security names "${name}", which no one defines (defined: ${[...declared].join(', ')})`,
        `Use one of those, or define it in the doc's \`securitySchemes\``,
      );
    }
  }
  const self = `channel ${dialect.id}`;
  taken.channels.set(dialect.id, dialect.address);
  for (const name of Object.keys(dialect.schemas ?? {})) taken.schemas.set(name, self);
  for (const name of Object.keys(dialect.securitySchemes ?? {})) taken.securitySchemes.set(name, self);
}
