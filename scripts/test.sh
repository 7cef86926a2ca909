#!/usr/bin/env bash
# The project's one test command: every Rust suite on SQLite, the service's suites again on
# PostgreSQL (with the tests of two instances on one database), then the mini-program's compile
# check, unit and end-to-end tests (against the real server binary), then the OpenAPI fuzz run on
# each backend. Installs what it needs on a fresh machine (PostgreSQL from Debian's packages, npm
# packages from package-lock.json, schemathesis in a venv).
#
# PostgreSQL runs as a throwaway cluster of the run's own (scripts/pg-cluster.sh: initdb in a
# temporary folder as an unprivileged user, on a free port of 127.0.0.1), removed at the end,
# also when a step fails; the system's own cluster, if any, is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."

pg_base=$(mktemp -d)
# The cluster's owner (an unprivileged user when this runs as root) must reach its folder.
chmod 755 "$pg_base"
pg_dir=$pg_base/cluster
cleanup() {
  scripts/pg-cluster.sh stop "$pg_dir" || true
  rm -rf "$pg_base"
}
trap cleanup EXIT

echo "== PostgreSQL: a throwaway cluster for the run"
pg_url=$(scripts/pg-cluster.sh start "$pg_dir")
echo "cluster at $pg_url"

# On SQLite the tests that need PostgreSQL (two instances on one database) are listed as ignored.
echo "== Rust on SQLite: cargo test --workspace"
env -u GOMOKU_TEST_DATABASE cargo test --workspace --locked

# --include-ignored runs them too: they fail, never pass, if the cluster is missing.
echo "== Rust on PostgreSQL: the service's unit and integration tests, two instances included"
GOMOKU_TEST_DATABASE=$pg_url cargo test --locked -p gomoku -- --include-ignored

echo "== Mini-program: compile check, unit and end-to-end tests"
cargo build --locked --bin gomoku-server
(
  cd miniprogram
  npm ci --no-audit --no-fund --loglevel=error
  GOMOKU_SERVER_BIN="$PWD/../target/debug/gomoku-server" npm test
)

if [ -x scripts/schemathesis.sh ]; then
  echo "== API fuzzing from the OpenAPI description (schemathesis), on SQLite"
  env -u SCHEMATHESIS_DATABASE_URL scripts/schemathesis.sh
  echo "== API fuzzing from the OpenAPI description (schemathesis), on PostgreSQL"
  SCHEMATHESIS_DATABASE_URL=$(scripts/pg-cluster.sh database "$pg_url" schemathesis) \
    scripts/schemathesis.sh
fi
