import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
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
});
