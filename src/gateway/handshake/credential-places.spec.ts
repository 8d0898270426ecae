import type { IncomingMessage } from 'node:http';
import { DIALECTS } from '../dialects';
import {
  missingCredentialMessage,
  queryParameter,
  SERVER_HEADERS,
  subprotocolAfter,
  subprotocolPrefix,
  type CredentialPlace,
} from './credential-places';
import { chooseProtocol, extractSocketCredential } from './socket-credentials';

const req = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;

describe('credential places', () => {
  const realtime = [SERVER_HEADERS, subprotocolPrefix('openai-insecure-api-key.', 'realtime'), queryParameter('token')];
  const keyed = { 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.ek_s' };

  it('are read in the order listed: the first that holds a credential decides', () => {
    const all = req('/v1/realtime?token=ek_q', { ...keyed, authorization: 'Bearer ek_h' });
    expect(extractSocketCredential(all, realtime)).toMatchObject({ credential: { value: 'ek_h' } });
    expect(extractSocketCredential(req('/v1/realtime?token=ek_q', keyed), realtime)).toMatchObject({
      credential: { value: 'ek_s', source: 'subprotocol' },
    });
    expect(extractSocketCredential(req('/v1/realtime?token=ek_q', keyed), [...realtime].reverse())).toMatchObject({
      credential: { value: 'ek_q', source: 'query' },
    });
  });

  it('stop at a malformed one, with its reason, rather than look further', () => {
    const headers = { ...keyed, authorization: 'Basic abc' };
    expect(extractSocketCredential(req('/v1/realtime?token=ek_q', headers), realtime).kind).toBe('malformed');
  });

  it('refuse an API key in the browser subprotocol of a secrets-only place, with its own code', () => {
    const browser = subprotocolPrefix('openai-insecure-api-key.', 'realtime', { secretsOnly: true });
    const key = { 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.wk_abc' };
    expect(browser.refuse!(req('/v1/realtime', key))).toMatchObject({ code: 'api_key_in_subprotocol' });
    expect(browser.refuse!(req('/v1/realtime', keyed))).toBeNull();
    expect(browser.read(req('/v1/realtime', keyed))).toMatchObject({ kind: 'found', credential: { value: 'ek_s' } });
    // The Realtime dialect lists it so, and a good header beside the key does not let it through.
    const dialect = DIALECTS.find((d) => d.name === 'realtime')!;
    const both = req('/v1/realtime', { ...key, authorization: 'Bearer wk_abc' });
    expect(extractSocketCredential(both, dialect.credentials)).toMatchObject({ kind: 'refused' });
  });

  it("take a place of a dialect's own, and read nothing they do not list", () => {
    const own: CredentialPlace = {
      read: (r) =>
        r.headers['x-own']
          ? { kind: 'found', credential: { value: String(r.headers['x-own']), source: 'x-own' } }
          : { kind: 'none' },
    };
    expect(extractSocketCredential(req('/x', { 'x-own': 'ek_o' }), [own])).toEqual({
      kind: 'found',
      credential: { value: 'ek_o', source: 'x-own' },
    });
    expect(extractSocketCredential(req('/x?token=ek_q', { authorization: 'Bearer ek_h' }), [own])).toEqual({
      kind: 'none',
    });
    expect(chooseProtocol([own], new Set(['realtime']))).toBe(false);
  });

  it('name themselves to a socket that sent none: each of the four says what it always said', () => {
    for (const dialect of DIALECTS) {
      expect(missingCredentialMessage(dialect.credentials)).toBe(
        'Send an API key in the Authorization header, or a client secret as ?token=',
      );
    }
    expect(missingCredentialMessage([subprotocolAfter(['token'])])).toBe('Send a credential');
  });

  it('answer with the first marker offered, in the order the place lists them', () => {
    const pair = [subprotocolAfter(['token', 'bearer'])];
    expect(chooseProtocol(pair, new Set(['bearer', 'token', 'k']))).toBe('token');
    expect(chooseProtocol(pair, new Set(['bearer', 'k']))).toBe('bearer');
    expect(chooseProtocol(realtime, new Set(['token']))).toBe(false);
  });
});
