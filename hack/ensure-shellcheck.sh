#!/usr/bin/env bash
# Installs shellcheck (Debian's package) when it is missing; the bootstrap
# tests (plugins/internal/bootstrap) fail without it. CI runs as root.
set -euo pipefail
command -v shellcheck >/dev/null && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "shellcheck is missing: install Debian's shellcheck (apt-get install shellcheck)" >&2
	exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
shellcheck --version
