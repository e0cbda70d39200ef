#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine/cfg.h"
#include "kernel_ci.h"
#include "plugins.h"

/*
 * kernel-ci without a kernel: the log readers on the lines gcc, make and a
 * kernel print; the cpio against the real cpio(1); and the stages in order
 * on a small git repository, with a stand-in make (a bzImage that is a copy
 * of init/main.c, a compiler error when it says so) and a stand-in QEMU
 * (the marker, a panic or a hang, as the "kernel" says).  The real kernel
 * is tests/integration/kernel_ci.sh.
 */

static const struct pr_plugin_type *type = &pr_plugin_kernel_ci;

static void test_build_scan(void **state)
{
	static const char log[] =
		"  CC      init/main.o\n"
		"In file included from ../init/main.c:3:\n"
		"../init/main.c: In function 'kci_broken':\n"
		"../init/main.c:1612:16: error: 'kci_undefined' undeclared "
		"(first use in this function)\n"
		" 1612 |         return kci_undefined;\n"
		"      |                ^~~~~~~~~~~~~\n"
		"../init/main.c:1612:16: note: each undeclared identifier is "
		"reported only once\n"
		"  CC      init/other.o\n"
		"make[2]: *** [../scripts/Makefile.build:250: init/main.o] "
		"Error 1\r\n"
		"../kernel/foo.c:12:5: warning: unused variable 'x' "
		"[-Wunused-variable]\n"
		"   12 |         int x;\n"
		"../kernel/foo.c:40:5: warning: unused variable 'x' "
		"[-Wunused-variable]\n"
		"ld: warning: creating DT_TEXTREL\n";
	struct pr_kci_findings errors = { 0 }, warnings = { 0 };

	pr_kci_build_scan(&errors, &warnings, log, sizeof(log) - 1, 10);
	/* make's line only says where when no compiler says why */
	assert_int_equal(errors.nr, 1);
	assert_string_equal(errors.items[0].key,
			    "../init/main.c:1612:16: error: 'kci_undefined' "
			    "undeclared (first use in this function)");
	assert_string_equal(
		errors.items[0].quote,
		"In file included from ../init/main.c:3:\n"
		"../init/main.c: In function 'kci_broken':\n"
		"../init/main.c:1612:16: error: 'kci_undefined' undeclared "
		"(first use in this function)\n"
		" 1612 |         return kci_undefined;\n"
		"      |                ^~~~~~~~~~~~~\n"
		"../init/main.c:1612:16: note: each undeclared identifier is "
		"reported only once\n");
	/* the same warning at two lines is one key */
	assert_int_equal(warnings.nr, 2);
	assert_string_equal(warnings.items[0].key,
			    "../kernel/foo.c: warning: unused variable 'x' "
			    "[-Wunused-variable]");
	assert_string_equal(warnings.items[0].quote,
			    "../kernel/foo.c:12:5: warning: unused variable "
			    "'x' [-Wunused-variable]\n"
			    "   12 |         int x;\n");
	assert_string_equal(warnings.items[1].key,
			    "ld: warning: creating DT_TEXTREL");
	pr_kci_findings_release(&errors);
	pr_kci_findings_release(&warnings);
}

static void test_build_scan_make_and_cap(void **state)
{
	static const char log[] = "ld: vmlinux.o: undefined reference to "
				  "`kci_gone'\n"
				  "a.c:1:1: error: one\n"
				  "a.c:2:1: error: two\n"
				  "a.c:3:1: error: three\n";
	static const char only_make[] =
		"make[1]: *** [Makefile:1200: vmlinux] Error 1\n"
		"make: *** [Makefile:200: __sub-make] Error 2\n";
	struct pr_kci_findings errors = { 0 }, warnings = { 0 };

	pr_kci_build_scan(&errors, &warnings, log, sizeof(log) - 1, 2);
	assert_int_equal(errors.nr, 2);
	assert_int_equal(errors.more, 2);
	assert_string_equal(errors.items[0].key,
			    "ld: vmlinux.o: undefined reference to "
			    "`kci_gone'");
	pr_kci_findings_release(&errors);
	pr_kci_build_scan(&errors, &warnings, only_make, sizeof(only_make) - 1,
			  10);
	assert_int_equal(errors.nr, 2);
	assert_string_equal(errors.items[0].quote,
			    "make[1]: *** [Makefile:1200: vmlinux] Error 1\n");
	assert_int_equal(warnings.nr, 0);
	pr_kci_findings_release(&errors);
}

