/** Minimal RIFF/WAVE reader for the mono pcm16 files flite writes and Debian's test data ships. */
export interface PcmClip {
  sampleRate: number;
  samples: Int16Array;
}

export function parseWav(file: Buffer): PcmClip {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  let sampleRate = 0;
  let offset = 12;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      const format = file.readUInt16LE(body);
      const channels = file.readUInt16LE(body + 2);
      const bits = file.readUInt16LE(body + 14);
      if (format !== 1 || channels !== 1 || bits !== 16) {
        throw new Error(`unsupported WAVE format (format ${format}, ${channels} channels, ${bits} bits)`);
      }
      sampleRate = file.readUInt32LE(body + 4);
    } else if (id === 'data') {
      if (sampleRate === 0) throw new Error('WAVE data before its format');
      // Writers that stream (flite to a pipe) may leave the size unset; take what is there.
      const end = Math.min(file.length, body + size);
      const samples = new Int16Array((end - body) >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = file.readInt16LE(body + i * 2);
      return { sampleRate, samples };
    }
    offset = body + size + (size & 1);
  }
  throw new Error('WAVE file has no data chunk');
}

/** Wraps pcm16 mono samples in a WAVE header (test fixtures, debugging). */
export function encodeWav(clip: PcmClip): Buffer {
  const data = Buffer.alloc(clip.samples.length * 2);
  clip.samples.forEach((sample, i) => data.writeInt16LE(sample, i * 2));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(clip.sampleRate, 24);
  header.writeUInt32LE(clip.sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
