#include "base/pr.h"
#include "checks.h"

/*
 * size-limit's logic; the definition in size_limit.c calls it from run().
 */

int pr_buf_add_count(struct pr_buf *b, uint64_t n)
{
	char digits[32];
	int len =
		snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	int i, err = 0;

	for (i = 0; i < len && !err; i++) {
		if (i && (len - i) % 3 == 0)
			err = pr_buf_addch(b, ',');
		if (!err)
			err = pr_buf_addch(b, digits[i]);
	}
	return err;
}

/* Parse "N files changed, X insertions(+), Y deletions(-)" lines of text. */
static void count_diffstat(uint64_t *files, uint64_t *added, uint64_t *removed,
			   const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		const char *q = p;
		unsigned long long n;
		char *end;

		while (*q == ' ')
			q++;
		n = strtoull(q, &end, 10);
		if (end != q && (!strncmp(end, " files changed", 14) ||
				 !strncmp(end, " file changed", 13))) {
			*files = n;
			q = strchr(end, ',');
			while (q && q < (eol ? eol : q + strlen(q))) {
				q++;
				n = strtoull(q, &end, 10);
				if (!strncmp(end, " insertion", 10))
					*added = n;
				else if (!strncmp(end, " deletion", 9))
					*removed = n;
				q = strchr(end, ',');
				if (eol && q > eol)
					break;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
}

/* Remember `path` (len bytes) as the file with the most changed lines. */
static void set_largest(struct pr_size_figures *f, uint64_t lines,
			const char *path, size_t len, int patch)
{
	if (lines <= f->largest_lines)
		return;
	f->largest_lines = lines;
	f->largest_patch = patch;
	if (len >= sizeof(f->largest_file))
		len = sizeof(f->largest_file) - 1;
	memcpy(f->largest_file, path, len);
	f->largest_file[len] = '\0';
}

/*
 * The path of a "diff --git a/X b/Y" line: Y without its "b/" when the
 * line splits evenly, else the text after the last " b/".
 */
static void diff_path(const char *line, const char *eol, const char **path,
		      size_t *len)
{
	const char *end = eol ? eol : line + strlen(line);
	const char *b = NULL, *q;

	for (q = line + 11; q + 3 <= end; q++)
		if (!strncmp(q, " b/", 3))
			b = q + 3;
	*path = b ? b : line + 11;
	*len = (size_t)(end - *path);
}

/*
 * Per-file counts of a --stat text (" path | 123 +++--"), for a diff cut
 * short whose diffstat is whole.  A "..." path git shortened is taken as
 * it stands.
 */
static void count_stat_files(struct pr_size_figures *f, const char *text,
			     int patch)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		const char *bar = memchr(p, '|', (size_t)(end - p));

		if (bar) {
			const char *a = p, *z = bar;
			unsigned long long n;
			char *num_end;

			while (a < z && *a == ' ')
				a++;
			while (z > a && z[-1] == ' ')
				z--;
			n = strtoull(bar + 1, &num_end, 10);
			if (num_end != bar + 1 && z > a)
				set_largest(f, n, a, (size_t)(z - a), patch);
		}
		p = eol ? eol + 1 : NULL;
	}
}

static void count_patch(struct pr_size_figures *f, const struct pr_patch *p,
			int patch)
{
	const char *path = NULL;
	size_t path_len = 0;
	uint64_t files = 0, added = 0, removed = 0, cur = 0;
	uint64_t st_files = 0, st_added = 0, st_removed = 0;
	const char *l = p->diff;
	bool in_hunk = false;

	while (l && *l) {
		const char *eol = strchr(l, '\n');

		if (!strncmp(l, "diff --git ", 11)) {
			files++;
			in_hunk = false;
			cur = 0;
			diff_path(l, eol, &path, &path_len);
		} else if (!strncmp(l, "@@ ", 3)) {
			in_hunk = true;
		} else if (!strncmp(l, "Binary files ", 13) ||
			   !strncmp(l, "GIT binary patch", 16)) {
			f->binary++;
		} else if (in_hunk && (*l == '+' || *l == '-')) {
			if (*l == '+')
				added++;
			else
				removed++;
			if (path)
				set_largest(f, ++cur, path, path_len, patch);
		} else if (in_hunk && *l != ' ' && *l != '\\' && *l != '\n') {
			in_hunk = false;
		}
		l = eol ? eol + 1 : NULL;
	}
	if (p->diffstat) {
		count_diffstat(&st_files, &st_added, &st_removed, p->diffstat);
		count_stat_files(f, p->diffstat, patch);
	}
	f->diff_files += files;
	/* A diff cut short still has its whole diffstat: take the larger. */
	f->files += files > st_files ? files : st_files;
	f->added += added > st_added ? added : st_added;
	f->removed += removed > st_removed ? removed : st_removed;
	f->bytes += (p->diff ? strlen(p->diff) : 0) +
		    (p->body ? strlen(p->body) : 0);
}

