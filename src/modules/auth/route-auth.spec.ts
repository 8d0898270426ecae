import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ROUTE_AUTH } from './authenticated.decorator';

// Every HTTP route with the credential the global guard asks of it. A route added, moved or opened
// without a decision changes this list, so the change is reviewed here. Undecorated routes are listed
// as the guard treats them: api_key (deny by default).
const EXPECTED = `
GET admin/projects admin
POST admin/projects admin
GET admin/projects/:project_id admin
GET admin/projects/:project_id/keys admin
POST admin/projects/:project_id/keys admin
POST admin/keys/:key_id/revoke admin
POST admin/keys/:key_id/rotate admin
POST admin/projects/:project_id/credit admin
PUT admin/projects/:project_id/credit_limit admin
PUT admin/projects/:project_id/limits admin
GET admin/projects/:project_id/history admin
POST audio/transcriptions api_key
POST listen api_key
POST live/client_secrets api_key_in_statement
POST realtime/client_secrets api_key_in_statement
GET asyncapi.json public
GET openapi.json public
GET healthz public
GET readyz public
GET metrics public
GET models api_key
GET project api_key
GET sessions api_key
GET sessions/:session_id api_key
DELETE sessions/:session_id api_key
GET usage api_key
GET usage/export api_key
GET usage/normalized-meter-events api_key
POST realtime/calls public
POST realtime/calls/:call_id/hangup api_key
POST realtime public
OPTIONS realtime/calls public
OPTIONS realtime public
`;

function controllerFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return controllerFiles(path);
    return entry.name.endsWith('.controller.ts') ? [path] : [];
  });
}

const join2 = (...parts: string[]) =>
  parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/');

function routes(): string[] {
  const lines: string[] = [];
  for (const file of controllerFiles(join(__dirname, '../..')).sort()) {
    for (const exported of Object.values(require(file) as Record<string, unknown>)) {
      if (typeof exported !== 'function' || Reflect.getMetadata(PATH_METADATA, exported) === undefined) continue;
      const controller = exported as new () => unknown;
      const base = String(Reflect.getMetadata(PATH_METADATA, controller));
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (
          name === 'constructor' ||
          typeof handler !== 'function' ||
          Reflect.getMetadata(PATH_METADATA, handler) === undefined
        )
          continue;
        const verb = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const path = join2(base, String(Reflect.getMetadata(PATH_METADATA, handler)));
        const mode =
          Reflect.getMetadata(ROUTE_AUTH, handler) ?? Reflect.getMetadata(ROUTE_AUTH, controller) ?? 'api_key';
        lines.push(`${verb} ${path} ${mode}`);
      }
    }
  }
  return lines;
}

describe('route authentication', () => {
  it('lists every route with its credential', () => {
    const expected = EXPECTED.trim().split('\n');
    expect([...routes()].sort()).toEqual([...expected].sort());
  });
});
