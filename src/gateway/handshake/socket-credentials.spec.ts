import type { IncomingMessage } from 'node:http';
import { chooseProtocol, extractSocketCredential } from './socket-credentials';

const req = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;

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