void pr_size_figures_count(struct pr_size_figures *out,
			   const struct pr_version *v)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->patches = v->nr;
	for (i = 0; i < v->nr; i++)
		count_patch(out, v->patches[i], (int)i);
}

/* One figure against its warn and fail limits (0: no limit). */
static void limit_one(struct pr_report *r, const char *step, const char *what,
		      const char *rule, uint64_t figure, uint64_t warn,
		      uint64_t max)
{
	struct pr_buf m = PR_BUF_INIT;
	enum pr_verdict v;
	uint64_t limit;

	if (max && figure > max) {
		v = PR_VERDICT_FAIL;
		limit = max;
	} else if (warn && figure > warn) {
		v = PR_VERDICT_WARN;
		limit = warn;
	} else {
		return;
	}
	pr_buf_add_count(&m, figure);
	pr_buf_addf(&m, " %s, over the %s limit of ", what,
		    v == PR_VERDICT_FAIL ? "fail" : "warn");
	pr_buf_add_count(&m, limit);
	pr_buf_adds(&m, "; split the series into smaller ones, or send a "
			"pull request instead");
	pr_report_add(r, step, rule, v, -1, NULL, "%s", m.ptr);
	pr_buf_release(&m);
}

int pr_size_limit_check(struct pr_report *r, const char *step,
			const struct pr_size_limit_ctx *ctx,
			const struct pr_version *v)
{
	struct pr_size_figures f;
	struct pr_buf what = PR_BUF_INIT;
	size_t before = r->nr;

	pr_size_figures_count(&f, v);
	limit_one(r, step, "files changed", "files", f.files,
		  (uint64_t)ctx->warn_files, (uint64_t)ctx->max_files);
	limit_one(r, step, "lines changed", "lines", f.added + f.removed,
		  (uint64_t)ctx->warn_lines, (uint64_t)ctx->max_lines);
	limit_one(r, step, "bytes", "bytes", f.bytes, ctx->warn_bytes,
		  ctx->max_bytes);
	limit_one(r, step, "patches", "patches", f.patches,
		  (uint64_t)ctx->warn_patches, (uint64_t)ctx->max_patches);
	pr_buf_addf(&what, "lines changed in one file (%s, patch %d)",
		    f.largest_file, f.largest_patch + 1);
	limit_one(r, step, what.ptr ? what.ptr : "lines changed in one file",
		  "file-lines", f.largest_lines, (uint64_t)ctx->warn_file_lines,
		  (uint64_t)ctx->max_file_lines);
	pr_buf_release(&what);
	if (f.binary)
		pr_report_add(r, step, "binary", PR_VERDICT_WARN, -1, NULL,
			      "%llu binary file(s) in the series; mailing "
			      "lists cannot review them, send them another way",
			      (unsigned long long)f.binary);
	if (r->nr == before)
		pr_report_add(r, step, "", PR_VERDICT_PASS, -1, NULL,
			      "%llu files, +%llu -%llu lines, %llu patches",
			      (unsigned long long)f.files,
			      (unsigned long long)f.added,
			      (unsigned long long)f.removed,
			      (unsigned long long)f.patches);
	return 0;
}

int pr_size_limit_run(struct pr_instance *inst, struct pr_series *s,
		      struct pr_version *v, struct pr_report *report)
{
	PR_UNUSED(s);
	return pr_size_limit_check(report, inst->name, inst->ctx, v);
}
