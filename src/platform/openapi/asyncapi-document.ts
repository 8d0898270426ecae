/**
 * The AsyncAPI 3 document of the WebSocket protocols, built from what the socket layer hands it (the
 * dialects' own descriptions, the close reasons and the close rules: AsyncApiInputs) and the error
 * code table (ERROR_STATUS), so that the committed `asyncapi/asyncapi.json` changes whenever they do; a test compares the two.
 */
import { ERROR_STATUS } from '../errors/error-codes';
import { sortKeys } from './openapi-document';
import { int, nullable, object, oneOfValues, str, type JsonSchema } from './asyncapi-schemas';
import { checkChannelNames, type TakenNames } from './asyncapi-naming';
import type { AsyncApiInputs, MessageDoc, SocketDialectDoc } from './socket-dialect-doc';

export const ASYNCAPI_PATH = '/v1/asyncapi.json';

/**
 * The DI token of the served AsyncAPI document (a `buildAsyncApiDocument` result): the socket layer, which
 * knows the dialects, provides it; the docs module, which may not import the socket layer, serves it.
 */
export const ASYNCAPI_DOCUMENT = Symbol('ASYNCAPI_DOCUMENT');

const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: '`Authorization: Bearer <API key or client secret>` (servers and any client that can set headers).',
  },
  token: {
    type: 'httpApiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Authorization: Token <API key or client secret>` (Deepgram’s form; accepted on every socket).',
  },
  api_key: {
    type: 'httpApiKey',
    in: 'header',
    name: 'X-API-Key',
    description: '`X-API-Key: <API key>`.',
  },
  client_secret_query: {
    type: 'httpApiKey',
    in: 'query',
    name: 'token',
    description:
      '`?token=<URL-encoded client secret>` for browsers. Client secrets only: an API key (`wk_…`) anywhere in a ' +
      'query string is refused with 401 `api_key_in_query`.',
  },
  realtime_subprotocol: {
    type: 'httpApiKey',
    in: 'header',
    name: 'Sec-WebSocket-Protocol',
    description:
      'Browser form of the Realtime API: subprotocols `realtime, openai-insecure-api-key.<client secret>`; ' +
      'the server answers `realtime`. Client secrets only: an API key (`wk_…`) there is refused with 401 ' +
      '`api_key_in_subprotocol`.',
  },
  listen_subprotocol: {
    type: 'httpApiKey',
    in: 'header',
    name: 'Sec-WebSocket-Protocol',
    description:
      'Browser form of Deepgram: subprotocols `token, <client secret>` (or `bearer, <client secret>`); the ' +
      'server answers `token` (or `bearer`).',
  },
} as const;

export type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;

const sharedSchemas = (closeReasons: readonly string[]): Record<string, JsonSchema> => ({
  ErrorEnvelope: object(
    {
      error: object({
        code: oneOfValues(Object.keys(ERROR_STATUS), 'Machine-readable code; its HTTP status is fixed per code.'),
        message: str(),
        param: nullable(str()),
        request_id: str('Also in the `x-request-id` header.'),
        retry_after_ms: nullable(int(undefined, 0)),
      }),
    },
    {},
    'The body of a refused upgrade: the same ErrorEnvelope as the REST API (`/v1/openapi.json`).',
  ),
  CloseReason: oneOfValues(closeReasons, 'Why a session ended, as recorded on the session (`close_reason`).'),
});

