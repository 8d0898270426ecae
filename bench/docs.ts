/** npm run bench:docs — rewrites docs/benchmarks.md from the committed bench/results/*.json. */
import { writeBenchmarksDoc } from './support/benchmarks-doc';

process.stdout.write(`→ ${writeBenchmarksDoc()}\n`);
