#include <napi.h>
#include <err.h>

#include "decoder.h"

namespace {

Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  // pocketsphinx logs every configuration value and search statistic to stderr; a service must
  // stay quiet, so the library's log stream is switched off once for the whole process.
  err_set_logfp(nullptr);
  exports.Set("Decoder", psnode::Decoder::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(pocketsphinx, InitModule)
