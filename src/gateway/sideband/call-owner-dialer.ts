import { Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { checkServerIdentity, rootCertificates, type PeerCertificate } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import WebSocket from 'ws';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../platform/errors/app-error';
import { ERROR_STATUS, type ErrorCode } from '../../platform/errors/error-codes';
import { InstanceIdentity } from '../connection/instance-identity';

/**
 * Marks a sideband one instance relays to another (its value: the relaying instance's id). An instance
 * never relays a sideband that carries it, so a wrong INSTANCE_URL cannot make a loop. A client that
 * sends it only gives up the relay.
 */
export const RELAYED_BY_HEADER = 'x-continuum-relayed-by';
/** How long the owner has to answer the relayed upgrade before the client is refused. */
const DIAL_TIMEOUT_MS = 5000;
/** The owner's refusal body, read to relay its code (an ErrorEnvelope is far smaller). */
const MAX_REFUSAL_BYTES = 16 * 1024;
/** Server events of a conversation, relayed from the owner (none carries audio on a sideband). */
const MAX_OWNER_MESSAGE_BYTES = 16 * 1024 * 1024;
const RETRY_MS = 1000;

export interface CallOwner {
  readonly callId: string;
  readonly instanceId: string | null;
  /** Its INSTANCE_URL, as recorded with the call. */
  readonly url: string;
}

/**
 * Opens a sideband on the instance that holds the call, with the client's own credential (the owner
 * admits it as any sideband: no trust between instances beyond the client's), before the client's own
 * upgrade, so the owner's refusal is the client's. An https owner is trusted by the public roots or by
 * presenting this instance's own certificate (replicas share one; a pod's IP is not a name on it).
 */
@Injectable()
export class CallOwnerDialer {
  private readonly ownCertificate: X509Certificate | null;
  private readonly ca: string[] | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly instance: InstanceIdentity,
  ) {
    const pem = config.tls ? readFileSync(config.tls.certFile, 'utf8') : null;
    this.ownCertificate = pem ? new X509Certificate(pem) : null;
    this.ca = pem ? [...rootCertificates, pem] : undefined;
  }

  /** The owner's socket, open and paused (the relay resumes it); or the refusal to answer the client with. */
  dial(owner: CallOwner, path: string, credential: string): Promise<WebSocket> {
    const url = `${owner.url.replace(/^http/, 'ws')}${path}`;
    return new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url, {
        headers: { authorization: `Bearer ${credential}`, [RELAYED_BY_HEADER]: this.instance.id },
        handshakeTimeout: DIAL_TIMEOUT_MS,
        maxPayload: MAX_OWNER_MESSAGE_BYTES,
        perMessageDeflate: false,
        followRedirects: false,
        ...(url.startsWith('wss:') ? { ca: this.ca, checkServerIdentity: this.identityCheck } : {}),
      });
      let settled = false;
      ws.once('open', () => {
        settled = true;
        ws.pause();
        resolve(ws);
      });
      ws.once('unexpected-response', (_req, res) => {
        settled = true;
        void refusalOf(res, owner.callId).then((refusal) => {
          ws.terminate();
          reject(refusal);
        });
      });
      // Also after the open, until the relay listens: an error then ends in a close the relay sees.
      ws.on('error', (error) => {
        if (settled) return;
        settled = true;
        ws.terminate();
        reject(unreachable(owner, error));
      });
    });
  }

  private readonly identityCheck = (host: string, cert: PeerCertificate): Error | undefined => {
    if (this.ownCertificate && cert.raw?.equals(this.ownCertificate.raw)) return undefined;
    return checkServerIdentity(host, cert);
  };
}

function unreachable(owner: CallOwner, error: Error): AppError {
  const code = (error as NodeJS.ErrnoException).code;
  return new AppError(
    'call_unreachable',
    `The call ${owner.callId} runs on another instance of the service, which did not answer (${code ?? 'no answer'}); retry shortly`,
    { retryAfterMs: RETRY_MS },
  );
}

/** The owner's refusal, answered to the client as its own (same code, message and param). */
async function refusalOf(res: IncomingMessage, callId: string): Promise<AppError> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_REFUSAL_BYTES) break;
      chunks.push(chunk);
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      error?: { code?: string; message?: string; param?: string | null; retry_after_ms?: number | null };
    };
    const { code, message, param, retry_after_ms } = body.error ?? {};
    if (typeof code === 'string' && code in ERROR_STATUS && typeof message === 'string') {
      return new AppError(code as ErrorCode, message, { param: param ?? null, retryAfterMs: retry_after_ms ?? null });
    }
  } catch {
    // Not an ErrorEnvelope: answered as unreachable below.
  }
  return new AppError(
    'call_unreachable',
    `The call ${callId} runs on another instance of the service, which answered ${res.statusCode}; retry shortly`,
    { retryAfterMs: RETRY_MS },
  );
}
