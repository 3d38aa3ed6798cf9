#!/usr/bin/env bash
# Installs protoc (Debian's protobuf-compiler) when it is missing; CI runs as root.
set -euo pipefail
command -v protoc >/dev/null && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "protoc is missing: install Debian's protobuf-compiler (apt-get install protobuf-compiler)" >&2
	exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler >/dev/null
protoc --version