static void key_is(const char *line, const char *want)
{
	struct pr_buf b = PR_BUF_INIT;

	pr_kci_warning_key(&b, line, strlen(line));
	assert_string_equal(b.ptr, want);
	pr_buf_release(&b);
}

static void test_warning_key(void **state)
{
	key_is("a/b.c:12:5: warning: w [-Wx]", "a/b.c: warning: w [-Wx]");
	key_is("a/b.c:12: warning: w", "a/b.c: warning: w");
	key_is("ld: warning: w", "ld: warning: w");
	key_is("x:y.c:1:2: warning: w", "x:y.c: warning: w");
	key_is("no warning here", "no warning here");
}

static void scan(struct pr_kci_console *c, const char *text)
{
	pr_kci_console_scan(c, text, strlen(text), "MARK");
}

static void test_console_ok_and_missing(void **state)
{
	struct pr_kci_console c;

	scan(&c, "[    0.1] a\r\n[    0.7] Run /init as init process\r\n"
		 "MARK\r\nrelease: 6.1.0\r\n[    1.1] reboot: Restarting "
		 "system\r\n");
	assert_int_equal(c.state, PR_KCI_BOOT_OK);
	assert_string_equal(c.marker_line, "MARK");
	assert_null(c.headline);
	assert_string_equal(c.quote.ptr,
			    "[    0.1] a\n[    0.7] Run /init as init process\n"
			    "MARK\nrelease: 6.1.0\n");
	pr_kci_console_release(&c);
	scan(&c, "[    0.1] a\n[    0.2] b");
	assert_int_equal(c.state, PR_KCI_BOOT_NO_MARKER);
	assert_null(c.marker_line);
	assert_string_equal(c.quote.ptr, "[    0.1] a\n[    0.2] b\n");
	pr_kci_console_release(&c);
	scan(&c, "");
	assert_int_equal(c.state, PR_KCI_BOOT_NO_MARKER);
	assert_string_equal(c.quote.ptr, "");
	pr_kci_console_release(&c);
}

static void test_console_panic(void **state)
{
	struct pr_kci_console c;

	scan(&c, "[    0.6] x\r\n[    0.6] y\r\n[    0.6] z\r\n"
		 "[    0.7] Kernel panic - not syncing: kci: panic\r\n"
		 "[    0.7] CPU: 0 PID: 1 Comm: swapper Not tainted\r\n"
		 "[    0.7] Call Trace:\r\n"
		 "[    0.7] ---[ end Kernel panic - not syncing: kci: panic "
		 "]---\r\n"
		 "after\r\n");
	assert_int_equal(c.state, PR_KCI_BOOT_PANIC);
	assert_string_equal(c.headline,
			    "[    0.7] Kernel panic - not syncing: kci: panic");
	assert_string_equal(
		c.quote.ptr,
		"[    0.6] y\n[    0.6] z\n"
		"[    0.7] Kernel panic - not syncing: kci: panic\n"
		"[    0.7] CPU: 0 PID: 1 Comm: swapper Not tainted\n"
		"[    0.7] Call Trace:\n"
		"[    0.7] ---[ end Kernel panic - not syncing: kci: panic "
		"]---\n");
	pr_kci_console_release(&c);
}

/* An oops that ends in a panic: the oops is the headline, both quoted. */
static void test_console_oops(void **state)
{
	struct pr_buf t = PR_BUF_INIT;
	struct pr_kci_console c;
	int i;

	pr_buf_adds(&t, "MARK\n[ 1.0] BUG: kernel NULL pointer dereference, "
			"address: 0000000000000000\n"
			"[ 1.0] Oops: 0002 [#1] NOPTI\n");
	for (i = 0; i < 50; i++)
		pr_buf_addf(&t, "[ 1.0]  frame %d\n", i);
	pr_buf_adds(&t, "[ 1.0] Kernel panic - not syncing: Fatal exception\n");
	scan(&c, t.ptr);
	assert_int_equal(c.state, PR_KCI_BOOT_PANIC);
	assert_string_equal(c.headline, "[ 1.0] BUG: kernel NULL pointer "
					"dereference, address: "
					"0000000000000000");
	assert_non_null(strstr(c.quote.ptr, "[...]\n[ 1.0] Kernel panic - not "
					    "syncing: Fatal exception\n"));
	assert_null(strstr(c.quote.ptr, "frame 45"));
	pr_kci_console_release(&c);
	pr_buf_release(&t);
}

