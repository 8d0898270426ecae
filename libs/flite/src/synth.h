// Synthesis through Debian's libflite, independent of N-API so it can run on any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flitenode {

struct Segment {
  std::string name;
  float end = 0;  // seconds from the start of the utterance, as flite stores it
};

struct Speech {
  std::vector<int16_t> samples;  // mono pcm16
  int sampleRate = 0;
  std::vector<Segment> segments;
};

// Whether `voice` is one of the voices this addon links (rms, awb, slt, kal, kal16).
bool IsKnownVoice(const std::string& voice);

// Synthesises `text` as one utterance, exactly as `flite -voice V -t TEXT` does (flite_synth_text).
// Thread-safe: calls are serialised. Returns false and sets `error` when flite fails.
bool Synthesize(const std::string& voice, const std::string& text, Speech& out, std::string& error);

}  // namespace flitenode
