import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { DatabaseUnavailableError } from '../database/database-availability';
import { AppError } from './app-error';
import { renderError } from './error-renderer';
import { RequestValidationError } from './validation-error';

describe('renderError', () => {
  it('renders an AppError as an ErrorEnvelope with its status and retry hints', () => {
    const r = renderError(new AppError('concurrency_limit_exceeded', 'too many', { retryAfterMs: 1500 }), 'req_1');
    expect(r.status).toBe(429);
    expect(r.headers).toEqual({ 'retry-after': '2' });
    expect(r.body).toEqual({
      error: {
        code: 'concurrency_limit_exceeded',
        message: 'too many',
        param: null,
        request_id: 'req_1',
        retry_after_ms: 1500,
      },
    });
  });

  it('renders validation failures as the 422 HTTPValidationError shape', () => {
    const issue = { loc: ['body', 'x'], msg: 'property x should not exist', type: 'extra_forbidden' };
    expect(renderError(new RequestValidationError([issue]), 'req_2')).toMatchObject({
      status: 422,
      body: { detail: [issue] },
    });
  });

  it('keeps framework statuses with the code of the table', () => {
    expect(renderError(new NotFoundException(), 'r')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect(renderError(new PayloadTooLargeException(), 'r')).toMatchObject({
      status: 413,
      body: { error: { code: 'payload_too_large' } },
    });
  });

  it('hides the internals of unexpected failures', () => {
    const r = renderError(new Error('password=hunter2 at db.ts:12'), 'req_3');
    expect(r.status).toBe(500);
    expect(r.unexpected).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain('hunter2');
    expect(r.body).toMatchObject({ error: { code: 'internal_error', request_id: 'req_3' } });
  });

  it.each([
    ['the availability refusing at once', new DatabaseUnavailableError(Date.now())],
    [
      'a connection that died under a statement',
      new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly')),
    ],
    [
      'a refused connection inside a driver error',
      new QueryFailedError(
        'SELECT 1',
        [],
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      ),
    ],
    [
      'a server shutting down',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ],
  ])('answers %s with 503 database_unavailable and a retry hint, not a logged 500', (_case, error) => {
    const r = renderError(error, 'req_4');
    expect(r).toMatchObject({ status: 503, unexpected: false, headers: { 'retry-after': '2' } });
    expect(r.body).toMatchObject({ error: { code: 'database_unavailable', retry_after_ms: 2000 } });
  });

  it('leaves a bare socket error from elsewhere (a speech engine) a 500', () => {
    const r = renderError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'r');
    expect(r.status).toBe(500);
  });
});
