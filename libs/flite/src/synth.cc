#include "synth.h"

#include <flite.h>

#include <csetjmp>
#include <cstdlib>
#include <mutex>

extern "C" {
cst_voice* register_cmu_us_rms(const char* voxdir);
cst_voice* register_cmu_us_awb(const char* voxdir);
cst_voice* register_cmu_us_slt(const char* voxdir);
cst_voice* register_cmu_us_kal(const char* voxdir);
cst_voice* register_cmu_us_kal16(const char* voxdir);
}

namespace flitenode {

namespace {

struct VoiceEntry {
  const char* name;
  cst_voice* (*reg)(const char* voxdir);
};

constexpr VoiceEntry kVoices[] = {
    {"rms", register_cmu_us_rms}, {"awb", register_cmu_us_awb},     {"slt", register_cmu_us_slt},
    {"kal", register_cmu_us_kal}, {"kal16", register_cmu_us_kal16},
};
constexpr size_t kVoiceCount = sizeof(kVoices) / sizeof(kVoices[0]);

// flite does not claim to be thread-safe: a voice's feature table is read and written during
// synthesis, the lexicon and regex tables are shared, and its error handler (cst_errjmp) is one
// process-wide pointer. So the whole library is used by one thread at a time.
std::mutex libraryMutex;
bool libraryReady = false;
cst_voice* registered[kVoiceCount] = {};

// Caller holds libraryMutex. A voice is registered on its first use, on the worker thread, and
// kept for the life of the process, as the flite CLI does for its one run.
cst_voice* VoiceFor(const std::string& name) {
  if (!libraryReady) {
    flite_init();
    libraryReady = true;
  }
  for (size_t i = 0; i < kVoiceCount; ++i) {
    if (name != kVoices[i].name) continue;
    if (registered[i] == nullptr) registered[i] = kVoices[i].reg(nullptr);
    return registered[i];
  }
  return nullptr;
}

// flite reports an internal error with cst_error(), which calls exit() unless cst_errjmp points at
// a jump buffer; the service must not exit on a sentence, so flite's calls run under setjmp. This
// frame holds no C++ object with a destructor, which longjmp would skip. After an error the
// utterance is leaked: flite gives no way to know it is safe to free.
bool RunGuarded(const char* text, cst_voice* voice, Speech* out) {
  jmp_buf jump;
  jmp_buf* const previous = cst_errjmp;
  if (setjmp(jump) != 0) {
    cst_errjmp = previous;
    return false;
  }
  cst_errjmp = &jump;
  cst_utterance* utt = flite_synth_text(text, voice);
  if (utt == nullptr) {
    cst_errjmp = previous;
    return false;
  }
  const cst_wave* wave = utt_wave(utt);
  out->sampleRate = wave->sample_rate;
  // Every voice linked here is mono.
  out->samples.assign(wave->samples, wave->samples + wave->num_samples);
  // What `flite -psdur` prints: every item of the Segment relation, its name and end time.
  // Both features are read before the std::string is built, so no longjmp can skip its destructor.
  for (cst_item* item = relation_head(utt_relation(utt, "Segment")); item != nullptr; item = item_next(item)) {
    const char* name = item_feat_string(item, "name");
    const float end = item_feat_float(item, "end");
    out->segments.push_back(Segment{name, end});
  }
  delete_utterance(utt);
  cst_errjmp = previous;
  return true;
}

}  // namespace

bool IsKnownVoice(const std::string& voice) {
  for (const VoiceEntry& entry : kVoices) {
    if (voice == entry.name) return true;
  }
  return false;
}

bool Synthesize(const std::string& voice, const std::string& text, Speech& out, std::string& error) {
  std::lock_guard<std::mutex> lock(libraryMutex);
  cst_voice* v = VoiceFor(voice);
  if (v == nullptr) {
    error = "unknown flite voice: " + voice;
    return false;
  }
  // The clustergen voices (rms, awb, slt) draw their excitation noise from the C library's rand(),
  // which the flite CLI starts from its default seed in every process: seeding it the same way
  // before each sentence gives the CLI's exact samples, and the same samples on every call.
  srand(1);
  if (!RunGuarded(text.c_str(), v, &out)) {
    error = "flite could not synthesise the text";
    return false;
  }
  return true;
}

}  // namespace flitenode
