import { ASYNCAPI_INPUTS } from '../../gateway/dialects';
import { buildAsyncApiDocument } from './asyncapi-document';
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

  it('is deterministic: keys sorted, so the committed file diffs cleanly', () => {
    const doc = buildAsyncApiDocument(ASYNCAPI_INPUTS) as Doc;
    expect(JSON.stringify(doc)).toBe(JSON.stringify(buildAsyncApiDocument(ASYNCAPI_INPUTS)));
    expect(Object.keys(doc)).toEqual([...Object.keys(doc)].sort());
  });
});
