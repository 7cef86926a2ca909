#!/usr/bin/env bash
# The project's one test command: every Rust suite, then the mini-program's compile check, unit and
# end-to-end tests (against the real server binary), then the OpenAPI fuzz run. Installs what it
# needs on a fresh machine (npm packages from package-lock.json, schemathesis in a venv).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: cargo test --workspace"
cargo test --workspace --locked

echo "== Mini-program: compile check, unit and end-to-end tests"
cargo build --locked --bin gomoku-server
(
  cd miniprogram
  npm ci --no-audit --no-fund --loglevel=error
  GOMOKU_SERVER_BIN="$PWD/../target/debug/gomoku-server" npm test
)

if [ -x scripts/schemathesis.sh ]; then
  echo "== API fuzzing from the OpenAPI description (schemathesis)"
  scripts/schemathesis.sh
fi