static void test_console_warning(void **state)
{
	struct pr_kci_console c;

	scan(&c, "[ 0.5] ------------[ cut here ]------------\n"
		 "[ 0.5] WARNING: CPU: 0 PID: 1 at init/main.c:10 f+0x1/0x2\n"
		 "[ 0.5] ---[ end trace 0000000000000000 ]---\nMARK\n");
	assert_int_equal(c.state, PR_KCI_BOOT_WARNING);
	assert_string_equal(c.headline,
			    "[ 0.5] ------------[ cut here ]------------");
	pr_kci_console_release(&c);
	/* without the marker it is a failed boot, whatever warned */
	scan(&c, "[ 0.5] WARNING: CPU: 0 PID: 1 at x\n");
	assert_int_equal(c.state, PR_KCI_BOOT_NO_MARKER);
	pr_kci_console_release(&c);
}

static char *tmpdir(void)
{
	char templ[] = "/tmp/test_kernel_ci.XXXXXX";

	assert_non_null(mkdtemp(templ));
	return pr_strdup(templ);
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	struct pr_buf cmd = PR_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	pr_buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd.ptr), 0);
	pr_buf_release(&cmd);
}

static void write_file(const char *dir, const char *name, const char *text,
		       mode_t mode)
{
	struct pr_buf path = PR_BUF_INIT;
	FILE *f;

	pr_buf_addf(&path, "%s/%s", dir, name);
	f = fopen(path.ptr, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path.ptr, mode);
	pr_buf_release(&path);
}

/* The default initramfs as cpio(1) lists and extracts it. */
static void test_initramfs(void **state)
{
	char *dir = tmpdir();
	struct pr_buf cpio = PR_BUF_INIT, out = PR_BUF_INIT;
	struct pr_buf path = PR_BUF_INIT;
	FILE *f;

	write_file(dir, "busybox", "not really busybox\n", 0755);
	pr_buf_addf(&path, "%s/busybox", dir);
	assert_int_equal(pr_kci_initramfs(&cpio, path.ptr, "it's"), PR_ECONFIG);
	assert_int_equal(pr_kci_initramfs(&cpio, path.ptr, "kci: up"), 0);
	assert_int_equal(cpio.len % 4, 0);
	pr_buf_reset(&path);
	pr_buf_addf(&path, "%s/initrd.cpio", dir);
	f = fopen(path.ptr, "w");
	assert_non_null(f);
	fwrite(cpio.ptr, 1, cpio.len, f);
	fclose(f);
	sh("cd %s && cpio -itv --quiet <initrd.cpio | "
	   "awk '{print $1, $3, $4, $5, $6, $NF}' >list",
	   dir);
	pr_buf_reset(&path);
	pr_buf_addf(&path, "%s/list", dir);
	assert_int_equal(pr_buf_read_file(&out, path.ptr), 0);
	assert_string_equal(out.ptr, "drwxr-xr-x root root 0 Jan bin\n"
				     "-rwxr-xr-x root root 19 Jan bin/busybox\n"
				     "drwxr-xr-x root root 0 Jan dev\n"
				     "crw------- root root 5, 1 dev/console\n"
				     "drwxr-xr-x root root 0 Jan proc\n"
				     "-rwxr-xr-x root root 173 Jan init\n");
	pr_buf_reset(&out);
	sh("cd %s && mkdir x && cd x && cpio -id --quiet --no-absolute-filenames"
	   " bin/busybox init <../initrd.cpio && cmp bin/busybox ../busybox",
	   dir);
	pr_buf_reset(&path);
	pr_buf_addf(&path, "%s/x/init", dir);
	assert_int_equal(pr_buf_read_file(&out, path.ptr), 0);
	assert_string_equal(
		out.ptr,
		"#!/bin/busybox sh\n"
		"/bin/busybox mount -t proc proc /proc 2>/dev/null\n"
		"/bin/busybox echo 'kci: up'\n"
		"/bin/busybox echo \"release: $(/bin/busybox uname -r)\"\n"
		"/bin/busybox reboot -f\n");
	sh("rm -rf %s", dir);
	free(dir);
	pr_buf_release(&cpio);
	pr_buf_release(&out);
	pr_buf_release(&path);
}

