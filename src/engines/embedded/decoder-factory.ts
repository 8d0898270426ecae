/**
 * Creates pocketsphinx decoders ready for their first stream.
 *
 * pocketsphinx normalises features by a running cepstral mean that only updates at utterance
 * ends; until then it uses the initial mean from the model's feat.params, which the model forces
 * over any command-line value and which is far from this engine's 24 kHz input (C0 41 against
 * about 54 measured). So a fresh decoder misrecognised its first utterance badly (measured,
 * first utterance of a fresh decoder: LibriVox WER 0.42, cards 0.43, flite slt 0.16), and since
 * decoders are pooled, that is every new session's first turn until the pool is warm. Decoding one
 * synthesised sentence first moves the mean to speech at a normal level (same measurement: 0.37,
 * 0.29, 0.11). It costs one flite call per engine and about 0.25 s of thread-pool time per decoder.
 */
import { DecoderArgs, ModelPaths, PocketsphinxDecoder } from '../../../libs/pocketsphinx';
import type { EngineLogger } from './engine-options';
import { Synthesizer } from './output/response-player';

export const PRIMER_TEXT = 'Hello, I am listening, so please go ahead and tell me what you need.';
const SAMPLES_PER_MS = 24;

export class DecoderFactory {
  private primer: Promise<Int16Array | null> | null = null;

  constructor(
    private readonly model: ModelPaths,
    private readonly args: DecoderArgs,
    private readonly synthesizer: Synthesizer,
    private readonly logger: EngineLogger | undefined,
  ) {}

  async create(): Promise<PocketsphinxDecoder> {
    const [decoder, primer] = await Promise.all([
      PocketsphinxDecoder.create(this.model, this.args),
      this.primerAudio(),
    ]);
    if (primer) {
      await decoder.startUtt();
      await decoder.process(primer);
      await decoder.endUtt();
    }
    return decoder;
  }

  /** The primer sentence at 24 kHz with silence around it, synthesised once per engine. */
  private primerAudio(): Promise<Int16Array | null> {
    this.primer ??= this.synthesizer.synthesize(PRIMER_TEXT).then(
      (speech) => {
        const audio = new Int16Array(speech.pcm.length + 550 * SAMPLES_PER_MS);
        audio.set(speech.pcm, 250 * SAMPLES_PER_MS);
        return audio;
      },
      (error: unknown) => {
        // Without flite the engine still recognises; only the first turns are less accurate.
        this.logger?.warn?.(
          `speech engine: no primer sentence (${error instanceof Error ? error.message : String(error)})`,
        );
        return null;
      },
    );
    return this.primer;
  }
}
