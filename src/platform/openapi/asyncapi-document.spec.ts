import { ASYNCAPI_INPUTS } from '../../gateway/dialects';
import { buildAsyncApiDocument } from './asyncapi-document';
import { AsyncApiNamingError } from './asyncapi-naming';
import { constant, object, str, typed } from './asyncapi-schemas';
import type { SocketDialectDoc } from './socket-dialect-doc';

/** One more dialect, described as a new one would describe itself. */
const EXTRA: SocketDialectDoc = {
  id: 'extra',
  address: '/v9/extra',
  title: 'Extra socket',
  description: 'A socket of its own.',
  security: ['token', 'client_secret_query'],
  handshakeRefusals: ['invalid_parameter', 'missing_api_key'],
  errorCodes: [],
  clientMessages: { CloseStream: { summary: 'Ends the stream.', payload: typed('CloseStream', {}) } },
  serverMessages: { TurnInfo: { summary: 'A turn.', payload: typed('TurnInfo', { transcript: str() }) } },
  sessionEnds: [{ how: '`CloseStream`', cause: { kind: 'client' }, lastMessages: '-' }],
  schemas: { ExtraWord: object({ word: str() }) },
};

type Doc = Record<string, any>;

describe('buildAsyncApiDocument', () => {
  it('adds a dialect as one entry: its channel, both operations, its schemas and its close table', () => {
    const doc = buildAsyncApiDocument({ ...ASYNCAPI_INPUTS, dialects: [...ASYNCAPI_INPUTS.dialects, EXTRA] }) as Doc;
    expect(Object.keys(doc.channels)).toHaveLength(ASYNCAPI_INPUTS.dialects.length + 1);
    expect(doc.channels.extra.address).toBe('/v9/extra');
    expect(doc.operations['extra.client']).toMatchObject({
      action: 'receive',
      channel: { $ref: '#/channels/extra' },
      messages: [{ $ref: '#/channels/extra/messages/CloseStream' }],
      security: [
        { $ref: '#/components/securitySchemes/token' },
        { $ref: '#/components/securitySchemes/client_secret_query' },
      ],
    });
    expect(doc.operations['extra.server']).toMatchObject({
      action: 'send',
      messages: [{ $ref: '#/channels/extra/messages/TurnInfo' }],
    });
    expect(doc.components.schemas.ExtraWord).toBeDefined();
    expect(doc.channels.extra['x-session-ends']).toEqual([
      {
        how: '`CloseStream`',
        close_reason: 'close_requested',
        detail: 'client_requested',
        last_messages: '-',
        close_code: 1000,
      },
    ]);
    expect(doc.channels.extra['x-handshake-refusals']).toEqual([
      { status: 400, code: 'invalid_parameter' },
      { status: 401, code: 'missing_api_key' },
    ]);
  });

  it('refuses two dialects with one id, a schema defined twice, and a message named both ways', () => {
    expect(() => buildAsyncApiDocument({ ...ASYNCAPI_INPUTS, dialects: [EXTRA, EXTRA] })).toThrow(
      /two socket dialects are called extra/,
    );
    expect(() => buildAsyncApiDocument({ ...ASYNCAPI_INPUTS, dialects: [EXTRA, { ...EXTRA, id: 'other' }] })).toThrow(
      /ExtraWord/,
    );
    const both = { ...EXTRA, serverMessages: { CloseStream: { summary: '', payload: constant(1) } } };
    expect(() => buildAsyncApiDocument({ ...ASYNCAPI_INPUTS, dialects: [both] })).toThrow(
      /CloseStream named both ways/,
    );
  });

  describe('naming rules, checked as each channel is added, with what to change', () => {
    const build = (...extra: SocketDialectDoc[]) =>
      buildAsyncApiDocument({ ...ASYNCAPI_INPUTS, dialects: [...ASYNCAPI_INPUTS.dialects, ...extra] });

    it('a message named both ways: which channel and message, the rule, and a rename', () => {
      const both = {
        ...EXTRA,
        serverMessages: { ...EXTRA.serverMessages, CloseStream: EXTRA.clientMessages.CloseStream },
      };
      expect(() => build(both)).toThrow(
        'AsyncAPI channel "extra" (/v9/extra): message CloseStream named both ways (a client message and a server ' +
          "message); a channel's messages share one map (channels.extra.messages), so each name is used once. " +
          'Rename one of them, e.g. the client\'s to "CloseStream.request": the name is the document\'s, the payload ' +
          "(and so what travels) need not change (in the dialect's SocketDialectDoc, its *.asyncapi.ts)",
      );
      expect(() => build(both)).toThrow(AsyncApiNamingError);
    });

    it('a name AsyncAPI cannot key or a $ref cannot point at', () => {
      const slashed = { ...EXTRA, clientMessages: { 'Close/Stream': EXTRA.clientMessages.CloseStream } };
      expect(() => build(slashed)).toThrow(
        /channel "extra".*the message "Close\/Stream" is not an AsyncAPI key.*Rename it to "Close_Stream"/,
      );
      expect(() => build({ ...EXTRA, id: 'extra socket' })).toThrow(/the channel id "extra socket".*"extra_socket"/);
    });

    it('a schema another channel (or the document) defines', () => {
      expect(() => build({ ...EXTRA, schemas: { ErrorEnvelope: object({}) } })).toThrow(
        /schema ErrorEnvelope is already defined by the document.*#\/components\/schemas\/ErrorEnvelope/,
      );
      expect(() => build(EXTRA, { ...EXTRA, id: 'other' })).toThrow(
        /schema ExtraWord is already defined by channel extra/,
      );
    });

    it('a security scheme no one defines; a channel may define its own', () => {
      expect(() => build({ ...EXTRA, security: ['signature'] })).toThrow(
        /security names "signature", which no one defines \(defined: bearer, token, .*\)\. Use one of those, or define it/,
      );
      const signature = { type: 'httpApiKey', in: 'header', name: 'X-Signature', description: 'A signature.' };
      const doc = build({ ...EXTRA, security: ['signature'], securitySchemes: { signature } }) as Doc;
      expect(doc.components.securitySchemes.signature).toEqual(signature);
      expect(() => build({ ...EXTRA, securitySchemes: { bearer: signature } })).toThrow(
        /security scheme bearer is already defined by the document/,
      );
    });
  });

  it('is deterministic: keys sorted, so the committed file diffs cleanly', () => {
    const doc = buildAsyncApiDocument(ASYNCAPI_INPUTS) as Doc;
    expect(JSON.stringify(doc)).toBe(JSON.stringify(buildAsyncApiDocument(ASYNCAPI_INPUTS)));
    expect(Object.keys(doc)).toEqual([...Object.keys(doc)].sort());
  });
});
