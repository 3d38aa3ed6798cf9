# Shared by the stand-ins for node commands in the relay tests. They run with
# STUB_NODE (which node), STUB_LOG (the shared event log), STUB_STORE (the
# shared parameter store) and KO_ROOT (the node's scratch root) set.
# shellcheck shell=bash

# event NAME [DETAILS...] appends one line to the shared log. The lock makes
# the line order the order in which the events happened across all nodes.
event() {
	local name="$1"
	shift
	{
		flock 9
		printf '%s\t%s\t%s\t%s\n' "$(date +%s.%N)" "$STUB_NODE" "$name" "$*" >&9
	} 9>>"$STUB_LOG"
}

# flaky NAME makes the first call of NAME on this node fail when
# STUB_FLAKY (space-separated) names it, as a mirror, the snap store or an
# API server behind a load balancer may fail for a moment.
flaky() {
	case " ${STUB_FLAKY:-} " in
	*" $1 "*)
		if mkdir "$KO_ROOT/.flaked-$1" 2>/dev/null; then
			echo "$1 stub: transient failure" >&2
			exit 1
		fi
		;;
	esac
}
