#!/usr/bin/env bash
# Every REST call with curl. Usage: BASE_URL=http://localhost:8080 API_KEY=wk_… bash examples/rest.sh
set -euo pipefail
: "${API_KEY:?set API_KEY to an API key (wk_…)}"
BASE_URL="${BASE_URL:-http://localhost:8080}"
api() { curl --silent --show-error --fail-with-body -H "Authorization: Bearer $API_KEY" "$@"; echo; }

echo '# GET /v1/models'
api "$BASE_URL/v1/models"
echo '# GET /v1/project'
api "$BASE_URL/v1/project"
echo '# POST /v1/live/client_secrets (a transcription session; the secret opens its socket once)'
secret=$(api -X POST "$BASE_URL/v1/live/client_secrets" -H 'Content-Type: application/json' \
  -d '{"expires_after":{"seconds":60},"session":{"type":"transcription","audio":{"input":{"transcription":{"language":"en"}}}}}')
echo "$secret"
session_id=$(printf '%s' "$secret" | sed -n 's/.*"id":"\(sess_[A-Za-z0-9]*\)".*/\1/p')
echo '# GET /v1/sessions'
api "$BASE_URL/v1/sessions?limit=5"
echo "# GET /v1/sessions/$session_id"
api "$BASE_URL/v1/sessions/$session_id"
echo "# DELETE /v1/sessions/$session_id"
api -X DELETE -o /dev/null -w '%{http_code}' "$BASE_URL/v1/sessions/$session_id"
echo '# GET /v1/usage'
api "$BASE_URL/v1/usage?group_by=model"
echo '# GET /v1/usage/export'
api "$BASE_URL/v1/usage/export"
echo '# GET /v1/usage/normalized-meter-events (NDJSON)'
api "$BASE_URL/v1/usage/normalized-meter-events"
