/** Helpers shared by the client-secret and session suites. */
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../support/test-app';

export const LIVE = '/v1/live/client_secrets';
export const REALTIME = '/v1/realtime/client_secrets';

export function createSecret(
  t: TestApp,
  key: string,
  body: unknown = {},
  options: { path?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: options.path ?? LIVE,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...options.headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function api(t: TestApp, key: string, method: 'GET' | 'DELETE', url: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` } });
}

/** A 422 whose detail holds an issue at exactly `loc` (and of `type`, when given). */
export function expectIssue(res: LightMyRequestResponse, loc: (string | number)[], type?: string): void {
  expect(res.statusCode).toBe(422);
  const detail = (res.json() as { detail: { loc: unknown[]; type: string; msg: string }[] }).detail;
  expect(detail).toEqual(
    expect.arrayContaining([expect.objectContaining({ loc, ...(type ? { type } : {}), msg: expect.any(String) })]),
  );
}

/** An ErrorEnvelope with this status and code (and param, when given). */
export function expectError(res: LightMyRequestResponse, status: number, code: string, param?: string | null): void {
  expect({ status: res.statusCode, code: res.json().error?.code }).toEqual({ status, code });
  if (param !== undefined) expect(res.json().error.param).toBe(param);
  expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
}

export function databaseUrlOf(t: TestApp): string {
  return (t.dataSource.options as { url: string }).url;
}

export async function setBalance(t: TestApp, projectId: string, micros: number): Promise<void> {
  await t.dataSource.query('UPDATE projects SET balance_micros = $2 WHERE id = $1', [projectId, micros]);
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