/*
 * A stand-in make: "tinyconfig" writes a .config, "bzImage" copies
 * init/main.c to the bzImage after printing a compiler error for a line
 * BROKEN in it; each call is counted in O/../calls.
 */
static const char fake_make[] =
	"#!/bin/sh\n"
	"for a; do case $a in O=*) O=${a#O=};; esac; t=$a; done\n"
	"src=$2\n"
	"echo \"$t\" >>\"$O/../calls\"\n"
	"case $t in\n"
	"tinyconfig) mkdir -p \"$O\" && echo CONFIG_X=y >\"$O/.config\";;\n"
	"olddefconfig) test -f \"$O/.config\";;\n"
	"bzImage)\n"
	"  echo '  CC      init/main.o'\n"
	"  if grep -n BROKEN \"$src/init/main.c\" >/dev/null; then\n"
	"    echo \"../init/main.c:3:1: error: broken here\"\n"
	"    echo 'make[2]: *** [init/main.o] Error 1'; exit 2\n"
	"  fi\n"
	"  grep -q WARN \"$src/init/main.c\" &&\n"
	"    echo '../init/main.c:2:1: warning: new one [-Wx]'\n"
	"  echo '../init/old.c:9:1: warning: old one [-Wx]'\n"
	"  mkdir -p \"$O/arch/x86/boot\"\n"
	"  cp \"$src/init/main.c\" \"$O/arch/x86/boot/bzImage\";;\n"
	"esac\n";

/* A stand-in QEMU: the "kernel" says whether it panics or hangs. */
static const char fake_qemu[] =
	"#!/bin/sh\n"
	"while [ $# -gt 0 ]; do [ \"$1\" = -kernel ] && k=$2; shift; done\n"
	"echo '[    0.7] Run /init as init process'\n"
	"if grep -q PANIC \"$k\"; then\n"
	"  echo '[    0.8] Kernel panic - not syncing: from the patch'\n"
	"  exit 0\n"
	"fi\n"
	"grep -q HANG \"$k\" && exec sleep 30\n"
	"echo 'kci-fake: init is running'\n";

struct fixture {
	char *dir;
	struct pr_instance inst;
	struct pr_report report;
	struct pr_buf tree, build;
};

static void set(struct fixture *f, const char *key, const char *value)
{
	const struct pr_option *o = pr_cfg_find_option(type->options, key);

	assert_non_null(o);
	assert_int_equal(pr_cfg_set_option(f->inst.ctx, o, value), 0);
}

static void setup(struct fixture *f)
{
	const struct pr_option *o;
	struct pr_buf p = PR_BUF_INIT;

	memset(f, 0, sizeof(*f));
	f->dir = tmpdir();
	pr_buf_addf(&f->tree, "%s/tree", f->dir);
	pr_buf_addf(&f->build, "%s/build", f->dir);
	sh("git init -q %s && cd %s && mkdir init && "
	   "printf 'line1\\nline2\\nline3\\nline4\\n' >init/main.c && "
	   "git add . && git -c user.name=T -c user.email=t@x commit -q -m base",
	   f->tree.ptr, f->tree.ptr);
	write_file(f->dir, "make", fake_make, 0755);
	write_file(f->dir, "qemu", fake_qemu, 0755);
	write_file(f->dir, "busybox", "busybox\n", 0755);
	f->inst.name = "kci";
	f->inst.kind = "check";
	f->inst.ctx = pr_calloc(1, type->ctx_size);
	for (o = type->options; o->key; o++)
		if (o->def)
			set(f, o->key, o->def);
	set(f, "kernel-tree", f->tree.ptr);
	set(f, "build-dir", f->build.ptr);
	set(f, "marker", "kci-fake: init is running");
	pr_buf_addf(&p, "%s/make", f->dir);
	set(f, "make", p.ptr);
	pr_buf_reset(&p);
	pr_buf_addf(&p, "%s/qemu", f->dir);
	set(f, "qemu", p.ptr);
	pr_buf_reset(&p);
	pr_buf_addf(&p, "%s/busybox", f->dir);
	set(f, "busybox", p.ptr);
	set(f, "jobs", "1");
	set(f, "boot-timeout", "2s");
	assert_int_equal(type->open(&f->inst), 0);
	pr_buf_release(&p);
}

