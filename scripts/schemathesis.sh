#!/usr/bin/env bash
# Fuzzes the HTTP API from its own OpenAPI description (GET /api/v1/openapi.json) with
# schemathesis, against the real server (issue 5): every generated request must get a non-5xx
# answer whose status, content type and body match what the description documents, and every
# request the description calls valid must be accepted (positive data acceptance: not a 400, 413,
# 415 or 422). Two exceptions: the importer, where a record of the documented shape may still not
# be a legal game (players alternate, stones land on free points inside the board), which no
# schema can say, so 422 INVALID_RECORD is an accepted answer there; and a new name (PUT and PATCH
# /me), whose rule is Unicode's character properties (no format, default-ignorable, private-use or
# unassigned character, no combining mark first: store::players::Name), which the description's
# pattern can only approximate (a JSON Schema pattern has no property classes that schemathesis
# reads), so 422 INVALID_NAME is an accepted answer there.
#
# Installs a pinned schemathesis into a venv under target/, builds and starts gomoku-server on a
# temporary database with the rate limits off and a short master budget, makes a player, and runs
# at least
# SCHEMATHESIS_MIN_REQUESTS (default 1000) generated requests. Exits non-zero on any failure or if
# fewer requests were made; ends with a `schemathesis: N passed, M failed` line.
#
# Knobs (environment): SCHEMATHESIS_MAX_EXAMPLES (cases per operation and phase, default 150),
# SCHEMATHESIS_SEED (default 1; any integer repeats a run), SCHEMATHESIS_MIN_REQUESTS,
# SCHEMATHESIS_CHECKS (default: no 5xx, and status code, content type and body as documented),
# GOMOKU_SERVER_BIN (skip the build and use this binary), SCHEMATHESIS_DATABASE_URL (the database
# the server runs on, empty when the run begins: default a SQLite file in a temporary folder;
# `scripts/test.sh` runs once more on a PostgreSQL database).
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.32.5
venv=$PWD/target/schemathesis-venv
max_examples=${SCHEMATHESIS_MAX_EXAMPLES:-150}
seed=${SCHEMATHESIS_SEED:-1}
min_requests=${SCHEMATHESIS_MIN_REQUESTS:-1000}
checks=${SCHEMATHESIS_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,positive_data_acceptance}

if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -qF "$version"; then
  echo "schemathesis: installing schemathesis==$version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi

server=${GOMOKU_SERVER_BIN:-}
if [ -z "$server" ]; then
  cargo build --locked --quiet --bin gomoku-server
  server=target/debug/gomoku-server
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

