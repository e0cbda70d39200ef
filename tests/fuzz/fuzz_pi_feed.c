#include "base/pr.h"
#include "pi_feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The invariants of connectors/pi_feed.h that hold for any input. */
static void check(const struct pr_pi_page *p, const struct pr_pi_walk *w,
		  int err)
{
	size_t i;

	if (err && (p->nr || p->v || p->more || p->stuck))
		abort();
	if (p->nr > p->entries || (p->more && p->stuck))
		abort();
	if ((p->more || p->stuck) && strlen(p->next_t) != 14)
		abort();
	for (i = 0; i < p->nr; i++) {
		const char *dot = strchr(p->v[i].pos, '.');

		if (!dot || strcmp(dot + 1, p->v[i].mid))
			abort();
		if (w->low && strcmp(p->v[i].pos, w->low) < 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char at[] = "00000000001794305520.r3@example.org";
	struct pr_pi_walk walks[] = {
		{ NULL, NULL, NULL, 0, "fuzz" },
		{ at, at, "20261110101200", 25, "fuzz" },
	};
	struct pr_pi_page p;
	int64_t t;
	size_t i;
	int err;

	pr_log_set_level(PR_LOG_ERROR);
	for (i = 0; i < PR_ARRAY_SIZE(walks); i++) {
		err = pr_pi_page_read(&p, (const char *)data, size, "fuzz",
				      &walks[i]);
		check(&p, &walks[i], err);
		pr_pi_page_release(&p);
		pr_error_clear();
	}
	/* the same bytes read as a mail of a thread */
	err = pr_pi_mail_time(&t, (const char *)data, size);
	if (err && err != PR_ENOENT)
		abort();
	pr_error_clear();
	return 0;
}
