// Background jobs for one decoder. Each resolves or rejects a promise on the event loop.
#pragma once

#include <napi.h>

#include <string>
#include <vector>

#include "decoder.h"

namespace psnode {

enum class Job { Init, StartUtt, Process, EndUtt, Free };

struct JobInput {
  std::vector<std::string> args;  // Init: "-name", "value" pairs for cmd_ln_parse_r
  std::vector<int16_t> samples;   // Process: pcm16 mono at the decoder's sample rate
  bool withSegments = false;      // Process/EndUtt: also return word segments
};

// Queues `job` for `owner` and returns the promise that settles when it is done.
Napi::Promise RunJob(Napi::Env env, Decoder* owner, Napi::Object self, Job job, JobInput input);

}  // namespace psnode
