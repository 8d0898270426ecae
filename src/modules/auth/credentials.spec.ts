import type { IncomingMessage } from 'node:http';
import { extractHeaderCredential, queryCarriesApiKey } from './credentials';
import { chooseProtocol, extractSocketCredential } from '../../gateway/handshake/socket-credentials';

const req = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;

describe('extractHeaderCredential', () => {
  it.each([
    ['Bearer wk_a', 'wk_a'],
    ['bearer wk_a', 'wk_a'],
    ['TOKEN wk_a', 'wk_a'],
    ['Token   wk_a  ', 'wk_a'],
  ])('reads "%s"', (authorization, value) => {
    expect(extractHeaderCredential({ authorization })).toEqual({
      kind: 'found',
      credential: { value, source: 'authorization' },
    });
  });

  it('reads X-API-Key when there is no Authorization header', () => {
    expect(extractHeaderCredential({ 'x-api-key': ' wk_b ' })).toEqual({
      kind: 'found',
      credential: { value: 'wk_b', source: 'x-api-key' },
    });
  });

  it('prefers Authorization over X-API-Key', () => {
    const result = extractHeaderCredential({ authorization: 'Bearer wk_a', 'x-api-key': 'wk_b' });
    expect(result).toMatchObject({ credential: { value: 'wk_a' } });
  });

  it.each(['Basic abc', 'Bearer', 'Bearer a b', 'wk_a'])('calls "%s" malformed', (authorization) => {
    expect(extractHeaderCredential({ authorization }).kind).toBe('malformed');
  });

  it('reports no credential', () => {
    expect(extractHeaderCredential({})).toEqual({ kind: 'none' });
  });
});

describe('queryCarriesApiKey', () => {
  it.each([
    ['/v1/models?api_key=wk_x', true],
    ['/v1/models?x=1&token=%20wk_y', true],
    ['/v1/models?wk_z', true],
    ['/v1/models?token=ek_x', false],
    ['/v1/models', false],
    [undefined, false],
  ])('%s → %s', (url, expected) => {
    expect(queryCarriesApiKey(url)).toBe(expected);
  });
});

describe('extractSocketCredential', () => {
  it('takes the Authorization header first', () => {
    const r = extractSocketCredential(req('/v1/live/sessions?token=ek_q', { authorization: 'Bearer ek_h' }), 'live');
    expect(r).toEqual({ kind: 'found', credential: { value: 'ek_h', source: 'authorization' } });
  });

  it('takes ?token= when no header is sent', () => {
    expect(extractSocketCredential(req('/v1/live/sessions?token=ek_q'), 'live')).toMatchObject({
      credential: { value: 'ek_q', source: 'query' },
    });
  });

  it('reads the OpenAI browser subprotocol on the realtime socket only', () => {
    const headers = { 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.ek_s, openai-project.p' };
    expect(extractSocketCredential(req('/v1/realtime', headers), 'realtime')).toMatchObject({
      credential: { value: 'ek_s', source: 'subprotocol' },
    });
    expect(extractSocketCredential(req('/v1/live/sessions', headers), 'live')).toEqual({ kind: 'none' });
  });

  it('reads the Deepgram subprotocol pair (credential after "token")', () => {
    const headers = { 'sec-websocket-protocol': 'token,ek_d,x-deepgram-session-id,123' };
    expect(extractSocketCredential(req('/v1/listen', headers), 'listen')).toMatchObject({
      credential: { value: 'ek_d', source: 'subprotocol' },
    });
  });

  it('chooses the dialect marker protocol to echo', () => {
    expect(chooseProtocol('realtime', new Set(['realtime', 'openai-insecure-api-key.x']))).toBe('realtime');
    expect(chooseProtocol('listen', new Set(['token', 'k']))).toBe('token');
    expect(chooseProtocol('live', new Set(['realtime']))).toBe(false);
  });
});
