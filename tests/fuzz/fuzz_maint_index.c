/*
 * The compiled MAINTAINERS index loader (plugins/maintainers_index.c) on
 * arbitrary bytes.  A cache file is never trusted: whatever its bytes, the
 * loader refuses it or gives tables that routing can use without reading
 * out of bounds.  Each input is tried as it is (its checksum mostly
 * wrong) and sealed with a good checksum, so that the checks behind the
 * checksum are reached; a loaded index routes a patch that reaches every
 * table (files, N:, K:, .mailmap, sections).
 */
#include "base/pr.h"

#include "maintainers_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char patch[] =
	"From: A <a@example.org>\n"
	"Subject: [PATCH] foo: frobnicate\n\n"
	"Fixes: 0123456789ab (\"x\")\n---\n"
	"diff --git a/drivers/foo/core_main.c b/drivers/foo/core_main.c\n"
	"--- a/drivers/foo/core_main.c\n+++ b/drivers/foo/core_main.c\n"
	"@@ -1,1 +1,1 @@\n-old\n+frobnicate();\n"
	"diff --git a/lib/x.yaml b/Documentation/y.txt\n"
	"rename from lib/x.yaml\nrename to Documentation/y.txt\n";

static void use(struct pr_maint *m)
{
	struct pr_maint_opts o;
	struct pr_maint_result res = { 0 };
	struct pr_buf out = PR_BUF_INIT, p = PR_BUF_INIT;
	const char *files[] = { "drivers/foo/a.c", "MAINTAINERS", "x" };

	pr_buf_adds(&p, patch);
	pr_maint_opts_init(&o);
	o.subsystem = true;
	o.status = true;
	pr_maint_route(&out, m, &o, &p, 1);
	pr_maint_resolve(&res, m, &o, &p, 1);
	pr_maint_result_release(&res);
	pr_maint_file_sections(&res, m, files, PR_ARRAY_SIZE(files));
	pr_maint_result_release(&res);
	pr_buf_release(&out);
	pr_buf_release(&p);
}

static void try_image(const uint8_t *data, size_t size, bool seal)
{
	struct pr_maint *m = NULL;
	void *img = pr_malloc(size ? size : 1);

	memcpy(img, data, size);
	if (seal)
		pr_maint_index_seal(img, size);
	/* a tree that does not exist: no directory answers from disk */
	if (!pr_maint_index_load_mem(&m, img, size, "/nonexistent/tree")) {
		use(m);
		pr_maint_free(m);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	try_image(data, size, false);
	try_image(data, size, true);
	return 0;
}
