#!/bin/sh
# A study answered to its recommendation over the dashboard's JSON API, from a POSIX shell with curl and
# jq: no Python on the client's side (see docs/http_api.md).
#
#   safebandits dashboard --storage sqlite:///study.db --port 8080 --token "$SAFEBANDITS_TOKEN" &
#   SAFEBANDITS_URL=http://127.0.0.1:8080 SAFEBANDITS_TOKEN=... sh examples/http_api_client.sh [NAME]
#
# The study: ACOL on the built-in problem acol/one-dimensional (5 arms, binary feedback, threshold 0.25).
# Each query is a batch (counts[k] pulls of arm k), answered with each arm's sum of +1/-1 answers. The
# "world" here is a fixed rule: arm k answers +1 a fraction (1 + 0.06 (k + 1)) / 2 of the time (mean
# 0.06 (k + 1): arms 0-3 feasible, arm 4 not), rounded to whole answers. Prints the recommendation as
# JSON; exits non-zero with the server's error message if a call is refused.
set -eu

base="${SAFEBANDITS_URL:-http://127.0.0.1:8080}/api/v1"
name="${1:-curl-demo}"
max_queries="${MAX_QUERIES:-50}"

# api METHOD PATH [JSON]: the response body on stdout; an HTTP error prints its message and fails. The
# token goes to curl on its standard input (never on the command line, where other users could see it).
api() {
    method=$1
    path=$2
    body=${3:-}
    config="header = \"Content-Type: application/json\""
    if [ -n "${SAFEBANDITS_TOKEN:-}" ]; then
        config="$config
header = \"Authorization: Bearer $SAFEBANDITS_TOKEN\""
    fi
    if [ -n "$body" ]; then
        reply=$(printf '%s\n' "$config" | curl -sS --max-time 60 --config - -X "$method" \
            --data-binary "$body" -w '\n%{http_code}' "$base$path")
    else
        reply=$(printf '%s\n' "$config" | curl -sS --max-time 60 --config - -X "$method" \
            -w '\n%{http_code}' "$base$path")
    fi
    status=$(printf '%s\n' "$reply" | tail -n 1)
    reply=$(printf '%s\n' "$reply" | sed '$d')
    case "$status" in
        2??) printf '%s\n' "$reply" ;;
        *)
            printf '%s %s: HTTP %s: %s\n' "$method" "$path" "$status" \
                "$(printf '%s' "$reply" | jq -r '.error.message' 2>/dev/null || printf '%s' "$reply")" >&2
            return 1
            ;;
    esac
}

api POST /studies "{\"name\": \"$name\", \"algorithm\": \"acol\", \"instance\": \"acol/one-dimensional\",
    \"instance_params\": {\"noise\": \"binary\", \"n_arms\": 5}, \"seed\": 7}" >/dev/null

n=0
while [ "$(api GET "/studies/$name" | jq -r '.done')" != "true" ]; do
    n=$((n + 1))
    if [ "$n" -gt "$max_queries" ]; then
        echo "not done after $max_queries queries" >&2
        exit 1
    fi
    query=$(api POST "/studies/$name/ask")
    id=$(printf '%s' "$query" | jq -r '.id')
    # The answer: per arm k, 2 p - n where n = counts[k] and p = floor(n (1 + 0.06 (k + 1)) / 2 + 0.5).
    answer=$(printf '%s' "$query" | jq -c '.counts as $c | {constraint_sums: [range(0; $c | length) as $k
        | [($c[$k] as $n | (($n * (1 + 0.06 * ($k + 1)) / 2 + 0.5) | floor) * 2 - $n)]]}')
    api POST "/studies/$name/tell" "{\"id\": $id, \"answer\": $answer}" >/dev/null
done

api GET "/studies/$name/recommendation" | jq -c '{arm, final, n_samples, queries: '"$n"'}'
