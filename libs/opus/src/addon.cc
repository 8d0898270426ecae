// N-API surface over Debian's libopus: an Encoder and a Decoder per call, both synchronous. One
// 20 ms frame is a few tens of microseconds of work, less than a hop to the thread pool would cost.
#include <napi.h>
#include <opus.h>

#include <cstring>
#include <string>

namespace {

// 120 ms at 48 kHz stereo: the largest frame an Opus packet may decode to.
constexpr int kMaxFrameSamples = 5760;
// RFC 6716: a packet carries at most 1275 bytes per frame; 4000 is libopus's own recommended ceiling.
constexpr int kMaxPacketBytes = 4000;

Napi::Value Fail(Napi::Env env, const std::string& what, int code) {
  Napi::Error::New(env, what + ": " + opus_strerror(code)).ThrowAsJavaScriptException();
  return env.Undefined();
}

class Encoder : public Napi::ObjectWrap<Encoder> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Encoder", {InstanceMethod("encode", &Encoder::Encode)});
  }

  // new Encoder(sampleRate, channels, bitrate)
  explicit Encoder(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Encoder>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 3 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsNumber()) {
      Napi::TypeError::New(env, "Encoder(sampleRate, channels, bitrate)").ThrowAsJavaScriptException();
      return;
    }
    channels_ = info[1].As<Napi::Number>().Int32Value();
    int error = OPUS_OK;
    encoder_ = opus_encoder_create(info[0].As<Napi::Number>().Int32Value(), channels_, OPUS_APPLICATION_VOIP, &error);
    if (error != OPUS_OK) {
      encoder_ = nullptr;
      Fail(env, "opus_encoder_create", error);
      return;
    }
    opus_encoder_ctl(encoder_, OPUS_SET_BITRATE(info[2].As<Napi::Number>().Int32Value()));
    opus_encoder_ctl(encoder_, OPUS_SET_INBAND_FEC(1));
    opus_encoder_ctl(encoder_, OPUS_SET_PACKET_LOSS_PERC(5));
  }

  ~Encoder() override {
    if (encoder_ != nullptr) opus_encoder_destroy(encoder_);
  }

 private:
  // encode(Int16Array interleaved) → Buffer (one Opus packet)
  Napi::Value Encode(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int16_array) {
      Napi::TypeError::New(env, "encode(Int16Array)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    Napi::Int16Array pcm = info[0].As<Napi::Int16Array>();
    unsigned char packet[kMaxPacketBytes];
    int bytes = opus_encode(encoder_, pcm.Data(), static_cast<int>(pcm.ElementLength()) / channels_, packet,
                            kMaxPacketBytes);
    if (bytes < 0) return Fail(env, "opus_encode", bytes);
    return Napi::Buffer<unsigned char>::Copy(env, packet, static_cast<size_t>(bytes));
  }

  OpusEncoder* encoder_ = nullptr;
  int channels_ = 1;
};

class Decoder : public Napi::ObjectWrap<Decoder> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Decoder", {InstanceMethod("decode", &Decoder::Decode)});
  }

  // new Decoder(sampleRate, channels)
  explicit Decoder(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Decoder>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber()) {
      Napi::TypeError::New(env, "Decoder(sampleRate, channels)").ThrowAsJavaScriptException();
      return;
    }
    channels_ = info[1].As<Napi::Number>().Int32Value();
    int error = OPUS_OK;
    decoder_ = opus_decoder_create(info[0].As<Napi::Number>().Int32Value(), channels_, &error);
    if (error != OPUS_OK) {
      decoder_ = nullptr;
      Fail(env, "opus_decoder_create", error);
    }
  }

  ~Decoder() override {
    if (decoder_ != nullptr) opus_decoder_destroy(decoder_);
  }

 private:
  // decode(Buffer packet | null, frameSamples, fec) → Int16Array interleaved. A null packet is a lost
  // one: libopus conceals it (frameSamples long); with fec the next packet's redundancy rebuilds it.
  Napi::Value Decode(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const unsigned char* data = nullptr;
    int length = 0;
    if (info.Length() >= 1 && info[0].IsBuffer()) {
      Napi::Buffer<unsigned char> packet = info[0].As<Napi::Buffer<unsigned char>>();
      data = packet.Data();
      length = static_cast<int>(packet.Length());
    }
    int frame = kMaxFrameSamples;
    if (info.Length() >= 2 && info[1].IsNumber()) frame = info[1].As<Napi::Number>().Int32Value();
    if (frame <= 0 || frame > kMaxFrameSamples) frame = kMaxFrameSamples;
    const int fec = info.Length() >= 3 && info[2].ToBoolean().Value() ? 1 : 0;
    opus_int16 pcm[kMaxFrameSamples * 2];
    int samples = opus_decode(decoder_, data, length, pcm, frame, fec);
    if (samples < 0) return Fail(env, "opus_decode", samples);
    Napi::Int16Array out = Napi::Int16Array::New(env, static_cast<size_t>(samples) * channels_);
    std::memcpy(out.Data(), pcm, static_cast<size_t>(samples) * channels_ * sizeof(opus_int16));
    return out;
  }

  OpusDecoder* decoder_ = nullptr;
  int channels_ = 1;
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("Encoder", Encoder::Define(env));
  exports.Set("Decoder", Decoder::Define(env));
  exports.Set("version", Napi::String::New(env, opus_get_version_string()));
  return exports;
}

}  // namespace

NODE_API_MODULE(opus, Init)
