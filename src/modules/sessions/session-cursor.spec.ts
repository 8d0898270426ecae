import { AppError } from '../../platform/errors/app-error';
import { decodeCursor, encodeCursor } from './session-cursor';

describe('session cursor', () => {
  const cursor = { createdAt: '2026-11-21T05:34:21.123456Z', id: 'sess_abcDEF123' };

  it('round-trips the sort key through opaque base64url', () => {
    const encoded = encodeCursor(cursor);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(encoded)).toEqual(cursor);
  });

  const tampered: [string, string][] = [
    ['empty', ''],
    ['not base64url', 'abc$def'],
    ['padding', `${encodeCursor(cursor)}=`],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['an object', Buffer.from(JSON.stringify(cursor)).toString('base64url')],
    ['a bad time', Buffer.from(JSON.stringify(['2026-11-21 05:34:21', 'sess_a'])).toString('base64url')],
    [
      'an impossible time',
      Buffer.from(JSON.stringify(['2026-13-45T99:00:00.000000Z', 'sess_a'])).toString('base64url'),
    ],
    ['a bad id', Buffer.from(JSON.stringify([cursor.createdAt, "sess_a' OR 1=1"])).toString('base64url')],
    ['extra items', Buffer.from(JSON.stringify([cursor.createdAt, cursor.id, 1])).toString('base64url')],
    ['spaces in JSON', Buffer.from(JSON.stringify([cursor.createdAt, cursor.id], null, 1)).toString('base64url')],
    ['too long', 'A'.repeat(300)],
  ];

  it.each(tampered)('refuses %s with 400 invalid_parameter on param cursor', (_name, raw) => {
    let error: unknown;
    try {
      decodeCursor(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'invalid_parameter', param: 'cursor', status: 400 });
  });
});
