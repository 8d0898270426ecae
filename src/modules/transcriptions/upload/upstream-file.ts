/**
 * The upload as an upstream transcription server takes it: the client's own bytes with a media type
 * and a file name that agree with what its first bytes say (OpenAI-compatible servers pick the
 * decoder by the name's extension). A headerless pcm16 body (Deepgram's linear16) gets a WAV header.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AudioContainer } from '../decoding/audio-format';
import type { RawPcm } from '../decoding/ffmpeg-decoder';
import type { SavedUpload } from './upload-reader';

const NAMED: Readonly<Record<AudioContainer, { extension: string; contentType: string }>> = {
  wav: { extension: 'wav', contentType: 'audio/wav' },
  mp3: { extension: 'mp3', contentType: 'audio/mpeg' },
  flac: { extension: 'flac', contentType: 'audio/flac' },
  ogg: { extension: 'ogg', contentType: 'audio/ogg' },
  webm: { extension: 'webm', contentType: 'audio/webm' },
  mp4: { extension: 'm4a', contentType: 'audio/mp4' },
};

export interface UpstreamFile {
  path: string;
  bytes: number;
  contentType: string;
  fileName: string;
}

export async function upstreamFile(
  upload: SavedUpload,
  container: AudioContainer | RawPcm,
  dir: string,
): Promise<UpstreamFile> {
  if (typeof container === 'string') {
    const { extension, contentType } = NAMED[container];
    return { path: upload.path, bytes: upload.bytes, contentType, fileName: `audio.${extension}` };
  }
  const path = join(dir, 'upload.wav');
  const out = createWriteStream(path);
  out.write(wavHeader(upload.bytes, container));
  await pipeline(createReadStream(upload.path), out);
  return { path, bytes: upload.bytes + 44, contentType: 'audio/wav', fileName: 'audio.wav' };
}

/** The 44-byte RIFF header of `dataBytes` of pcm16 little-endian. */
export function wavHeader(dataBytes: number, { sampleRate, channels }: RawPcm): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
