// N-API surface: synthesize(voice, text) → Promise<{ samples, sampleRate, segments }>, run in an
// AsyncWorker on the libuv thread pool so synthesis never blocks the event loop.
#include <napi.h>

#include <cstring>
#include <string>
#include <utility>

#include "synth.h"

namespace {

class SynthesizeWorker : public Napi::AsyncWorker {
 public:
  SynthesizeWorker(Napi::Env env, std::string voice, std::string text)
      : Napi::AsyncWorker(env, "flite"),
        deferred_(Napi::Promise::Deferred::New(env)),
        voice_(std::move(voice)),
        text_(std::move(text)) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    std::string error;
    if (!flitenode::Synthesize(voice_, text_, speech_, error)) SetError(error);
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Int16Array samples = Napi::Int16Array::New(env, speech_.samples.size());
    if (!speech_.samples.empty()) {
      std::memcpy(samples.Data(), speech_.samples.data(), speech_.samples.size() * sizeof(int16_t));
    }
    Napi::Array segments = Napi::Array::New(env, speech_.segments.size());
    for (size_t i = 0; i < speech_.segments.size(); ++i) {
      Napi::Object segment = Napi::Object::New(env);
      segment.Set("name", speech_.segments[i].name);
      segment.Set("endSeconds", static_cast<double>(speech_.segments[i].end));
      segments.Set(static_cast<uint32_t>(i), segment);
    }
    Napi::Object result = Napi::Object::New(env);
    result.Set("samples", samples);
    result.Set("sampleRate", speech_.sampleRate);
    result.Set("segments", segments);
    deferred_.Resolve(result);
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::string voice_;
  std::string text_;
  flitenode::Speech speech_;
};

Napi::Value Reject(Napi::Env env, const std::string& message) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Reject(Napi::TypeError::New(env, message).Value());
  return deferred.Promise();
}

// Checked here, before a thread is taken, so misuse rejects at once and never reaches flite.
Napi::Value Synthesize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsString()) {
    return Reject(env, "synthesize(voice: string, text: string)");
  }
  std::string voice = info[0].As<Napi::String>().Utf8Value();
  std::string text = info[1].As<Napi::String>().Utf8Value();
  if (!flitenode::IsKnownVoice(voice)) {
    return Reject(env, "unknown flite voice '" + voice + "' (rms, awb, slt, kal or kal16)");
  }
  if (text.find_first_not_of(" \t\r\n\f\v") == std::string::npos) return Reject(env, "flite: text is empty");
  // flite reads a C string: a NUL would silently cut the text short.
  if (text.find('\0') != std::string::npos) return Reject(env, "flite: text contains a NUL character");
  auto* worker = new SynthesizeWorker(env, std::move(voice), std::move(text));
  Napi::Promise promise = worker->Promise();
  worker->Queue();  // the worker deletes itself once settled
  return promise;
}

Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  exports.Set("synthesize", Napi::Function::New(env, Synthesize, "synthesize"));
  return exports;
}

}  // namespace

NODE_API_MODULE(flite, InitModule)
