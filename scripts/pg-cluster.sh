#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and benches, never the system's own:
#
#   scripts/pg-cluster.sh start DIR [--durable]   # prints the cluster's URL on stdout
#   scripts/pg-cluster.sh database URL NAME       # makes database NAME there, prints its URL
#   scripts/pg-cluster.sh stop DIR                # stops it and removes DIR
#   scripts/pg-cluster.sh halt DIR                # stops the server, keeps DIR (a restart's first half)
#   scripts/pg-cluster.sh resume DIR              # starts it again, on the same port and settings
#
# DIR's parent folder must be open to others (the cluster's owner may be `nobody`). `start`
# installs PostgreSQL from Debian's packages when it is missing (as root: CI runs on a
# fresh machine), makes DIR, runs `initdb` there as an unprivileged user (PostgreSQL refuses to
# run as root: `nobody` then), and starts the server with `pg_ctl` on a free port of 127.0.0.1
# only (no Unix socket). The superuser `gomoku` may connect from 127.0.0.1 without a password;
# the URL names its `postgres` database, where tests create databases of their own. Without
# `--durable` the cluster does not fsync (tests kill the service, never PostgreSQL, so nothing
# they check depends on it); a benchmark passes `--durable` to measure commits as they would be.
set -euo pipefail

die() { echo "pg-cluster: $*" >&2; exit 1; }

bin_dir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$dir" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "pg-cluster: installing PostgreSQL (apt-get install postgresql)" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  fi
  [ -n "$dir" ] && [ -x "$dir/initdb" ] || die "PostgreSQL's initdb not found (apt-get install postgresql)"
  echo "$dir"
}

# Runs a command as the cluster's owner: this user, or `nobody` when this is root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local dir=$1 durable=${2:-}
  local bin port
  bin=$(bin_dir)
  [ ! -e "$dir" ] || die "$dir exists already"
  mkdir -p "$dir"
  chmod 755 "$dir"
  mkdir "$dir/data"
  [ "$(id -u)" != 0 ] || chown nobody:nogroup "$dir" "$dir/data"
  as_owner "$bin/initdb" -D "$dir/data" -U gomoku --auth=trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  local settings="-c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=300"
  if [ "$durable" != "--durable" ]; then
    settings="$settings -c fsync=off -c full_page_writes=off"
  fi
  # A few tries: another program may take the free port before the server binds it.
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port $settings" start >/dev/null 2>&1; then
      # What `resume` starts it with again.
      echo "-p $port $settings" >"$dir/options"
      echo "postgres://gomoku@127.0.0.1:$port/postgres"
      return 0
    fi
  done
  cat "$dir/server.log" >&2 || true
  die "the server did not start"
}

stop() {
  local dir=$1 bin
  [ -d "$dir/data" ] || { rm -rf "$dir"; return 0; }
  bin=$(bin_dir)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

# A fast shutdown, as an operator's restart does it: sessions are ended, clients see the
# connection go.
halt() {
  local dir=$1 bin
  [ -f "$dir/options" ] || die "no cluster in $dir"
  bin=$(bin_dir)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || die "the server did not stop"
}

resume() {
  local dir=$1 bin
  [ -f "$dir/options" ] || die "no cluster in $dir"
  bin=$(bin_dir)
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "$(cat "$dir/options")" start >/dev/null \
    || { cat "$dir/server.log" >&2; die "the server did not start again"; }
}

database() {
  local url=$1 name=$2 bin
  bin=$(bin_dir)
  "$bin/psql" "$url" -qc "create database $name" >/dev/null || die "could not create database $name"
  echo "${url%/*}/$name"
}

case "${1:-}" in
  start) [ $# -ge 2 ] || die "usage: $0 start DIR [--durable]"; start "$2" "${3:-}" ;;
  database) [ $# -eq 3 ] || die "usage: $0 database URL NAME"; database "$2" "$3" ;;
  stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
  halt) [ $# -eq 2 ] || die "usage: $0 halt DIR"; halt "$2" ;;
  resume) [ $# -eq 2 ] || die "usage: $0 resume DIR"; resume "$2" ;;
  *) die "usage: $0 start DIR [--durable] | database URL NAME | stop DIR | halt DIR | resume DIR" ;;
esac
