#!/bin/sh
# make-initramfs.sh KERNEL-TREE OUT.cpio [MARKER]
#
# The kernel-ci initramfs, made with the kernel's own usr/gen_init_cpio
# (compiled here from KERNEL-TREE, a checkout or an extracted
# linux-source) from Debian's busybox-static: /bin/busybox, /dev/console,
# /proc and an /init that prints MARKER and `release: <uname -r>`, then
# reboots (QEMU's -no-reboot makes that its exit).  No root needed: the
# device node is written into the archive, never made on disk.  It is the
# archive the plugin writes itself at first use; pass it as `initramfs =`
# to use a changed /init.
set -eu
[ $# -ge 2 ] || {
	echo "usage: $0 KERNEL-TREE OUT.cpio [MARKER]" >&2
	exit 2
}
tree=$1
out=$2
marker=${3:-patchrelay-kernel-ci: init is running}
busybox=${BUSYBOX:-/bin/busybox}
case $marker in *\'*)
	echo "$0: the marker may not hold a quote" >&2
	exit 2
	;;
esac
[ -x "$busybox" ] || {
	echo "$0: no $busybox (apt-get install busybox-static)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/gen_init_cpio" "$tree/usr/gen_init_cpio.c"
cat >"$tmp/init" <<INIT
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc 2>/dev/null
/bin/busybox echo '$marker'
/bin/busybox echo "release: \$(/bin/busybox uname -r)"
/bin/busybox reboot -f
INIT
cat >"$tmp/list" <<LIST
dir /bin 755 0 0
file /bin/busybox $busybox 755 0 0
dir /dev 755 0 0
nod /dev/console 600 0 0 c 5 1
dir /proc 755 0 0
file /init $tmp/init 755 0 0
LIST
"$tmp/gen_init_cpio" -t 0 "$tmp/list" >"$out"