static void teardown(struct fixture *f)
{
	sh("rm -rf %s", f->dir);
	pr_cfg_options_release(f->inst.ctx, type->options);
	free(f->inst.ctx);
	free(f->dir);
	pr_buf_release(&f->tree);
	pr_buf_release(&f->build);
	pr_report_release(&f->report);
}

/* A version whose one patch adds `added` after line1 of init/main.c. */
static struct pr_version *version(const char *added, const char *context)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_patch *p = pr_patch_new();
	struct pr_buf d = PR_BUF_INIT;

	pr_ident_set(&p->author, "A U Thor", "a@example.org");
	p->subject = pr_strdup("init: add a line");
	p->body = pr_strdup("It adds a line.\n\nSigned-off-by: A U Thor "
			    "<a@example.org>\n");
	pr_buf_addf(&d,
		    "diff --git a/init/main.c b/init/main.c\n"
		    "--- a/init/main.c\n+++ b/init/main.c\n"
		    "@@ -1,3 +1,4 @@\n %s\n+%s\n line2\n line3\n",
		    context, added);
	p->diff = pr_buf_detach(&d, NULL);
	pr_version_add_patch(v, p);
	return v;
}

/* Run on a version; the entries as "verdict rule: message" lines. */
static void run(struct fixture *f, struct pr_buf *out, const char *added,
		const char *context)
{
	struct pr_version *v = version(added, context);
	size_t i;

	pr_report_release(&f->report);
	pr_buf_reset(out);
	assert_int_equal(type->run(&f->inst, NULL, v, &f->report), 0);
	for (i = 0; i < f->report.nr; i++)
		pr_buf_addf(out, "%s %s: %s\n",
			    pr_verdict_name(f->report.items[i].verdict),
			    f->report.items[i].rule,
			    f->report.items[i].message);
	pr_version_free(v);
}

static const struct pr_report_entry *entry(const struct fixture *f,
					   const char *rule)
{
	size_t i;

	for (i = 0; i < f->report.nr; i++)
		if (!strcmp(f->report.items[i].rule, rule))
			return &f->report.items[i];
	return NULL;
}

static int calls(const struct fixture *f, const char *what)
{
	struct pr_buf path = PR_BUF_INIT, text = PR_BUF_INIT;
	const char *p;
	int n = 0;

	pr_buf_addf(&path, "%s/build", f->dir);
	sh("cat %s/*/calls >%s/calls.all 2>/dev/null || true", path.ptr,
	   f->dir);
	pr_buf_reset(&path);
	pr_buf_addf(&path, "%s/calls.all", f->dir);
	pr_buf_read_file(&text, path.ptr);
	for (p = text.ptr; (p = strstr(p, what)); p++)
		n++;
	pr_buf_release(&path);
	pr_buf_release(&text);
	return n;
}

