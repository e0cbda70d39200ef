# Sourced by the route tests: sets C (the cache shared by the plain and the
# sanitizer builds, tests/run sets PR_CACHE) and L (Debian's linux-source
# extracted there once), or exits 77 when linux-source is not installed.
# The extraction holds a lock: two route tests may start at once on a
# fresh cache, and each would remove the other's half-made tree.
C=${PR_CACHE:-$PR_BUILD}
mkdir -p "$C"
L="$C/linux-source"
(
	flock 9
	if [ ! -f "$L/.pr-extracted" ]; then
		tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -n 1)
		if [ -z "$tarball" ]; then
			echo "skip: no /usr/src/linux-source-*.tar.xz"
			exit 77
		fi
		rm -rf "$L"
		mkdir -p "$L"
		tar -xJf "$tarball" -C "$L" --strip-components=1
		touch "$L/.pr-extracted"
	fi
) 9>"$C/linux-source.lock" || exit $?
