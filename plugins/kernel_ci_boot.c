#include "base/pr.h"
#include "base/sha1.h"
#include "kernel_ci.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The boot (kernel_ci.h): the default initramfs, written as a newc cpio
 * (the format of the kernel's Documentation/driver-api/early-userspace/
 * buffer-format.rst) from Debian's busybox-static, then QEMU without KVM:
 *
 *   qemu-system-x86_64 -nographic -no-reboot -m M -kernel bzImage
 *     -initrd CPIO -append "console=ttyS0 panic=-1"
 *
 * init prints the marker and reboots; a panic reboots at once (panic=-1);
 * -no-reboot turns either reboot into QEMU's exit.  tinyconfig has no ACPI,
 * so a power-off would halt the guest without ending QEMU.
 */

#define BUSYBOX_MAX (64 * PR_MIB)

static void hex8(struct pr_buf *out, uint32_t v)
{
	pr_buf_addf(out, "%08X", v);
}

static void pad4(struct pr_buf *out)
{
	while (out->len % 4)
		pr_buf_addch(out, '\0');
}

int pr_kci_cpio_add(struct pr_buf *out, uint32_t ino, const char *name,
		    uint32_t mode, uint32_t rmajor, uint32_t rminor,
		    const void *data, size_t len)
{
	size_t namesize = strlen(name) + 1;

	if (len > UINT32_MAX || namesize > 4096)
		return pr_error(PR_ETOOBIG, "cpio entry '%s' is too big", name);
	/* the archive starts 4-aligned, so out->len % 4 is the offset's */
	pr_buf_adds(out, "070701");
	hex8(out, ino);
	hex8(out, mode);
	hex8(out, 0); /* uid */
	hex8(out, 0); /* gid */
	hex8(out, (mode & 0170000) == 0040000 ? 2 : 1); /* nlink */
	hex8(out, 0); /* mtime */
	hex8(out, (uint32_t)len);
	hex8(out, 0); /* devmajor */
	hex8(out, 0); /* devminor */
	hex8(out, rmajor);
	hex8(out, rminor);
	hex8(out, (uint32_t)namesize);
	hex8(out, 0); /* check */
	pr_buf_add(out, name, namesize);
	pad4(out);
	if (len)
		pr_buf_add(out, data, len);
	pad4(out);
	return 0;
}

int pr_kci_cpio_end(struct pr_buf *out)
{
	return pr_kci_cpio_add(out, 0, "TRAILER!!!", 0, 0, 0, NULL, 0);
}

int pr_kci_initramfs(struct pr_buf *out, const char *busybox,
		     const char *marker)
{
	struct pr_buf bb = PR_BUF_INIT, init = PR_BUF_INIT;
	int err;

	if (strchr(marker, '\'') || strchr(marker, '\n') || !*marker)
		return pr_error(PR_ECONFIG,
				"marker '%s': empty, or a quote or a newline "
				"in it",
				marker);
	pr_buf_init(&bb, BUSYBOX_MAX);
	if ((err = pr_buf_read_file(&bb, busybox)) < 0) {
		err = pr_error_wrap(err,
				    "busybox '%s' (Debian's "
				    "busybox-static)",
				    busybox);
		goto done;
	}
	/* every command through busybox itself: there are no links */
	pr_buf_addf(&init,
		    "#!/bin/busybox sh\n"
		    "/bin/busybox mount -t proc proc /proc 2>/dev/null\n"
		    "/bin/busybox echo '%s'\n"
		    "/bin/busybox echo \"release: $(/bin/busybox uname -r)\"\n"
		    "/bin/busybox reboot -f\n",
		    marker);
	err = pr_kci_cpio_add(out, 1, "bin", 0040755, 0, 0, NULL, 0);
	if (!err)
		err = pr_kci_cpio_add(out, 2, "bin/busybox", 0100755, 0, 0,
				      bb.ptr, bb.len);
	if (!err)
		err = pr_kci_cpio_add(out, 3, "dev", 0040755, 0, 0, NULL, 0);
	if (!err)
		err = pr_kci_cpio_add(out, 4, "dev/console", 0020600, 5, 1,
				      NULL, 0);
	if (!err)
		err = pr_kci_cpio_add(out, 5, "proc", 0040755, 0, 0, NULL, 0);
	if (!err)
		err = pr_kci_cpio_add(out, 6, "init", 0100755, 0, 0, init.ptr,
				      init.len);
	if (!err)
		err = pr_kci_cpio_end(out);
done:
	pr_buf_release(&bb);
	pr_buf_release(&init);
	return err;
}

