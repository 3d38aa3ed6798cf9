# ---- lib.sh: logging, failure reporting and the SSM relay ----
#
# Nothing here may print a secret: cloud-init copies stdout and stderr to
# /var/log/cloud-init-output.log and to the EC2 console output. Output of
# kubeadm and apt, which can hold tokens and keys, goes to $KO_LOG (root
# only), never to the console; relay values travel as file:// so no secret
# is ever on a command line of aws.
set -Eeuo pipefail

# KO_ROOT prefixes every path the script writes or reads on the host. It is
# empty on a node; tests point it at a scratch directory.
KO_ROOT="${KO_ROOT:-}"
export PATH="$PATH:$KO_ROOT/snap/bin"
KO_WORK="$KO_ROOT/var/lib/kubeopera"
KO_LOG="$KO_ROOT/var/log/kubeopera/bootstrap.log"
KO_KUBECONFIG="$KO_ROOT/etc/kubernetes/admin.conf"
KO_STEP=start
# KO_MARKER is the parameter that carries this node's state
# (members/<index> or workers/<instance-id>); set once the node knows it.
KO_MARKER=

log() {
	printf '%s kubeopera-bootstrap cluster=%s role=%s index=%s step=%s: %s\n' \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$KO_CLUSTER_ID" "$KO_ROLE" "$KO_INDEX" "$KO_STEP" "$*" >&2
}

step() {
	KO_STEP="$1"
	log "starting"
}

# quiet runs a command with its output in $KO_LOG only.
quiet() {
	"$@" >>"$KO_LOG" 2>&1
}

# retry runs a command up to 5 times, KO_POLL_INTERVAL apart, and fails
# if the last try did: on first boot a mirror, the snap store or the path
# through the NAT gateway may fail for a moment.
retry() {
	local try=1
	until "$@"; do
		if [ "$try" -ge 5 ]; then
			return 1
		fi
		log "$* failed (try $try of 5); trying again"
		try=$((try + 1))
		sleep "$KO_POLL_INTERVAL"
	done
}

# kubectl_tries runs kubectl with admin.conf, retried: once member 0 has
# unmapped the endpoint, its calls go through the internal NLB, which may
# still be registering a target or route a call to a member mid-join.
kubectl_tries() {
	retry quiet kubectl --kubeconfig "$KO_KUBECONFIG" "$@" ||
		fail "kubectl $1 failed 5 times (details in /var/log/kubeopera/bootstrap.log)"
}

# fail reports the failing step on the relay and stops. Only the first
# failure is published: a failure inside a command substitution runs fail in
# the subshell, and the caller's own ERR trap must not overwrite it.
fail() {
	trap - ERR
	log "FAILED: $*"
	if [ -n "$KO_MARKER" ] && mkdir "$KO_WORK/failed" 2>/dev/null; then
		relay_put_text "$KO_MARKER" String "failed: $KO_STEP: $*" ||
			log "could not publish the failure to $KO_MARKER"
	fi
	exit 1
}

on_err() {
	fail "a command exited with status $1 (script line $2; details in /var/log/kubeopera/bootstrap.log)"
}

# relay_put NAME TYPE FILE [TIER [KEY]] stores FILE's content in parameter
# NAME, a SecureString encrypted with KMS key KEY when given.
relay_put() {
	local -a key=()
	if [ -n "${5:-}" ]; then
		key=(--key-id "$5")
	fi
	aws ssm put-parameter --region "$KO_REGION" --name "$1" --type "$2" \
		--tier "${4:-Standard}" --value "file://$3" "${key[@]}" --overwrite >/dev/null
}

# relay_put_text NAME TYPE TEXT stores TEXT through a root-only file.
relay_put_text() {
	local file
	file="$(mktemp "$KO_WORK/value.XXXXXX")"
	printf '%s' "$3" >"$file"
	relay_put "$1" "$2" "$file"
	rm -f "$file"
}

# relay_get NAME prints the (decrypted) value of parameter NAME.
relay_get() {
	aws ssm get-parameter --region "$KO_REGION" --name "$1" --with-decryption \
		--query Parameter.Value --output text
}

# relay_wait NAME WHAT waits until parameter NAME says ready or joined. A
# failure marker there, or the timeout, fails this node too.
relay_wait() {
	local name="$1" what="$2" value deadline=$((SECONDS + KO_WAIT_TIMEOUT))
	log "waiting for $what ($name)"
	while :; do
		if value="$(relay_get "$name" 2>"$KO_WORK/relay.err")"; then
			case "$value" in
			ready | joined)
				log "$what is $value"
				return 0
				;;
			failed*) fail "$what reported a failure, so this node stops here ($value)" ;;
			esac
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			fail "timed out after ${KO_WAIT_TIMEOUT}s waiting for $what ($name); last relay error: $(tail -n 1 "$KO_WORK/relay.err")"
		fi
		sleep "$KO_POLL_INTERVAL"
	done
}

# field KEY prints the value of the KEY=value line of the join data on
# stdin, which member 0 published.
field() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		"$1="?*)
			printf '%s' "${line#*=}"
			return 0
			;;
		esac
	done
	fail "the join data on the relay has no $1; member 0 published an incomplete value"
}

# imds PATH reads instance metadata with an IMDSv2 session token.
imds() {
	local token
	token="$(curl -fsS --retry 5 --retry-all-errors -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 300' \
		http://169.254.169.254/latest/api/token)"
	curl -fsS --retry 5 --retry-all-errors -H "X-aws-ec2-metadata-token: $token" \
		"http://169.254.169.254/latest/meta-data/$1"
}

main() {
	# cloud-init runs this without HOME (the systemd units set it); kubectl's
	# kustomize runs git, which needs it.
	export HOME=/root
	mkdir -p "$KO_WORK" "$(dirname "$KO_LOG")"
	chmod 700 "$KO_WORK" "$(dirname "$KO_LOG")"
	trap 'on_err $? $LINENO' ERR
	case "${1:-}" in
	refresh-join)
		refresh_join
		return 0
		;;
	refresh-credential)
		refresh_credential
		return 0
		;;
	esac
	case "$KO_ROLE" in
	control-plane) KO_MARKER="$KO_PARAM_MEMBERS/$KO_INDEX" ;;
	worker)
		step identify
		KO_MARKER="$KO_PARAM_WORKERS/$(imds instance-id)"
		;;
	*) fail "unknown role $KO_ROLE" ;;
	esac
	install_aws_cli
	case "$KO_ROLE" in
	control-plane) control_plane_main ;;
	worker) worker_main ;;
	esac
	KO_STEP=finished
	log "node bootstrap finished"
}
