#include "decoder.h"

#include "workers.h"

namespace psnode {

DecoderState::~DecoderState() {
  // Reached from the JavaScript finalizer when free() was never called; workers hold a reference
  // to the wrapper while they run, so no job can still be using the decoder here.
  if (ps != nullptr) {
    ps_free(ps);
    ps = nullptr;
  }
}

Hypothesis DecoderState::Read(bool withSegments) {
  Hypothesis out;
  if (ps == nullptr) return out;
  int32 score = 0;
  const char* text = ps_get_hyp(ps, &score);
  if (text != nullptr) out.text = text;
  out.inSpeech = ps_get_in_speech(ps) != 0;
  out.frames = ps_get_n_frames(ps);
  if (!withSegments) return out;
  out.hasSegments = true;
  logmath_t* lmath = ps_get_logmath(ps);
  for (ps_seg_t* seg = ps_seg_iter(ps); seg != nullptr; seg = ps_seg_next(seg)) {
    int sf = 0;
    int ef = 0;
    ps_seg_frames(seg, &sf, &ef);
    int32 ascr = 0;
    int32 lscr = 0;
    int32 lback = 0;
    int32 prob = ps_seg_prob(seg, &ascr, &lscr, &lback);
    const char* word = ps_seg_word(seg);
    out.segments.push_back(Segment{word != nullptr ? word : "", sf, ef, logmath_exp(lmath, prob)});
  }
  // This pocketsphinx keeps counting frames across utterances; the first segment (<s>) starts at
  // the utterance's first frame, so shifting by it makes every segment utterance-relative.
  if (!out.segments.empty()) {
    const int base = out.segments.front().startFrame;
    for (Segment& s : out.segments) {
      s.startFrame -= base;
      s.endFrame -= base;
    }
  }
  return out;
}

Napi::Object HypothesisToJs(Napi::Env env, const Hypothesis& hyp) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("hyp", hyp.text);
  result.Set("inSpeech", hyp.inSpeech);
  result.Set("frames", hyp.frames);
  if (hyp.hasSegments) {
    Napi::Array words = Napi::Array::New(env, hyp.segments.size());
    for (size_t i = 0; i < hyp.segments.size(); ++i) {
      const Segment& s = hyp.segments[i];
      Napi::Object w = Napi::Object::New(env);
      w.Set("word", s.word);
      w.Set("startFrame", s.startFrame);
      w.Set("endFrame", s.endFrame);
      w.Set("posterior", s.posterior);
      words.Set(static_cast<uint32_t>(i), w);
    }
    result.Set("segments", words);
  }
  return result;
}

Napi::Function Decoder::Define(Napi::Env env) {
  return DefineClass(env, "Decoder",
                     {
                         InstanceMethod<&Decoder::Init>("init"),
                         InstanceMethod<&Decoder::StartUtt>("startUtt"),
                         InstanceMethod<&Decoder::Process>("process"),
                         InstanceMethod<&Decoder::EndUtt>("endUtt"),
                         InstanceMethod<&Decoder::Free>("free"),
                     });
}

Decoder::Decoder(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Decoder>(info) {}

namespace {

Napi::Value Reject(Napi::Env env, const char* message) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Reject(Napi::TypeError::New(env, message).Value());
  return deferred.Promise();
}

bool ReadFlag(const Napi::CallbackInfo& info, size_t index) {
  return info.Length() > index && info[index].IsBoolean() && info[index].As<Napi::Boolean>().Value();
}

}  // namespace

Napi::Value Decoder::Init(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsArray()) return Reject(info.Env(), "init(args: string[])");
  Napi::Array array = info[0].As<Napi::Array>();
  JobInput input;
  for (uint32_t i = 0; i < array.Length(); ++i) {
    Napi::Value item = array.Get(i);
    if (!item.IsString()) return Reject(info.Env(), "init: every argument must be a string");
    input.args.push_back(item.As<Napi::String>().Utf8Value());
  }
  if (input.args.size() % 2 != 0) return Reject(info.Env(), "init: arguments come in name/value pairs");
  return RunJob(info.Env(), this, Value(), Job::Init, std::move(input));
}

Napi::Value Decoder::StartUtt(const Napi::CallbackInfo& info) {
  return RunJob(info.Env(), this, Value(), Job::StartUtt, JobInput{});
}

Napi::Value Decoder::Process(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsTypedArray()) return Reject(info.Env(), "process(pcm: Int16Array)");
  Napi::TypedArray typed = info[0].As<Napi::TypedArray>();
  if (typed.TypedArrayType() != napi_int16_array) return Reject(info.Env(), "process: pcm must be an Int16Array");
  Napi::Int16Array pcm = typed.As<Napi::Int16Array>();
  JobInput input;
  // Copied so the caller may reuse its buffer while the job runs on another thread.
  input.samples.assign(pcm.Data(), pcm.Data() + pcm.ElementLength());
  input.withSegments = ReadFlag(info, 1);
  return RunJob(info.Env(), this, Value(), Job::Process, std::move(input));
}

Napi::Value Decoder::EndUtt(const Napi::CallbackInfo& info) {
  JobInput input;
  input.withSegments = ReadFlag(info, 0);
  return RunJob(info.Env(), this, Value(), Job::EndUtt, std::move(input));
}

Napi::Value Decoder::Free(const Napi::CallbackInfo& info) {
  return RunJob(info.Env(), this, Value(), Job::Free, JobInput{});
}

}  // namespace psnode
