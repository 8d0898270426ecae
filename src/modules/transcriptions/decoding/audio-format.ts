/**
 * The container of an upload, judged from its first bytes (never its name or declared type, which
 * clients get wrong: LiveKit names every utterance `file.wav`, browsers send `audio/webm` for Ogg).
 * The answer picks ffmpeg's demuxer, so a file is never probed as something it does not say it is.
 */
export type AudioContainer = 'wav' | 'mp3' | 'flac' | 'ogg' | 'webm' | 'mp4';

/** ffmpeg's demuxer for each container (`-f`). */
export const DEMUXER: Readonly<Record<AudioContainer, string>> = {
  wav: 'wav',
  mp3: 'mp3',
  flac: 'flac',
  ogg: 'ogg',
  webm: 'matroska', // WebM is Matroska's subset; ffmpeg's `matroska` demuxer reads both
  mp4: 'mov', // M4A, MP4 and MPEG-4 audio share ISO BMFF
};

/** Bytes needed to judge: an ID3v2 header is 10, ISO BMFF's `ftyp` sits at 4..8. */
export const SNIFF_BYTES = 12;

export function detectContainer(head: Buffer): AudioContainer | null {
  const ascii = (from: number, to: number) => head.toString('latin1', from, to);
  if (head.length < 4) return null;
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
  if (ascii(0, 4) === 'RF64' && ascii(8, 12) === 'WAVE') return 'wav';
  if (ascii(0, 4) === 'fLaC') return 'flac';
  if (ascii(0, 4) === 'OggS') return 'ogg';
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  if (head.length >= 8 && ascii(4, 8) === 'ftyp') return 'mp4';
  if (ascii(0, 3) === 'ID3') return 'mp3';
  // An MPEG audio frame header: 11 sync bits, then a layer other than "reserved" (00).
  if (head[0] === 0xff && (head[1] & 0xe0) === 0xe0 && (head[1] & 0x06) !== 0) return 'mp3';
  return null;
}
