// For a file whose libraries test `e instanceof Error` on errors thrown by Node's own code. Node's
// web streams (and other built-ins) throw errors of the host realm; Jest's sandbox has its own
// `Error`, so the check fails there (never in production): LiveKit's stream channel rethrows the
// TypeError of closing a closed stream, which it means to swallow, as an unhandled rejection.
// Here the sandbox's `Error` and `TypeError` also recognise the host's. Per file
// (`@jest-environment ./test/support/host-errors-environment.js`): the other suites keep Jest's own.
const HostTypedArraysEnvironment = require('./node-environment');

const SHARED = ['Error', 'TypeError'];

class HostErrorsEnvironment extends HostTypedArraysEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) {
      const sandbox = this.global[name];
      const host = globalThis[name];
      Object.defineProperty(sandbox, Symbol.hasInstance, {
        // Subclasses inherit this: for them, the ordinary prototype-chain check alone.
        value(value) {
          const own = Function.prototype[Symbol.hasInstance].call(this, value);
          return own || (this === sandbox && value instanceof host);
        },
      });
    }
  }
}

module.exports = HostErrorsEnvironment;