database_url=${SCHEMATHESIS_DATABASE_URL:-sqlite://$work/gomoku.db}
echo "schemathesis: the server runs on ${database_url%%://*}"
RUST_LOG=warn "$server" --addr 127.0.0.1:0 --database-url "$database_url" \
  --write-rate-limit 0 --hints-per-minute 0 --sessions-per-minute 0 --ai-master-ms 200 \
  --max-unfinished-games 1000000 >"$work/stdout" 2>"$work/server.log" &
server_pid=$!
addr=
for _ in $(seq 600); do
  addr=$(sed -n 's/^listening on //p' "$work/stdout" | head -n 1)
  [ -n "$addr" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "schemathesis: the server exited at start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$addr" ] || { echo "schemathesis: the server did not start within 60 s" >&2; exit 1; }
base="http://$addr"

# A player, and games of theirs for the operations on one game: without real ids nearly every
# generated request for /games/{id}/... would stop at 404. Each operation gets a game of its own
# (three moves in, so undo, replay, export and hint have something to work on); DELETE keeps
# generated ids, so it cannot take the others' games away (it can cancel the online games the
# player creates, not those a friend joined). Moves go to a 19x19 freestyle game,
# where every documented row and column is on the board and no point is forbidden: a move the
# description calls valid then lands or meets a state conflict (409). Logout gets a token of its
# own, so that it does not end the session every other operation uses.
token=$(python3 - "$base" "$work/schemathesis.toml" <<'EOF'
import json, sys, urllib.request
base, config = sys.argv[1], sys.argv[2]

def call(path, body, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else b""
    request = urllib.request.Request(base + path, data=data, headers=headers, method="POST")
    return json.load(urllib.request.urlopen(request, timeout=30))

token = call("/api/v1/sessions", {})["token"]
renju = {"mode": "local", "rule": "renju", "boardSize": 15}
operations = [
    ("GET", "/api/v1/games/{id}", renju),
    ("POST", "/api/v1/games/{id}/moves", {"mode": "local", "rule": "freestyle", "boardSize": 19}),
    ("POST", "/api/v1/games/{id}/undo", renju),
    ("POST", "/api/v1/games/{id}/resign", renju),
    ("GET", "/api/v1/games/{id}/replay", renju),
    ("GET", "/api/v1/games/{id}/export", renju),
    ("GET", "/api/v1/games/{id}/hint", renju),
]
with open(config, "w") as out:
    for method, path, settings in operations:
        game = call("/api/v1/games", settings, token)
        for ply, (row, col) in enumerate([(7, 7), (7, 8), (8, 8)]):
            call("/api/v1/games/%s/moves" % game["id"], {"row": row, "col": col, "ply": ply}, token)
        out.write('[[operations]]\ninclude-name = "%s %s"\n' % (method, path))
        out.write('parameters = { "path.id" = "%s" }\n\n' % game["id"])
    # Online games: the player's own waiting game for join (joining one's own game answers
    # 200), a game with a second player (who joined) for takeback and draw offers, the
    # player having moved once, and a game the player resigned for rematch offers; the live
    # stream, which answers a plain GET with 426 UPGRADE_REQUIRED before any upgrade, gets a
    # game of its own.
    friend = call("/api/v1/sessions", {})["token"]
    waiting = call("/api/v1/games", {"mode": "online", "seat": "black"}, token)
    out.write('[[operations]]\ninclude-name = "POST /api/v1/games/{id}/join"\n')
    out.write('parameters = { "path.id" = "%s" }\n\n' % waiting["id"])
    for path in ["/api/v1/games/{id}/takeback", "/api/v1/games/{id}/draw"]:
        game = call("/api/v1/games", {"mode": "online", "seat": "black", "boardSize": 19}, token)
        call("/api/v1/games/%s/join" % game["id"], {}, friend)
        call("/api/v1/games/%s/moves" % game["id"], {"row": 0, "col": 0, "ply": 0}, token)
        out.write('[[operations]]\ninclude-name = "POST %s"\n' % path)
        out.write('parameters = { "path.id" = "%s" }\n\n' % game["id"])
    ended = call("/api/v1/games", {"mode": "online", "seat": "black"}, token)
    call("/api/v1/games/%s/join" % ended["id"], {}, friend)
    call("/api/v1/games/%s/resign" % ended["id"], {}, token)
    out.write('[[operations]]\ninclude-name = "POST /api/v1/games/{id}/rematch"\n')
    out.write('parameters = { "path.id" = "%s" }\n\n' % ended["id"])
    # The analysis: one game of three moves for both its operations, analysed once already, so
    # that GET finds it (POST then answers 200 done, or 202 while it runs).
    analysed = call("/api/v1/games", renju, token)
    for ply, (row, col) in enumerate([(7, 7), (7, 8), (8, 8)]):
        call("/api/v1/games/%s/moves" % analysed["id"], {"row": row, "col": col, "ply": ply}, token)
    call("/api/v1/games/%s/analysis" % analysed["id"], None, token)
    for method in ["GET", "POST"]:
        out.write('[[operations]]\ninclude-name = "%s /api/v1/games/{id}/analysis"\n' % method)
        out.write('parameters = { "path.id" = "%s" }\n\n' % analysed["id"])
    live = call("/api/v1/games", {"mode": "online"}, token)
    out.write('[[operations]]\ninclude-name = "GET /api/v1/games/{id}/live"\n')
    out.write('parameters = { "path.id" = "%s" }\n' % live["id"])
    out.write('checks.positive_data_acceptance.expected-statuses = '
              '["2xx", "401", "403", "404", "409", "426", "429", "5xx"]\n\n')
    # The player's own channel answers a plain GET with 426 like a game's stream.
    out.write('[[operations]]\ninclude-name = "GET /api/v1/live"\n')
    out.write('checks.positive_data_acceptance.expected-statuses = '
              '["2xx", "401", "403", "404", "409", "426", "429", "5xx"]\n\n')
    # Rules across fields that a JSON schema cannot state: an opening rule suits only some
    # rules, and a seek must name one of the seven pools (rule, size and time control together).
    for name in ["POST /api/v1/games", "POST /api/v1/seeks"]:
        out.write('[[operations]]\ninclude-name = "%s"\n' % name)
        out.write('checks.positive_data_acceptance.expected-statuses = '
                  '["2xx", "401", "404", "409", "422", "429", "5xx"]\n\n')
    logout = call("/api/v1/sessions", {})["token"]
    out.write('[[operations]]\ninclude-name = "DELETE /api/v1/sessions/current"\n')
    out.write('headers = { Authorization = "Bearer %s" }\n\n' % logout)
    for name in ["POST /api/v1/games/import", "PUT /api/v1/me", "PATCH /api/v1/me"]:
        out.write('[[operations]]\ninclude-name = "%s"\n' % name)
        out.write('checks.positive_data_acceptance.expected-statuses = '
                  '["2xx", "401", "404", "409", "422", "429", "5xx"]\n\n')
print(token)
EOF
)

echo "schemathesis: $version against $base (seed $seed, $max_examples examples per operation, checks $checks)"
# Run from the scratch folder: schemathesis keeps a cache (.schemathesis/) in its working folder.
status=0
cd "$work"
"$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run "$base/api/v1/openapi.json" \
  --url "$base" \
  --header "Authorization: Bearer $token" \
  --checks "$checks" \
  --max-examples "$max_examples" \
  --seed "$seed" \
  --workers 2 \
  --request-timeout 30 \
  --report har --report-har-path "$work/requests.har" \
  --output-truncate false \
  2>&1 | tee "$work/output.txt" || status=$?

# What was actually sent (the HAR log has one entry per request), and schemathesis's own count of
# test cases from its summary ("Test cases: N generated, N passed, N failed").
requests=$(python3 -c 'import json, sys
try: print(len(json.load(open(sys.argv[1]))["log"]["entries"]))
except (OSError, ValueError, KeyError): print(0)' "$work/requests.har")
summary=$(grep -E '^ *[0-9]+ generated' "$work/output.txt" | tail -n 1 || true)
generated=$(sed -nE 's/^ *([0-9]+) generated.*/\1/p' <<<"$summary")
failed=$(sed -nE 's/.* ([0-9]+) unique failures.*/\1/p' <<<"$summary")
generated=${generated:-0}
failed=${failed:-0}

if grep -q "panicked" "$work/server.log"; then
  echo "schemathesis: the server panicked:" >&2
  grep -A5 "panicked" "$work/server.log" >&2
  status=1
fi
if [ "$requests" -lt "$min_requests" ]; then
  echo "schemathesis: only $requests requests were made, fewer than $min_requests" >&2
  status=1
fi
echo "schemathesis: $requests requests sent for $generated generated test cases, exit status $status"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1
fi
echo "schemathesis: $((generated - failed)) passed, $failed failed"
exit "$status"
