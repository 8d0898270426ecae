// Validates Kubernetes objects against the Kubernetes OpenAPI schemas (kubernetes-models) and the
// Prometheus Operator CRDs' schemas. ESM packages, so the Jest suite runs this as a child process:
// a JSON array of objects on stdin, a JSON array of { index, error } on stdout (empty when all are valid).
import * as kubernetes from 'kubernetes-models';
import * as prometheusOperator from '@kubernetes-models/prometheus-operator';

const camel = (group) =>
  group
    .split(/[.-]/)
    .map((part, i) => (i === 0 ? part : part[0].toUpperCase() + part.slice(1)))
    .join('');

function modelOf({ apiVersion, kind }) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const groupModule = group === '' ? kubernetes : (kubernetes[camel(group)] ?? prometheusOperator[camel(group)]);
  return groupModule?.[version]?.[kind];
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const failures = [];
JSON.parse(input).forEach((object, index) => {
  const Model = typeof object?.apiVersion === 'string' ? modelOf(object) : undefined;
  if (!Model) {
    failures.push({ index, error: `no schema for ${object?.apiVersion} ${object?.kind}` });
    return;
  }
  try {
    new Model(object).validate();
  } catch (error) {
    failures.push({ index, error: String(error.message ?? error) });
  }
});
process.stdout.write(JSON.stringify(failures));