/* <build-dir>/initramfs-<id>.cpio, made when missing (rename: atomic). */
static int default_initramfs(struct pr_buf *path, const struct pr_kci_run *r)
{
	struct pr_buf cpio = PR_BUF_INIT, tmp = PR_BUF_INIT;
	char hex[PR_SHA1_HEXSZ + 1];
	struct pr_sha1 h;
	struct stat st;
	int fd, err;

	if ((err = pr_kci_initramfs(&cpio, r->c->busybox, r->c->marker)))
		goto done;
	pr_sha1_init(&h);
	pr_sha1_update(&h, cpio.ptr, cpio.len);
	pr_sha1_final_hex(hex, &h);
	pr_buf_addf(path, "%s/initramfs-%.12s.cpio", r->build_dir.ptr, hex);
	if (!stat(path->ptr, &st))
		goto done;
	pr_buf_addf(&tmp, "%s.%ld", path->ptr, (long)getpid());
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || pr_write_all(fd, cpio.ptr, cpio.len) || close(fd) ||
	    rename(tmp.ptr, path->ptr)) {
		err = pr_error(PR_EIO, "cannot write '%s': %s", path->ptr,
			       strerror(errno));
		unlink(tmp.ptr);
	}
done:
	pr_buf_release(&cpio);
	pr_buf_release(&tmp);
	return err;
}

static enum pr_verdict boot_verdict(const struct pr_kci_console *con)
{
	switch (con->state) {
	case PR_KCI_BOOT_OK:
		return PR_VERDICT_PASS;
	case PR_KCI_BOOT_WARNING:
		return PR_VERDICT_WARN;
	default:
		return PR_VERDICT_FAIL;
	}
}

static void boot_report(const struct pr_kci_run *r,
			const struct pr_kci_console *con,
			const struct pr_proc_result *res, const char *log)
{
	struct pr_buf detail = PR_BUF_INIT, msg = PR_BUF_INIT;
	double secs = (double)res->elapsed_ms / 1000.0;

	pr_buf_addbuf(&detail, &con->quote);
	pr_buf_addf(&detail, "(full console log: %s)\n", log);
	switch (con->state) {
	case PR_KCI_BOOT_OK:
		pr_buf_addf(&msg, "booted to the marker '%s' in %.1f s",
			    r->c->marker, secs);
		break;
	case PR_KCI_BOOT_WARNING:
		pr_buf_addf(&msg,
			    "booted to the marker in %.1f s, with a kernel "
			    "warning: %s",
			    secs, con->headline);
		break;
	case PR_KCI_BOOT_PANIC:
		pr_buf_addf(&msg, "the kernel panicked at boot (%.1f s): %s",
			    secs, con->headline);
		break;
	case PR_KCI_BOOT_OOPS:
		pr_buf_addf(&msg, "the kernel oopsed at boot (%.1f s): %s",
			    secs, con->headline);
		break;
	case PR_KCI_BOOT_NO_MARKER:
		if (res->timed_out)
			pr_buf_addf(&msg,
				    "the boot hung: no marker within %lld s",
				    (long long)(r->c->boot_timeout / 1000));
		else
			pr_buf_addf(&msg,
				    "QEMU ended (status %d) after %.1f s "
				    "without the marker",
				    res->status, secs);
		break;
	}
	pr_report_add(r->report, r->step, "boot", boot_verdict(con), -1,
		      detail.ptr, "%s", msg.ptr);
	pr_buf_release(&detail);
	pr_buf_release(&msg);
}

int pr_kci_boot(struct pr_kci_run *r)
{
	struct pr_buf cpio = PR_BUF_INIT, kernel = PR_BUF_INIT;
	struct pr_buf mem = PR_BUF_INIT, log = PR_BUF_INIT;
	struct pr_buf console = PR_BUF_INIT;
	struct pr_kci_console con;
	struct pr_proc_result res;
	int err;

	memset(&con, 0, sizeof(con));
	if (r->c->initramfs)
		pr_buf_adds(&cpio, r->c->initramfs);
	else if ((err = default_initramfs(&cpio, r)))
		goto done;
	pr_buf_addf(&kernel, "%s/arch/x86/boot/bzImage", r->obj.ptr);
	pr_buf_addf(&mem, "%lldM", (long long)r->c->memory);
	pr_kci_log_path(&log, r, "boot");
	{
		const char *argv[] = { r->c->qemu,
				       "-nographic",
				       "-no-reboot",
				       "-accel",
				       "tcg",
				       "-m",
				       mem.ptr,
				       "-kernel",
				       kernel.ptr,
				       "-initrd",
				       cpio.ptr,
				       "-append",
				       "console=ttyS0 panic=-1",
				       NULL };

		err = pr_kci_cmd(&res, NULL, 0, r, "boot", log.ptr, argv, NULL,
				 r->c->boot_timeout, NULL);
	}
	if (err)
		goto done;
	pr_buf_init(&console, r->c->output_cap + 4096);
	if ((err = pr_buf_read_file(&console, log.ptr)) < 0)
		goto done;
	err = 0;
	pr_kci_console_scan(&con, console.ptr, console.len, r->c->marker);
	boot_report(r, &con, &res, log.ptr);
done:
	pr_kci_console_release(&con);
	pr_buf_release(&cpio);
	pr_buf_release(&kernel);
	pr_buf_release(&mem);
	pr_buf_release(&log);
	pr_buf_release(&console);
	return err;
}
