#!/usr/bin/env bash
# Nothing built is tracked: every clone pays for what the repository holds,
# so `make test` fails on a tracked file over 1 MB or any executable
# binary (ELF, Mach-O, PE), whatever its name. Build output belongs in bin/.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((1024 * 1024))
bad=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue # deleted in the work tree, not yet committed
	size=$(stat -c %s "$f")
	if [ "$size" -gt "$limit" ]; then
		echo "tracked file over 1 MB: $f ($size bytes): build output goes in bin/ (git rm --cached '$f')" >&2
		bad=1
		continue
	fi
	magic=$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')
	kind=""
	case "$magic" in
	7f454c46) kind=ELF ;;
	feedface | feedfacf | cefaedfe | cffaedfe | cafebabe) kind=Mach-O ;;
	4d5a*)
		# MZ is also the start of a DOS stub: a PE image names its
		# "PE\0\0" header at the offset stored at 0x3c.
		off=$(od -An -tu4 -j 60 -N 4 "$f" 2>/dev/null | tr -d ' ' || true)
		if [ -n "$off" ] && [ "$off" -lt "$size" ] &&
			[ "$(od -An -tx1 -j "$off" -N 4 "$f" | tr -d ' \n')" = 50450000 ]; then
			kind=PE
		fi
		;;
	esac
	if [ -n "$kind" ]; then
		echo "tracked executable binary ($kind): $f: build output goes in bin/ (git rm --cached '$f')" >&2
		bad=1
	fi
done < <(git ls-files -z)
exit "$bad"