static void test_stages(void **state)
{
	struct pr_buf out = PR_BUF_INIT;
	const struct pr_report_entry *e;
	struct fixture f;

	setup(&f);
	/* a patch that does not apply: named, nothing built */
	run(&f, &out, "x", "not line1");
	assert_int_equal(f.report.nr, 1);
	assert_non_null(strstr(out.ptr, "fail apply: patch 1/1 'init: add a "
					"line' does not apply on "));
	assert_non_null(strstr(out.ptr, ": error: patch failed: "
					"init/main.c:1\n"));
	assert_int_equal(f.report.items[0].patch, 0);
	assert_int_equal(calls(&f, "bzImage"), 0);

	/* a good one: the base first, then the version */
	run(&f, &out, "good", "line1");
	assert_int_equal(f.report.nr, 4);
	assert_int_equal(pr_report_verdict(&f.report), PR_VERDICT_PASS);
	assert_non_null(strstr(out.ptr, "pass apply: 1 patch applied with "
					"git am on "));
	assert_non_null(strstr(out.ptr, " (the tree's HEAD: the series names "
					"no base) in "));
	assert_non_null(strstr(out.ptr, "pass config: tinyconfig with the "
					"fragment, olddefconfig: "));
	assert_non_null(strstr(out.ptr, "pass build: bzImage built (the "
					"base's object tree built first in "));
	assert_non_null(strstr(out.ptr, "pass boot: booted to the marker "
					"'kci-fake: init is running' in "));
	e = entry(&f, "boot");
	assert_non_null(strstr(e->detail, "kci-fake: init is running\n"));
	assert_non_null(strstr(e->detail, "/boot.log)\n"));
	assert_int_equal(calls(&f, "tinyconfig"), 1);
	assert_int_equal(calls(&f, "bzImage"), 2);

	/* the base's tree serves the next version: no base build again */
	run(&f, &out, "WARN", "line1");
	assert_non_null(strstr(out.ptr, "warn build: bzImage built "
					"(incremental on the base's object "
					"tree: "));
	assert_non_null(strstr(out.ptr, ") with 1 new warning\n"));
	e = entry(&f, "build");
	assert_string_equal(strstr(e->detail, "../init"),
			    strstr(e->detail, "../init/main.c:2:1: warning: "
					      "new one [-Wx]\n"));
	assert_null(strstr(e->detail, "old one"));
	assert_int_equal(calls(&f, "tinyconfig"), 1);
	assert_int_equal(calls(&f, "bzImage"), 3);

	run(&f, &out, "BROKEN", "line1");
	assert_non_null(strstr(out.ptr, "fail build: the build failed "
					"(incremental on the base's object "
					"tree: "));
	assert_non_null(strstr(out.ptr, "): ../init/main.c:3:1: error: "
					"broken here\n"));
	assert_null(entry(&f, "boot"));

	run(&f, &out, "PANIC", "line1");
	assert_non_null(strstr(out.ptr, "fail boot: the kernel panicked at "
					"boot ("));
	assert_non_null(strstr(out.ptr, "): [    0.8] Kernel panic - not "
					"syncing: from the patch\n"));

	run(&f, &out, "HANG", "line1");
	assert_non_null(strstr(out.ptr, "fail boot: the boot hung: no marker "
					"within 2 s\n"));
	e = entry(&f, "boot");
	assert_non_null(strstr(e->detail, "Run /init as init process\n"));

	/* and the good one again, on the same trees */
	run(&f, &out, "good", "line1");
	assert_int_equal(pr_report_verdict(&f.report), PR_VERDICT_PASS);
	assert_int_equal(calls(&f, "tinyconfig"), 1);
	teardown(&f);
	pr_buf_release(&out);
}

/* A base the tree lacks: HEAD, with a warning that says so. */
static void test_unknown_base(void **state)
{
	struct pr_buf out = PR_BUF_INIT;
	struct pr_version *v;
	struct fixture f;

	setup(&f);
	v = version("good", "line1");
	memcpy(v->base_commit, "1234567890123456789012345678901234567890", 41);
	assert_int_equal(type->run(&f.inst, NULL, v, &f.report), 0);
	assert_int_equal(f.report.items[0].verdict, PR_VERDICT_WARN);
	assert_non_null(strstr(f.report.items[0].message,
			       "(the tree's HEAD: it lacks the base "
			       "123456789012 the series names)"));
	assert_int_equal(pr_report_verdict(&f.report), PR_VERDICT_WARN);
	pr_version_free(v);
	teardown(&f);
	pr_buf_release(&out);
}

static void test_options_refused(void **state)
{
	struct fixture f;

	setup(&f);
	set(&f, "marker", "it's");
	assert_int_equal(type->open(&f.inst), PR_ECONFIG);
	set(&f, "marker", "ok");
	set(&f, "memory", "0");
	assert_int_equal(type->open(&f.inst), PR_ECONFIG);
	set(&f, "memory", "256");
	set(&f, "kernel-tree", "/nonexistent");
	assert_int_equal(type->open(&f.inst), PR_ECONFIG);
	assert_non_null(strstr(pr_error_message(), "kernel-tree "
						   "'/nonexistent'"));
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_scan),
		cmocka_unit_test(test_build_scan_make_and_cap),
		cmocka_unit_test(test_warning_key),
		cmocka_unit_test(test_console_ok_and_missing),
		cmocka_unit_test(test_console_panic),
		cmocka_unit_test(test_console_oops),
		cmocka_unit_test(test_console_warning),
		cmocka_unit_test(test_initramfs),
		cmocka_unit_test(test_stages),
		cmocka_unit_test(test_unknown_base),
		cmocka_unit_test(test_options_refused),
	};

	pr_log_set_level(PR_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
