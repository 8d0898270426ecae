#include "workers.h"

#include <utility>

namespace psnode {

namespace {

class JobWorker : public Napi::AsyncWorker {
 public:
  JobWorker(Napi::Env env, Decoder* owner, Napi::Object self, Job job, JobInput input)
      : Napi::AsyncWorker(env, "pocketsphinx"),
        deferred_(Napi::Promise::Deferred::New(env)),
        // Keeps the wrapper (and so the decoder) alive until the job has settled.
        self_(Napi::Persistent(self)),
        state_(owner->State()),
        job_(job),
        input_(std::move(input)) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    std::lock_guard<std::mutex> lock(state_.mutex);
    switch (job_) {
      case Job::Init: return DoInit();
      case Job::StartUtt: return DoStartUtt();
      case Job::Process: return DoProcess();
      case Job::EndUtt: return DoEndUtt();
      case Job::Free: return DoFree();
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (job_ == Job::Process || job_ == Job::EndUtt) {
      deferred_.Resolve(HypothesisToJs(env, result_));
    } else {
      deferred_.Resolve(env.Undefined());
    }
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  bool RequireDecoder() {
    if (state_.ps != nullptr) return true;
    SetError("decoder is not initialised or was freed");
    return false;
  }

  void DoInit() {
    if (state_.ps != nullptr) return SetError("decoder is already initialised");
    // cmd_ln_parse_r reads argv as a program's main() would: argv[0] is the program name.
    std::vector<char*> argv;
    static char program[] = "continuum";
    argv.push_back(program);
    for (std::string& arg : input_.args) argv.push_back(arg.data());
    cmd_ln_t* config = cmd_ln_parse_r(nullptr, ps_args(), static_cast<int32>(argv.size()), argv.data(), TRUE);
    if (config == nullptr) return SetError("pocketsphinx rejected the configuration");
    ps_decoder_t* ps = ps_init(config);
    // The decoder holds its own reference to the configuration.
    cmd_ln_free_r(config);
    if (ps == nullptr) return SetError("pocketsphinx could not load the model (check -hmm, -lm and -dict)");
    state_.ps = ps;
  }

  void DoStartUtt() {
    if (!RequireDecoder()) return;
    // An utterance left open (a stream that failed mid-way) is dropped rather than poisoning a
    // pooled decoder for its next stream.
    if (state_.inUtterance) ps_end_utt(state_.ps);
    state_.inUtterance = false;
    if (ps_start_utt(state_.ps) < 0) return SetError("ps_start_utt failed");
    state_.inUtterance = true;
  }

  void DoProcess() {
    if (!RequireDecoder()) return;
    if (!state_.inUtterance) return SetError("process() called outside an utterance");
    if (!input_.samples.empty() &&
        ps_process_raw(state_.ps, input_.samples.data(), input_.samples.size(), FALSE, FALSE) < 0) {
      return SetError("ps_process_raw failed");
    }
    result_ = state_.Read(input_.withSegments);
  }

  void DoEndUtt() {
    if (!RequireDecoder()) return;
    if (!state_.inUtterance) return SetError("endUtt() called outside an utterance");
    state_.inUtterance = false;
    if (ps_end_utt(state_.ps) < 0) return SetError("ps_end_utt failed");
    result_ = state_.Read(input_.withSegments);
  }

  void DoFree() {
    if (state_.ps == nullptr) return;
    if (state_.inUtterance) ps_end_utt(state_.ps);
    state_.inUtterance = false;
    ps_free(state_.ps);
    state_.ps = nullptr;
  }

  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference self_;
  DecoderState& state_;
  Job job_;
  JobInput input_;
  Hypothesis result_;
};

}  // namespace

Napi::Promise RunJob(Napi::Env env, Decoder* owner, Napi::Object self, Job job, JobInput input) {
  auto* worker = new JobWorker(env, owner, self, job, std::move(input));
  Napi::Promise promise = worker->Promise();
  worker->Queue();  // the worker deletes itself once settled
  return promise;
}

}  // namespace psnode