const description = (closeReasons: readonly string[]): string =>
  [
    'The WebSocket protocols of Continuum. One client secret (`POST /v1/live/client_secrets` or ' +
      '`POST /v1/realtime/client_secrets`, see the OpenAPI document at `/v1/openapi.json`) opens exactly one ' +
      'session, on whichever socket it is presented to first; a secret of a `live` session opens only the live socket.',
    '',
    'Every socket authenticates **before the upgrade**: a refusal is an HTTP answer with the REST status and the ' +
      '`ErrorEnvelope` body (`#/components/schemas/ErrorEnvelope`; with `x-request-id`, and `Retry-After` where it ' +
      'applies), never a dropped socket. Each channel lists its refusals (`x-handshake-refusals`).',
    '',
    `A session ends with one of the close reasons ${closeReasons.map((r) => `\`${r}\``).join(', ')}, recorded on ` +
      'the session (`GET /v1/sessions/{id}`); each channel lists how its sessions end, with the close code.',
    '',
    'Audio is pcm16 little-endian, mono, 24000 Hz; input is metered in 80 ms frames (3840 bytes).',
  ].join('\n');

export function buildAsyncApiDocument(inputs: AsyncApiInputs): object {
  const { dialects, closeReasons } = inputs;
  const channels: Record<string, object> = {};
  const operations: Record<string, object> = {};
  const schemas: Record<string, JsonSchema> = sharedSchemas(closeReasons);
  const securitySchemes: Record<string, object> = { ...SECURITY_SCHEMES };
  const taken: TakenNames = {
    channels: new Map(),
    schemas: new Map(Object.keys(schemas).map((name) => [name, 'the document'])),
    securitySchemes: new Map(Object.keys(securitySchemes).map((name) => [name, 'the document'])),
  };
  for (const dialect of dialects) {
    checkChannelNames(dialect, taken);
    Object.assign(schemas, dialect.schemas);
    Object.assign(securitySchemes, dialect.securitySchemes);
    channels[dialect.id] = channel(dialect, inputs);
    const security = dialect.security.map((name) => ({ $ref: `#/components/securitySchemes/${name}` }));
    const refs = (messages: Record<string, MessageDoc>) =>
      Object.keys(messages).map((name) => ({ $ref: `#/channels/${dialect.id}/messages/${name}` }));
    operations[`${dialect.id}.client`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${dialect.id}` },
      title: `${dialect.title}: client messages`,
      summary: 'What a client sends on this socket.',
      security,
      messages: refs(dialect.clientMessages),
    };
    operations[`${dialect.id}.server`] = {
      action: 'send',
      channel: { $ref: `#/channels/${dialect.id}` },
      title: `${dialect.title}: server messages`,
      summary: 'What the service sends on this socket.',
      messages: refs(dialect.serverMessages),
    };
  }
  return sortKeys({
    asyncapi: '3.1.0',
    info: { title: 'Continuum sockets', version: 'v1', description: description(closeReasons) },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: 'localhost:8080',
        protocol: 'ws',
        description: 'The service on its default port; `wss` when it serves TLS or sits behind a TLS proxy.',
      },
    },
    channels,
    operations,
    components: { schemas, securitySchemes },
  });
}

function channel(dialect: SocketDialectDoc, inputs: AsyncApiInputs): object {
  const messages: Record<string, object> = {};
  for (const [name, doc] of [...Object.entries(dialect.clientMessages), ...Object.entries(dialect.serverMessages)]) {
    messages[name] = message(name, doc);
  }
  const ends = dialect.sessionEnds.map((end) => ({ ...end, outcome: inputs.closeOutcome(end.cause) }));
  const refusals = dialect.handshakeRefusals.map((code) => ({ status: ERROR_STATUS[code], code }));
  const description = [
    dialect.description,
    '',
    '**Refusals before the upgrade** (HTTP status and ErrorEnvelope): ' +
      refusals.map((r) => `${r.status} \`${r.code}\``).join(', ') +
      '.',
    '',
    '**How a session ends**',
    '',
    '| How | Close reason | `detail` | Sent before the close | Close code |',
    '| --- | --- | --- | --- | --- |',
    ...ends.map(
      ({ how, lastMessages, outcome }) =>
        `| ${how} | \`${outcome.reason}\` | \`${outcome.detail}\` | ${lastMessages} | ${outcome.closeCode ?? '-'} |`,
    ),
  ].join('\n');
  const binding: Record<string, unknown> = { method: 'GET', bindingVersion: '0.1.0' };
  if (dialect.query) binding.query = dialect.query;
  if (dialect.headers) binding.headers = dialect.headers;
  return {
    address: dialect.address,
    title: dialect.title,
    description,
    messages,
    bindings: { ws: binding },
    'x-handshake-refusals': refusals,
    'x-error-codes': [...dialect.errorCodes],
    'x-session-ends': ends.map(({ how, lastMessages, outcome }) => ({
      how,
      close_reason: outcome.reason,
      detail: outcome.detail,
      last_messages: lastMessages,
      close_code: outcome.closeCode,
    })),
  };
}

function message(name: string, doc: MessageDoc): object {
  return {
    name,
    title: name,
    summary: doc.summary,
    ...(doc.description === undefined ? {} : { description: doc.description }),
    contentType: doc.contentType ?? 'application/json',
    payload: doc.payload,
    ...(doc.examples === undefined ? {} : { examples: doc.examples.map((payload) => ({ payload })) }),
  };
}
