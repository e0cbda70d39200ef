#include "base/pr.h"
#include "git/diffstat.h"
#include "git/diff.h"

/* git's pprint_rename: "a => b" or "dir/{a => b}/rest". */
static void rename_name(struct pr_buf *out, const char *a, const char *b)
{
	size_t len_a = strlen(a), len_b = strlen(b);
	size_t pfx = 0, sfx = 0, i;
	size_t amid, bmid;
	const char *pa, *pb;

	if (pr_diff_needs_quote(a) || pr_diff_needs_quote(b)) {
		pr_diff_quote(out, a);
		pr_buf_adds(out, " => ");
		pr_diff_quote(out, b);
		return;
	}
	for (i = 0; a[i] && b[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			pfx = i + 1;
	/*
	 * The common suffix starts at a slash; with a common prefix (which
	 * ends in a slash) the scan may look one byte into it.
	 */
	pa = a + len_a;
	pb = b + len_b;
	while (pa >= a + pfx - (pfx ? 1 : 0) && pb >= b + pfx - (pfx ? 1 : 0) &&
	       *pa == *pb) {
		if (*pa == '/')
			sfx = len_a - (size_t)(pa - a);
		if (pa == a || pb == b)
			break;
		pa--;
		pb--;
	}
	amid = len_a >= pfx + sfx ? len_a - pfx - sfx : 0;
	bmid = len_b >= pfx + sfx ? len_b - pfx - sfx : 0;
	if (pfx + sfx) {
		pr_buf_add(out, a, pfx);
		pr_buf_addch(out, '{');
	}
	pr_buf_add(out, a + pfx, amid);
	pr_buf_adds(out, " => ");
	pr_buf_add(out, b + pfx, bmid);
	if (pfx + sfx) {
		pr_buf_addch(out, '}');
		pr_buf_add(out, a + len_a - sfx, sfx);
	}
}

static void print_name(struct pr_buf *out, const struct pr_diff_file *f)
{
	if (strcmp(f->old_path, f->new_path))
		rename_name(out, f->old_path, f->new_path);
	else
		pr_diff_quote(out, f->new_path);
}

static int decimal_width(size_t n)
{
	int w = 1;

	for (; n >= 10; n /= 10)
		w++;
	return w;
}

/* At least one column for any change (git's scale_linear). */
static size_t scale_linear(size_t it, size_t width, size_t max_change)
{
	if (!it)
		return 0;
	return 1 + it * (width - 1) / max_change;
}

/* Display width of a name: names are ASCII once quoted, but not renames. */
static size_t utf8_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static int diffstat(struct pr_buf *out, const struct pr_diff *d)
{
	struct pr_buf *names = NULL;
	size_t i, max_len = 0, max_change = 0, adds = 0, dels = 0;
	int width = 72, number_width = 0, bin_width = 0;
	int name_width, graph_width;
	int err = 0;

	names = pr_calloc(d->nr ? d->nr : 1, sizeof(*names));
	for (i = 0; i < d->nr; i++) {
		const struct pr_diff_file *f = &d->files[i];
		size_t change = f->added + f->deleted;

		names[i] = (struct pr_buf)PR_BUF_INIT;
		print_name(&names[i], f);
		if (max_len < utf8_width(names[i].ptr))
			max_len = utf8_width(names[i].ptr);
		if (f->binary) {
			int w = 14;

			if (f->binary_sizes)
				w += decimal_width(f->new_size) +
				     decimal_width(f->old_size);
			else
				w += 2;
			if (bin_width < w)
				bin_width = w;
			number_width = 3;
			continue;
		}
		if (max_change < change)
			max_change = change;
	}
	if (decimal_width(max_change) > number_width)
		number_width = decimal_width(max_change);
	if (width < 16 + 6 + number_width)
		width = 16 + 6 + number_width;
	/* git's show_stats: the wanted sizes, then fit them into width */
	graph_width = (int)(max_change + 4 > (size_t)bin_width
				    ? max_change
				    : (size_t)bin_width - 4);
	name_width = (int)max_len;
	if ((size_t)name_width + number_width + 6 + graph_width >
	    (size_t)width) {
		if (graph_width > width * 3 / 8 - number_width - 6) {
			graph_width = width * 3 / 8 - number_width - 6;
			if (graph_width < 6)
				graph_width = 6;
		}
		if (name_width > width - number_width - 6 - graph_width)
			name_width = width - number_width - 6 - graph_width;
		else
			graph_width = width - number_width - 6 - name_width;
	}
	for (i = 0; i < d->nr; i++) {
		const struct pr_diff_file *f = &d->files[i];
		const char *prefix = "", *name = names[i].ptr;
		int len = name_width, name_len = (int)utf8_width(name);
		int padding;
		size_t add = f->added, del = f->deleted;

		if (name_width < name_len) {
			const char *slash;

			prefix = "...";
			len -= 3;
			if (len < 0)
				len = 0;
			while (name_len > len) {
				name++;
				while (((unsigned char)*name & 0xc0) == 0x80)
					name++;
				name_len--;
			}
			slash = strchr(name, '/');
			if (slash)
				name = slash;
		}
		padding = len - (int)utf8_width(name);
		if (padding < 0)
			padding = 0;
		if (f->binary) {
			pr_buf_addf(out, " %s%s%*s | %*s", prefix, name,
				    padding, "", number_width, "Bin");
			if (f->binary_sizes && (f->old_size || f->new_size))
				pr_buf_addf(out, " %zu -> %zu bytes",
					    f->old_size, f->new_size);
			pr_buf_addch(out, '\n');
			continue;
		}
		adds += add;
		dels += del;
		if ((size_t)graph_width <= max_change) {
			size_t total = scale_linear(add + del, graph_width,
						    max_change);

			if (total < 2 && add && del)
				total = 2;
			if (add < del) {
				add = scale_linear(add, graph_width,
						   max_change);
				del = total - add;
			} else {
				del = scale_linear(del, graph_width,
						   max_change);
				add = total - del;
			}
		}
		pr_buf_addf(out, " %s%s%*s | %*zu%s", prefix, name, padding, "",
			    number_width, f->added + f->deleted,
			    f->added + f->deleted ? " " : "");
		for (; add; add--)
			pr_buf_addch(out, '+');
		for (; del; del--)
			pr_buf_addch(out, '-');
		err = pr_buf_addch(out, '\n');
		if (err)
			goto done;
	}
	if (!d->nr) {
		err = pr_buf_adds(out, " 0 files changed\n");
		goto done;
	}
	pr_buf_addf(out, " %zu file%s changed", d->nr, d->nr == 1 ? "" : "s");
	if (adds || !dels)
		pr_buf_addf(out, ", %zu insertion%s(+)", adds,
			    adds == 1 ? "" : "s");
	if (dels || !adds)
		pr_buf_addf(out, ", %zu deletion%s(-)", dels,
			    dels == 1 ? "" : "s");
	err = pr_buf_addch(out, '\n');
done:
	for (i = 0; i < d->nr; i++)
		pr_buf_release(&names[i]);
	free(names);
	return err;
}

static void mode_change(struct pr_buf *out, const struct pr_diff_file *f,
			bool show_name)
{
	if (!f->old_mode || !f->new_mode || f->old_mode == f->new_mode)
		return;
	pr_buf_addf(out, " mode change %06o => %06o", f->old_mode, f->new_mode);
	if (show_name) {
		pr_buf_addch(out, ' ');
		pr_diff_quote(out, f->new_path);
	}
	pr_buf_addch(out, '\n');
}

static int summary(struct pr_buf *out, const struct pr_diff *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		const struct pr_diff_file *f = &d->files[i];

		switch (f->status) {
		case PR_DIFF_ADDED:
		case PR_DIFF_DELETED: {
			unsigned mode = f->status == PR_DIFF_ADDED
						? f->new_mode
						: f->old_mode;
			const char *what = f->status == PR_DIFF_ADDED
						   ? "create"
						   : "delete";

			if (mode)
				pr_buf_addf(out, " %s mode %06o ", what, mode);
			else
				pr_buf_addf(out, " %s ", what);
			pr_diff_quote(out, f->new_path);
			pr_buf_addch(out, '\n');
			break;
		}
		case PR_DIFF_RENAMED:
		case PR_DIFF_COPIED:
			pr_buf_adds(out, f->status == PR_DIFF_RENAMED
						 ? " rename "
						 : " copy ");
			rename_name(out, f->old_path, f->new_path);
			pr_buf_addf(out, " (%d%%)\n",
				    f->similarity < 0 ? 100 : f->similarity);
			mode_change(out, f, false);
			break;
		default:
			/* -B's complete rewrite: the mode change without name */
			if (f->rewrite) {
				pr_buf_adds(out, " rewrite ");
				pr_diff_quote(out, f->new_path);
				pr_buf_addf(out, " (%d%%)\n", f->similarity);
			}
			mode_change(out, f, !f->rewrite);
			break;
		}
	}
	/* pr_buf_add* report a cap by return value; check once at the end */
	return pr_buf_grow(out, 0);
}

/*
 * git diff prints a type change (a symlink that became a file) as a
 * deletion and a creation of the same path, but its diffstat and summary
 * show one modified file with a mode change.  This view merges such pairs;
 * its files are shallow copies, free only view->files.
 */
static void stat_view(struct pr_diff *view, const struct pr_diff *d)
{
	size_t i;

	view->files = pr_calloc(d->nr ? d->nr : 1, sizeof(*view->files));
	view->nr = view->alloc = 0;
	for (i = 0; i < d->nr; i++) {
		const struct pr_diff_file *a = &d->files[i], *b = a + 1;
		struct pr_diff_file *f = &view->files[view->nr++];

		*f = *a;
		if (i + 1 >= d->nr || a->status != PR_DIFF_DELETED ||
		    b->status != PR_DIFF_ADDED ||
		    strcmp(a->old_path, b->new_path) ||
		    (a->old_mode & 0170000) == (b->new_mode & 0170000))
			continue;
		f->status = PR_DIFF_MODIFIED;
		f->new_mode = b->new_mode;
		f->added += b->added;
		f->deleted += b->deleted;
		f->binary = a->binary || b->binary;
		f->binary_sizes = a->binary_sizes && b->binary_sizes;
		f->new_size = b->new_size;
		i++;
	}
}

int pr_diffstat_format(struct pr_buf *out, const struct pr_diff *d)
{
	struct pr_diff view;
	int err;

	stat_view(&view, d);
	err = diffstat(out, &view);
	free(view.files);
	return err;
}

int pr_diff_summary_format(struct pr_buf *out, const struct pr_diff *d)
{
	struct pr_diff view;
	int err;

	stat_view(&view, d);
	err = summary(out, &view);
	free(view.files);
	return err;
}
