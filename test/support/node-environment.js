// onnxruntime-node (Silero VAD) checks tensor data with `instanceof Float32Array` against Node's own
// realm; Jest gives each test file a sandbox with its own typed-array constructors, so the check
// fails there (never in production). Sharing the host's constructors makes both sides agree.
const { TestEnvironment } = require('jest-environment-node');

const TYPED = [
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Int16Array',
  'Int32Array',
  'BigInt64Array',
  'BigUint64Array',
];

class HostTypedArraysEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of TYPED) this.global[name] = globalThis[name];
  }
}

module.exports = HostTypedArraysEnvironment;
