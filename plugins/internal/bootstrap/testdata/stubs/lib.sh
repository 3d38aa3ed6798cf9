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
