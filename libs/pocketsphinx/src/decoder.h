// A pocketsphinx decoder owned by a JavaScript object. Every call that touches the decoder runs in
// an AsyncWorker on the libuv thread pool, so recognition never blocks the event loop.
#pragma once

#include <napi.h>
#include <pocketsphinx.h>

#include <mutex>
#include <string>
#include <vector>

namespace psnode {

struct Segment {
  std::string word;
  int startFrame;
  int endFrame;
  double posterior;
};

struct Hypothesis {
  std::string text;
  bool inSpeech = false;
  int frames = 0;
  bool hasSegments = false;
  std::vector<Segment> segments;
};

// State shared between the wrapper and its workers. The mutex guards against two workers touching
// the same decoder at once; the TypeScript wrapper also queues calls so threads never wait on it.
struct DecoderState {
  std::mutex mutex;
  ps_decoder_t* ps = nullptr;
  bool inUtterance = false;

  ~DecoderState();
  // Reads the current hypothesis (and its word segments when asked). Caller holds the mutex.
  Hypothesis Read(bool withSegments);
};

class Decoder : public Napi::ObjectWrap<Decoder> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit Decoder(const Napi::CallbackInfo& info);

  DecoderState& State() { return state_; }

 private:
  Napi::Value Init(const Napi::CallbackInfo& info);
  Napi::Value StartUtt(const Napi::CallbackInfo& info);
  Napi::Value Process(const Napi::CallbackInfo& info);
  Napi::Value EndUtt(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);

  DecoderState state_;
};

// Converts a hypothesis to { hyp, inSpeech, frames, words? } for JavaScript.
Napi::Object HypothesisToJs(Napi::Env env, const Hypothesis& hyp);

}  // namespace psnode
