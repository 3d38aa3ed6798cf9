#!/usr/bin/env bash
# Runs a command with KUBEOPERA_TEST_POSTGRES_URL pointing at a throwaway
# PostgreSQL 15 on loopback, and stops it afterwards. When the variable is
# already set, the command runs against that server instead.
#
#   hack/with-postgres.sh go test ./...
set -euo pipefail
if [ -n "${KUBEOPERA_TEST_POSTGRES_URL:-}" ]; then
	exec "$@"
fi
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$PGBIN/initdb" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "installing postgresql-15 (Debian)" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
	else
		echo "PostgreSQL 15 server binaries not found in $PGBIN: install Debian's postgresql-15," \
			"set PGBIN, or set KUBEOPERA_TEST_POSTGRES_URL to a server to use" >&2
		exit 1
	fi
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/kubeopera-pg.XXXXXX")
# initdb refuses to run as root; run the server as the postgres user then.
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
	chown postgres "$dir"
	as_pg=(runuser -u postgres --)
fi
stop() {
	"${as_pg[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap stop EXIT

port=
for _ in $(seq 1 50); do
	candidate=$((20000 + RANDOM % 20000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
		port=$candidate
		break
	fi
done
[ -n "$port" ] || { echo "no free port for PostgreSQL" >&2; exit 1; }

"${as_pg[@]}" "$PGBIN/initdb" -A trust -U postgres -D "$dir/data" >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
"${as_pg[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
	-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null ||
	{ cat "$dir/server.log" >&2; exit 1; }
echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port for this run" >&2

export KUBEOPERA_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
"$@"
