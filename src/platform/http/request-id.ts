import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify';
import { newId } from '../ids';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A request's id: the client's `x-request-id` when it is a sane one, else a new one. */
export function requestIdOf(req: RawRequestDefaultExpression): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newId('req');
}

/** Every answer says which request it answers (`x-request-id`), the error envelope's `request_id`. */
export function echoRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (request, reply, payload) => {
    void reply.header('x-request-id', request.id);
    return payload;
  });
}
