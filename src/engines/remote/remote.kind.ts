/**
 * The remote transcription engine as a configurable kind:
 *   { "kind": "remote", "protocol": "vllm-realtime", "workers": ["ws://asr:8000/v1/realtime"], … }
 * (settings and defaults in remote-settings.ts).
 */
import { engineKind } from '../registry/engine-kind';
import { RemoteSpeechEngine } from './remote-speech.engine';
import { parseRemoteSettings } from './remote-settings';

export const remoteKind = engineKind({
  kind: 'remote',
  parse: parseRemoteSettings,
  languages: (settings) => settings.languages,
  create(settings, context) {
    const { apiKey } = settings;
    // Read per stream, so a rotated Kubernetes Secret file is picked up without a restart.
    const credential = () => (apiKey === null ? undefined : context.credential(apiKey));
    if (apiKey !== null && credential() === undefined)
      throw new Error(`engine ${context.name}: its apiKey (${JSON.stringify(apiKey)}) is empty or unset`);
    return new RemoteSpeechEngine(settings, credential, context.logger);
  },
});
