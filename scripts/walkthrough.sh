#!/usr/bin/env bash
# The serverless walk-through on a laptop, against a running `npm start` (local runtime driver):
# a serverless template whose image is the echo worker of the local image catalog, an endpoint with
# workersMin 0 (saveEndpoint over GraphQL), one /runsync job (the autoscaler starts a worker process, the job
# completes), then the worker is stopped after idleTimeout; finally the endpoint and the template are deleted.
#
#   scripts/walkthrough.sh
#
# Environment: API_KEY (default: .local/bootstrap-key), BASE_URL (default http://127.0.0.1:8080),
# WORKER_IMAGE (default: the first image of apps/pod-lifecycle/local-images.json whose name contains "echo"),
# IDLE_TIMEOUT seconds (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_URL="${BASE_URL:-http://127.0.0.1:8080}"
API_KEY="${API_KEY:-$(cat .local/bootstrap-key 2>/dev/null || true)}"
IDLE_TIMEOUT="${IDLE_TIMEOUT:-5}"
if [ -z "$API_KEY" ]; then
  echo "no API key: set API_KEY or run npm start once (it writes .local/bootstrap-key)" >&2
  exit 1
fi
# JSON field extraction with the Node.js that runs the project (no jq needed): json <path> reads stdin.
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{let v=JSON.parse(s);for(const k of process.argv[1].split("."))v=v?.[k];process.stdout.write(typeof v==="object"?JSON.stringify(v):String(v))})' "$1"; }
gql() { curl -sS -X POST "$BASE_URL/graphql?api_key=$API_KEY" -H 'content-type: application/json' --data "$(node -e 'process.stdout.write(JSON.stringify({query:process.argv[1]}))' "$1")"; }
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

WORKER_IMAGE="${WORKER_IMAGE:-$(node -e 'const c=require("./apps/pod-lifecycle/local-images.json");process.stdout.write(Object.keys(c.images).find(n=>n.includes("echo"))??"")')}"
if [ -z "$WORKER_IMAGE" ]; then
  echo "no echo worker in apps/pod-lifecycle/local-images.json: set WORKER_IMAGE to an image of the local catalog" >&2
  exit 1
fi

step "template (serverless) with image $WORKER_IMAGE"
TEMPLATE=$(curl -sS -X POST "$BASE_URL/v1/templates" -H "Authorization: Bearer $API_KEY" -H 'content-type: application/json' \
  --data "{\"name\":\"walkthrough-$(date +%s)\",\"imageName\":\"$WORKER_IMAGE\",\"isServerless\":true}")
echo "$TEMPLATE"
TEMPLATE_ID=$(echo "$TEMPLATE" | json id)

step "saveEndpoint (workersMin 0, idleTimeout $IDLE_TIMEOUT)"
SAVED=$(gql "mutation { saveEndpoint(input: { name: \"walkthrough\", templateId: \"$TEMPLATE_ID\", gpuIds: \"AMPERE_16\", networkVolumeId: \"\", locations: \"\", idleTimeout: $IDLE_TIMEOUT, scalerType: \"QUEUE_DELAY\", scalerValue: 4, workersMin: 0, workersMax: 2, gpuCount: 1 }) { id name gpuIds workersMin workersMax idleTimeout } }")
echo "$SAVED"
ENDPOINT_ID=$(echo "$SAVED" | json data.saveEndpoint.id)
pods() { gql 'query { myself { endpoints { id pods { id desiredStatus status } } } }' | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const e=JSON.parse(s).data.myself.endpoints.find(e=>e.id===process.argv[1]);process.stdout.write(JSON.stringify(e?e.pods:[]))})' "$ENDPOINT_ID"; }
echo "workers now: $(pods)"

step "POST /v2/$ENDPOINT_ID/runsync (the autoscaler starts a worker from zero)"
START=$(date +%s)
curl -sS -X POST "$BASE_URL/v2/$ENDPOINT_ID/runsync?wait=120000" -H "Authorization: Bearer $API_KEY" \
  -H 'content-type: application/json' --data '{"input":{"prompt":"hello from the walkthrough"}}'
echo
echo "answered after $(($(date +%s) - START)) s; workers now: $(pods)"

step "waiting for the worker to be stopped after idleTimeout ($IDLE_TIMEOUT s)"
for _ in $(seq 1 120); do
  if [ "$(pods | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(String(JSON.parse(s).filter(p=>p.desiredStatus==="RUNNING").length)))')" = "0" ]; then
    break
  fi
  sleep 1
done
echo "workers now: $(pods)"
curl -sS "$BASE_URL/v2/$ENDPOINT_ID/health" -H "Authorization: Bearer $API_KEY"
echo

step "delete: workersMax 0, then deleteEndpoint, then the template"
gql "mutation { saveEndpoint(input: { id: \"$ENDPOINT_ID\", name: \"walkthrough\", templateId: \"$TEMPLATE_ID\", gpuIds: \"AMPERE_16\", workersMin: 0, workersMax: 0 }) { id workersMax } }"
echo
gql "mutation { deleteEndpoint(id: \"$ENDPOINT_ID\") }"
echo
for _ in $(seq 1 30); do
  if curl -sS -o /dev/null -w '%{http_code}' -X DELETE "$BASE_URL/v1/templates/$TEMPLATE_ID" -H "Authorization: Bearer $API_KEY" | grep -q '^2'; then
    echo "template $TEMPLATE_ID deleted"
    break
  fi
  sleep 1
done
