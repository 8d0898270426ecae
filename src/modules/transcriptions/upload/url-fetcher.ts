/**
 * A Deepgram `{"url": …}` body: the service downloads the audio itself, which makes it a client of
 * whatever the URL names. So it is off unless the operator lists hosts (TRANSCRIPTION_URL_HOSTS),
 * and even a listed host is refused when it resolves to a loopback, private, shared, multicast or
 * reserved address (unless TRANSCRIPTION_URL_ALLOW_PRIVATE), and always to a link-local one (cloud
 * metadata services live there). The connection goes to the address that was checked (no second
 * lookup a rebinding DNS could answer differently); redirects are not followed; the download has the
 * upload's size limit and a time limit.
 */
import { lookup } from 'node:dns/promises';
import { createWriteStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../../platform/errors/app-error';
import type { TranscriptionLimits } from '../../../config/app-config';
import { SNIFF_BYTES } from '../decoding/audio-format';
import { type SavedUpload, tooLarge } from './upload-reader';

const NEVER = new Set(['linkLocal']);
const PUBLIC = new Set(['unicast']);

function refused(message: string): AppError {
  return new AppError('invalid_parameter', message, { param: 'url' });
}

/** Whether the policy lets the service connect to `address`. */
export function addressAllowed(address: string, allowPrivate: boolean): boolean {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (NEVER.has(range)) return false;
  return PUBLIC.has(range) || allowPrivate;
}

export async function fetchAudioUrl(
  raw: unknown,
  limits: TranscriptionLimits,
  dir: string,
  limitBytes: number,
): Promise<SavedUpload> {
  if (typeof raw !== 'string' || raw.length > 2048) throw refused('url must be a string of at most 2048 characters');
  if (limits.urlHosts.length === 0) {
    throw refused('This service does not fetch audio from URLs (the operator allows no hosts); upload the audio');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('url is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused('url must be http or https');
  if (url.username || url.password) throw refused('url must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!limits.urlHosts.includes('*') && !limits.urlHosts.includes(host)) {
    throw refused(`The host ${host} is not one this service fetches audio from`);
  }
  const address = isIP(host) ? host : await resolve(host, limits.urlAllowPrivate);
  if (!addressAllowed(address, limits.urlAllowPrivate)) throw privateHost(host);
  return download(url, address, limits.urlTimeoutMs, join(dir, 'upload'), limitBytes);
}

/** The address to connect to; every address the name has must pass, or the first public one hides a private one. */
async function resolve(host: string, allowPrivate: boolean): Promise<string> {
  let all: { address: string }[];
  try {
    all = await lookup(host, { all: true });
  } catch {
    throw refused(`The host ${host} could not be resolved`);
  }
  if (all.length === 0) throw refused(`The host ${host} could not be resolved`);
  if (!all.every((a) => addressAllowed(a.address, allowPrivate))) throw privateHost(host);
  return all[0].address;
}

function privateHost(host: string): AppError {
  return refused(
    `The host ${host} resolves to a private or link-local address, which this service does not fetch from`,
  );
}

function download(
  url: URL,
  address: string,
  timeoutMs: number,
  path: string,
  limitBytes: number,
): Promise<SavedUpload> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SavedUpload>((resolvePromise, reject) => {
    const fail = (error: Error) => {
      request.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(refused(`The URL did not deliver its audio within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const request = send(
      url,
      {
        method: 'GET',
        // The checked address, whatever a second lookup would say; TLS still verifies the URL's name.
        lookup: (_host, options, callback) => {
          const family = isIP(address);
          if ((options as { all?: boolean }).all) callback(null, [{ address, family }] as never);
          else callback(null, address, family);
        },
        headers: { 'user-agent': 'continuum-transcription', accept: 'audio/*, video/*, */*' },
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          response.resume();
          clearTimeout(timer);
          return fail(
            refused(
              status >= 300 && status < 400
                ? 'The URL redirects; redirects are not followed'
                : `The URL answered ${status}`,
            ),
          );
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > limitBytes) {
          clearTimeout(timer);
          return fail(tooLarge(limitBytes));
        }
        const out = createWriteStream(path);
        let bytes = 0;
        let head = Buffer.alloc(0);
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > limitBytes) {
            clearTimeout(timer);
            out.destroy();
            return fail(tooLarge(limitBytes));
          }
          if (head.length < SNIFF_BYTES) head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES)]);
          if (!out.write(chunk)) {
            response.pause();
            out.once('drain', () => response.resume());
          }
        });
        response.on('end', () => {
          clearTimeout(timer);
          out.end(() => resolvePromise({ path, bytes, head }));
        });
        response.on('error', () => {
          clearTimeout(timer);
          out.destroy();
          fail(refused('The download from the URL was cut short'));
        });
      },
    );
    request.on('error', () => {
      clearTimeout(timer);
      fail(refused(`The URL could not be fetched`));
    });
    request.end();
  });
}
