import { extractHeaderCredential, queryCarriesApiKey } from './credentials';

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
