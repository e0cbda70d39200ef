#include "pr.h"
#include "gitrepo.h"
#include "format.h"
#include "diff.h"
#include "sha1.h"

#include <ctype.h>
#include <git2.h>
#include <time.h>
#include <zlib.h>

static time_t time_now(void)
{
	return time(NULL);
}

static int git_fail(const char *what, const char *arg)
{
	const git_error *e = git_error_last();

	return pr_error(PR_EINVAL, "%s '%s': %s", what, arg,
			e && e->message ? e->message : "libgit2 error");
}

/* Subject and body of a commit message as git's pretty.c splits them. */
static void split_message(struct pr_patch *p, const char *msg)
{
	struct pr_buf subj = PR_BUF_INIT;
	const char *line = msg;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t trim = len;

		while (trim && isspace((unsigned char)line[trim - 1]))
			trim--;
		if (!trim)
			break;
		if (subj.len)
			pr_buf_addch(&subj, ' ');
		pr_buf_add(&subj, line, trim);
		line += len + (nl ? 1 : 0);
	}
	p->subject = pr_buf_detach(&subj, NULL);
	/* git names the file after the first line only (%f) */
	p->subject_raw = pr_strndup(msg, strcspn(msg, "\n"));
	p->body = pr_strdup(line);
}

static const char b85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/* Decode one "GIT binary patch" data line (no '\n') onto out. */
static int b85_line(struct pr_buf *out, const char *l, size_t len)
{
	size_t n, i, k;
	int err = 0;

	if (!len)
		return -1;
	if (l[0] >= 'A' && l[0] <= 'Z')
		n = (size_t)(l[0] - 'A' + 1);
	else if (l[0] >= 'a' && l[0] <= 'z')
		n = (size_t)(l[0] - 'a' + 27);
	else
		return -1;
	if (len != 1 + (n + 3) / 4 * 5)
		return -1;
	for (i = 1; i < len && !err; i += 5) {
		uint32_t v = 0;
		unsigned char four[4];

		for (k = 0; k < 5; k++) {
			const char *c = strchr(b85, l[i + k]);

			if (!c || !l[i + k])
				return -1;
			v = v * 85 + (uint32_t)(c - b85);
		}
		for (k = 0; k < 4; k++)
			four[k] = (unsigned char)(v >> (24 - 8 * k));
		k = n < 4 ? n : 4;
		err = pr_buf_add(out, four, k);
		n -= k;
	}
	return err;
}

static int b85_encode(struct pr_buf *out, const unsigned char *p, size_t len)
{
	int err = 0;

	while (len && !err) {
		size_t n = len > 52 ? 52 : len, i, k;

		err = pr_buf_addch(out, n <= 26 ? 'A' + (int)n - 1
						: 'a' + (int)n - 27);
		for (i = 0; i < n && !err; i += 4) {
			uint32_t v = 0;
			char five[5];

			for (k = 0; k < 4; k++)
				v = (v << 8) | (i + k < n ? p[i + k] : 0);
			for (k = 5; k-- > 0;) {
				five[k] = b85[v % 85];
				v /= 85;
			}
			err = pr_buf_add(out, five, 5);
		}
		if (!err)
			err = pr_buf_addch(out, '\n');
		p += n;
		len -= n;
	}
	return err;
}

/* Inflate, then deflate at git's level (Z_BEST_SPEED) and base85 again. */
static int redeflate(struct pr_buf *out, const struct pr_buf *z, size_t size)
{
	unsigned char *plain = pr_malloc(size ? size : 1);
	uLongf plen = size;
	uLongf zlen = compressBound(size);
	unsigned char *again = pr_malloc(zlen);
	int err = PR_EPARSE;

	if (uncompress(plain, &plen, (const Bytef *)z->ptr, z->len) != Z_OK ||
	    plen != size)
		goto done;
	if (compress2(again, &zlen, plain, plen, Z_BEST_SPEED) != Z_OK)
		goto done;
	err = b85_encode(out, again, zlen);
done:
	free(plain);
	free(again);
	return err;
}

/*
 * Turn libgit2's diff text into git's bytes.  libgit2 deflates binary
 * patches at zlib's default level, git at Z_BEST_SPEED; the data is the
 * same, the bytes are not.  Re-encode each "literal N"/"delta N" hunk as
 * git would.  And git ends a ---/+++ name holding a space with a tab.  Which of literal and delta is
 * used stays libgit2's choice (made on its own compressed sizes).
 */
static int fix_binary(struct pr_buf *text)
{
	struct pr_buf out = PR_BUF_INIT, z = PR_BUF_INIT;
	const char *p = text->ptr, *end = text->ptr + text->len;
	bool in_binary = false, in_header = false;
	int err = 0;

	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		unsigned long long size;
		int n = 0;

		if (!strncmp(p, "diff --git ", 11)) {
			in_binary = false;
			in_header = true;
		} else if (!strncmp(p, "@@ ", 3)) {
			in_header = false;
		} else if (in_header && len > 4 &&
			   (!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4)) &&
			   memchr(p + 4, ' ', len - 4)) {
			/* git ends a file name with a space by a tab (GNU patch) */
			err = pr_buf_add(&out, p, len);
			if (!err)
				err = pr_buf_adds(&out, "\t\n");
			p += len + (nl ? 1 : 0);
			continue;
		} else if (len == 16 && !strncmp(p, "GIT binary patch", 16))
			in_binary = true;
		if (in_binary && len < 40 &&
		    (sscanf(p, "literal %llu%n", &size, &n) == 1 ||
		     sscanf(p, "delta %llu%n", &size, &n) == 1) &&
		    (size_t)n == len && size <= PR_LIMIT_DIFF_BYTES) {
			err = pr_buf_add(&out, p, len + 1);
			p += len + 1;
			pr_buf_reset(&z);
			while (!err && p < end && *p != '\n') {
				nl = memchr(p, '\n', (size_t)(end - p));
				len = nl ? (size_t)(nl - p) : (size_t)(end - p);
				if (b85_line(&z, p, len))
					err = pr_error(PR_EPARSE,
						       "binary patch: bad "
						       "base85 line");
				p += len + (nl ? 1 : 0);
			}
			if (!err)
				err = redeflate(&out, &z, (size_t)size);
			if (err == PR_EPARSE && !*pr_error_message())
				err = pr_error(PR_EPARSE, "binary patch: bad "
							  "deflate data");
			continue;
		}
		err = pr_buf_add(&out, p, len + (nl ? 1 : 0));
		p += len + (nl ? 1 : 0);
	}
	if (!err) {
		pr_buf_release(text);
		*text = out;
		out = (struct pr_buf)PR_BUF_INIT;
	}
	pr_buf_release(&out);
	pr_buf_release(&z);
	return err;
}

/* The diff text and --stat --summary text between two trees. */
static int diff_trees(struct pr_buf *text, struct pr_buf *stat,
		      git_repository *repo, git_tree *old, git_tree *new,
		      bool renames)
{
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	struct pr_diff parsed = PR_DIFF_INIT;
	git_diff *diff = NULL;
	git_buf raw = { 0 };
	size_t i;
	int err;

	/* format-patch prints binary patches and 7-digit index lines */
	dopts.flags |= GIT_DIFF_SHOW_BINARY;
	dopts.id_abbrev = 7;
	/* diff.renames defaults to true: renames, not copies */
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_tree_to_tree(&diff, repo, old, new, &dopts) < 0 ||
	    (renames && git_diff_find_similar(diff, &fopts) < 0) ||
	    git_diff_to_buf(&raw, diff, GIT_DIFF_FORMAT_PATCH) < 0) {
		err = git_fail("diff of", "tree");
		goto done;
	}
	err = pr_buf_add(text, raw.ptr, raw.size);
	if (!err)
		err = fix_binary(text);
	if (!stat)
		goto done;
	/* the stat is computed from the text, as it is for mails */
	if (!err)
		err = pr_diff_parse(&parsed, text->ptr, text->len);
	/* a delta hunk does not carry the blob sizes "Bin A -> B bytes" needs */
	for (i = 0; !err && i < parsed.nr && i < git_diff_num_deltas(diff);
	     i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct pr_diff_file *f = &parsed.files[i];

		if (f->binary && !f->binary_sizes) {
			f->binary_sizes = true;
			f->old_size = (size_t)d->old_file.size;
			f->new_size = (size_t)d->new_file.size;
		}
	}
	if (!err)
		err = pr_diffstat_format(stat, &parsed);
	if (!err)
		err = pr_diff_summary_format(stat, &parsed);
done:
	pr_diff_release(&parsed);
	git_buf_dispose(&raw);
	git_diff_free(diff);
	return err;
}

static int load_diff(struct pr_patch *p, git_repository *repo, git_commit *c)
{
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	struct pr_buf text = PR_BUF_INIT, stat = PR_BUF_INIT;
	int err;

	if (git_commit_tree(&new, c) < 0 ||
	    (git_commit_parentcount(c) > 0 &&
	     (git_commit_parent(&parent, c, 0) < 0 ||
	      git_commit_tree(&old, parent) < 0))) {
		err = git_fail("commit", p->commit_id);
		goto done;
	}
	err = diff_trees(&text, &stat, repo, old, new, true);
	if (err)
		goto done;
	p->diff = pr_buf_detach(&text, NULL);
	p->diffstat = pr_buf_detach(&stat, NULL);
done:
	pr_buf_release(&text);
	pr_buf_release(&stat);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	return err;
}

static int load_commit(struct pr_patch **out, git_repository *repo,
		       const git_oid *id)
{
	struct pr_patch *p = pr_patch_new();
	struct pr_buf date = PR_BUF_INIT;
	git_commit *c = NULL;
	const git_signature *a;
	int err;

	git_oid_tostr(p->commit_id, sizeof(p->commit_id), id);
	if (git_commit_lookup(&c, repo, id) < 0) {
		err = git_fail("commit", p->commit_id);
		goto done;
	}
	a = git_commit_author(c);
	pr_ident_set(&p->author, a->name, a->email);
	p->time = a->when.time;
	p->tz_minutes = a->when.offset;
	err = pr_format_date(&date, p->time, p->tz_minutes);
	if (err)
		goto done;
	p->date = pr_buf_detach(&date, NULL);
	split_message(p, git_commit_message(c));
	err = load_diff(p, repo, c);
done:
	pr_buf_release(&date);
	git_commit_free(c);
	if (err)
		pr_patch_free(p);
	else
		*out = p;
	return err;
}

/* Push the range onto walk as format-patch reads it. */
static int setup_walk(git_revwalk *walk, git_repository *repo,
		      const char *range, git_oid *tip)
{
	git_revspec spec;
	char *end = NULL;
	long count = 0;
	int err = 0;

	if (range[0] == '-' && isdigit((unsigned char)range[1])) {
		count = strtol(range + 1, &end, 10);
		if (*end || count <= 0)
			return pr_error(PR_EINVAL,
					"revision range '%s': bad count",
					range);
		if (git_revwalk_push_head(walk) < 0)
			return git_fail("revision range", range);
		return (int)count;
	}
	memset(&spec, 0, sizeof(spec));
	if (git_revparse(&spec, repo, range) < 0) {
		/*
		 * libgit2 1.5 leaves spec.from set when only the right side
		 * of "A..B" fails to resolve; free what it filled in.
		 */
		err = git_fail("revision range", range);
		git_object_free(spec.from);
		git_object_free(spec.to);
		return err;
	}
	if (spec.flags & GIT_REVSPEC_MERGE_BASE) {
		err = pr_error(PR_EUNSUPPORTED,
			       "revision range '%s': '...' not supported",
			       range);
	} else if (spec.flags & GIT_REVSPEC_RANGE) {
		git_oid_cpy(tip, git_object_id(spec.to));
		if (git_revwalk_push(walk, tip) < 0 ||
		    git_revwalk_hide(walk, git_object_id(spec.from)) < 0)
			err = git_fail("revision range", range);
	} else {
		/* a single revision means "since": rev..HEAD */
		if (git_reference_name_to_id(tip, repo, "HEAD") < 0 ||
		    git_revwalk_push(walk, tip) < 0 ||
		    git_revwalk_hide(walk, git_object_id(spec.from)) < 0)
			err = git_fail("revision range", range);
	}
	git_object_free(spec.from);
	git_object_free(spec.to);
	return err;
}

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

struct queued {
	git_oid id;
	int64_t date;
};

/*
 * Order the commits of a range as git's revision walk does (format-patch
 * sets no topo order): a queue by committer date where a commit goes after
 * those of the same date, each commit queued once, when first reached.
 * libgit2's sorts break ties otherwise.  set holds every commit of the
 * range, merges included; out gets the non-merges, newest first.
 */
static int git_order(git_oid *out, size_t *nr_out, git_repository *repo,
		     const git_oid *tip, git_oid *set, size_t nset)
{
	bool *seen = pr_calloc(nset ? nset : 1, sizeof(*seen));
	struct queued *q = pr_reallocarray(NULL, nset + 1, sizeof(*q));
	size_t head = 0, tail = 0, nr = 0, k;
	git_commit *c = NULL;
	git_oid *hit;
	int err = 0;

	qsort(set, nset, sizeof(*set), oid_cmp);
	hit = bsearch(tip, set, nset, sizeof(*set), oid_cmp);
	if (hit) {
		seen[hit - set] = true;
		q[tail++].id = *tip;
	}
	while (head < tail) {
		git_oid id = q[head++].id;
		unsigned i, np;

		if (git_commit_lookup(&c, repo, &id) < 0) {
			err = git_fail("commit", "walk");
			goto done;
		}
		np = git_commit_parentcount(c);
		if (np <= 1)
			out[nr++] = id;
		for (i = 0; i < np; i++) {
			const git_oid *pid = git_commit_parent_id(c, i);
			git_commit *pc = NULL;
			int64_t date;

			hit = bsearch(pid, set, nset, sizeof(*set), oid_cmp);
			if (!hit || seen[hit - set])
				continue;
			seen[hit - set] = true;
			if (git_commit_lookup(&pc, repo, pid) < 0) {
				err = git_fail("commit", "walk");
				goto done;
			}
			date = git_commit_time(pc);
			git_commit_free(pc);
			/* after every queued commit not older than this one */
			for (k = head; k < tail && q[k].date >= date; k++)
				;
			memmove(q + k + 1, q + k, (tail - k) * sizeof(*q));
			q[k].id = *pid;
			q[k].date = date;
			tail++;
		}
		git_commit_free(c);
		c = NULL;
	}
done:
	git_commit_free(c);
	free(seen);
	free(q);
	*nr_out = nr;
	return err;
}

int pr_gitrepo_load(struct pr_version **out, const char *dir, const char *range)
{
	struct pr_version *v = pr_version_new(1);
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid *ids = NULL;
	size_t nr = 0, alloc = 0, i, first = 0;
	git_oid id, tip;
	int err, count;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0) {
		err = git_fail("repository", dir);
		goto done;
	}
	if (git_revwalk_new(&walk, repo) < 0) {
		err = git_fail("repository", dir);
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	count = setup_walk(walk, repo, range, &tip);
	if (count < 0) {
		err = count;
		goto done;
	}
	/* newest first from the walk; merges are not patches */
	while (!git_revwalk_next(&id, walk)) {
		git_commit *c = NULL;
		bool merge;

		if (count && nr == (size_t)count)
			break;
		if (git_commit_lookup(&c, repo, &id) < 0) {
			err = git_fail("repository", dir);
			goto done;
		}
		merge = git_commit_parentcount(c) > 1;
		git_commit_free(c);
		/* a range keeps its merges for git_order's walk */
		if (merge && count)
			continue;
		if (nr >= PR_LIMIT_SERIES_PATCHES) {
			err = pr_error(
				PR_ETOOBIG,
				"revision range '%s': more than %d commits",
				range, PR_LIMIT_SERIES_PATCHES);
			goto done;
		}
		PR_ALLOC_GROW(ids, nr + 1, alloc);
		ids[nr++] = id;
	}
	if (!count && nr) {
		git_oid *all = ids;

		ids = pr_reallocarray(NULL, nr, sizeof(*ids));
		err = git_order(ids, &nr, repo, &tip, all, nr);
		free(all);
		if (err)
			goto done;
	}
	for (i = nr; i > first; i--) {
		struct pr_patch *p = NULL;

		err = load_commit(&p, repo, &ids[i - 1]);
		if (err)
			goto done;
		pr_version_add_patch(v, p);
	}
	*out = v;
	v = NULL;
	err = 0;
done:
	free(ids);
	pr_version_free(v);
	git_revwalk_free(walk);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

int pr_gitrepo_resolve(char out[41], const char *dir, const char *rev)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	int err = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&obj, repo, rev) < 0)
		err = git_fail("revision", rev);
	else
		git_oid_tostr(out, 41, git_object_id(obj));
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

int pr_gitrepo_stat(struct pr_buf *out, const char *dir, const char *from,
		    const char *to)
{
	git_repository *repo = NULL;
	git_object *a = NULL, *b = NULL;
	git_tree *ta = NULL, *tb = NULL;
	struct pr_buf text = PR_BUF_INIT;
	int err = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&a, repo, from) < 0 ||
	    git_revparse_single(&b, repo, to) < 0 ||
	    git_object_peel((git_object **)&ta, a, GIT_OBJECT_TREE) < 0 ||
	    git_object_peel((git_object **)&tb, b, GIT_OBJECT_TREE) < 0)
		err = git_fail("revision range", from);
	else
		err = diff_trees(&text, out, repo, ta, tb, true);
	pr_buf_release(&text);
	git_tree_free(ta);
	git_tree_free(tb);
	git_object_free(a);
	git_object_free(b);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

/* "YYYY-MM-DD HH:MM:SS +ZZZZ" or "@EPOCH +ZZZZ"; false when neither. */
static bool parse_date(const char *s, int64_t *t, int *tz)
{
	int y, mo, d, h, mi, sec, off, n = 0;
	long long epoch;
	struct tm tm = { 0 };

	if (sscanf(s, "@%lld %d%n", &epoch, &off, &n) == 2 && !s[n]) {
		*t = epoch;
	} else if (sscanf(s, "%d-%d-%d %d:%d:%d %d%n", &y, &mo, &d, &h, &mi,
			  &sec, &off, &n) == 7 &&
		   !s[n]) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
		tm.tm_hour = h;
		tm.tm_min = mi;
		tm.tm_sec = sec;
		*t = (int64_t)timegm(&tm);
	} else {
		return false;
	}
	*tz = (off < 0 ? -1 : 1) * ((off < 0 ? -off : off) / 100 * 60 +
				    (off < 0 ? -off : off) % 100);
	if (!(s[0] == '@'))
		*t -= (int64_t)*tz * 60;
	return true;
}

int pr_gitrepo_committer(struct pr_ident *out, int64_t *time, int *tz,
			 const char *dir)
{
	const char *name = getenv("GIT_COMMITTER_NAME");
	const char *email = getenv("GIT_COMMITTER_EMAIL");
	const char *date = getenv("GIT_COMMITTER_DATE");
	git_repository *repo = NULL;
	git_signature *sig = NULL;
	int err = 0;

	git_libgit2_init();
	if ((!name || !email) &&
	    (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	     git_signature_default(&sig, repo) < 0)) {
		err = git_fail("committer of repository", dir);
		goto done;
	}
	pr_ident_set(out, name ? name : sig->name, email ? email : sig->email);
	if (date && *date) {
		if (!parse_date(date, time, tz))
			err = pr_error(PR_EUNSUPPORTED,
				       "GIT_COMMITTER_DATE '%s': only "
				       "'YYYY-MM-DD HH:MM:SS +ZZZZ' and "
				       "'@EPOCH +ZZZZ' are read",
				       date);
	} else {
		/* git prints "now" in the local zone; this prints UTC */
		*time = (int64_t)time_now();
		*tz = 0;
	}
done:
	git_signature_free(sig);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

int pr_gitrepo_descends(const char *dir, const char *commit,
			const char *ancestor)
{
	git_repository *repo = NULL;
	git_object *a = NULL, *b = NULL;
	int ret;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&a, repo, commit) < 0 ||
	    git_revparse_single(&b, repo, ancestor) < 0) {
		ret = git_fail("revision", commit);
	} else if (git_oid_equal(git_object_id(a), git_object_id(b))) {
		ret = 1;
	} else {
		ret = git_graph_descendant_of(repo, git_object_id(a),
					      git_object_id(b));
		if (ret < 0)
			ret = git_fail("revision", commit);
	}
	git_object_free(a);
	git_object_free(b);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

/*
 * A binary file in git's internal patch id: its header lines without
 * whitespace (diff --git, modes), then both full blob ids from the index
 * line.
 */
static int binary_id(char out[41], const char *p, size_t len)
{
	const char *end = p + len;
	char ids[82] = "";
	struct pr_sha1 c;
	size_t i;

	pr_sha1_init(&c);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!strncmp(p, "GIT binary patch", 16) ||
		    !strncmp(p, "Binary files ", 13))
			break;
		if (!strncmp(p, "index ", 6)) {
			const char *dots = memchr(p, '.', n);

			if (!dots || dots - p != 46 || n < 88)
				return pr_error(PR_EPARSE, "binary patch: no "
							   "full index line");
			memcpy(ids, p + 6, 40);
			memcpy(ids + 40, dots + 2, 40);
			ids[80] = '\0';
		} else {
			for (i = 0; i < n; i++)
				if (!isspace((unsigned char)p[i]))
					pr_sha1_update(&c, p + i, 1);
		}
		p += n + (nl ? 1 : 0);
	}
	pr_sha1_update(&c, ids, strlen(ids));
	pr_sha1_final_hex(out, &c);
	return 0;
}

/*
 * The lines of one file's diff the internal id hashes: rename and copy
 * headers are not among them (it hashes the two paths of the diff line).
 */
static int add_id_lines(struct pr_buf *out, const struct pr_diff_file *f,
			const char *p, size_t len)
{
	static const char *const skip[] = {
		"similarity index ", "dissimilarity index ", "rename from ",
		"rename to ",	     "copy from ",	     "copy to "
	};
	const char *end = p + len;
	bool header = true;
	int err = 0;

	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t k;
		bool drop = false;

		for (k = 0; header && k < PR_ARRAY_SIZE(skip); k++)
			if (!strncmp(p, skip[k], strlen(skip[k])))
				drop = true;
		if (!strncmp(p, "@@ ", 3))
			header = false;
		/* the internal id hashes raw paths, never C-quoted ones */
		if (header && !strncmp(p, "diff --git ", 11))
			err = pr_buf_addf(out, "diff --git a/%s b/%s\n",
					  f->old_path, f->new_path);
		else if (header && !strncmp(p, "--- ", 4))
			err = f->status == PR_DIFF_ADDED
				      ? pr_buf_adds(out, "--- /dev/null\n")
				      : pr_buf_addf(out, "--- a/%s\n",
						    f->old_path);
		else if (header && !strncmp(p, "+++ ", 4))
			err = f->status == PR_DIFF_DELETED
				      ? pr_buf_adds(out, "+++ /dev/null\n")
				      : pr_buf_addf(out, "+++ b/%s\n",
						    f->new_path);
		else if (!drop)
			err = pr_buf_add(out, p, n);
		p += n;
	}
	return err;
}

/* 160-bit addition, as git's flush_one_hunk sums the per-file hashes. */
static void add_hash(unsigned char sum[20], const char hex[41])
{
	unsigned carry = 0;
	int i;

	for (i = 0; i < 20; i++) {
		unsigned v = 0;

		sscanf(hex + 2 * i, "%2x", &v);
		carry += sum[i] + v;
		sum[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/*
 * git's internal commit_patch_id (stable) from the text patch id: the
 * stable id is a sum of one hash per file, so each file is hashed on its
 * own (git patch-id skips the header of a file that follows a binary
 * one), and a file without hunks gets the ---/+++ lines the internal id
 * hashes but the text does not show (mode changes, empty files).  Binary
 * files hash by their full blob ids, which libgit2 prints for them.
 */
static int internal_patch_id(char out[41], const struct pr_buf *text)
{
	struct pr_diff d = PR_DIFF_INIT;
	struct pr_buf one = PR_BUF_INIT;
	unsigned char sum[20] = { 0 };
	char id[41];
	size_t i;
	int err;

	err = pr_diff_parse(&d, text->ptr, text->len);
	for (i = 0; !err && i < d.nr; i++) {
		const struct pr_diff_file *f = &d.files[i];

		pr_buf_reset(&one);
		err = add_id_lines(&one, f, text->ptr + f->offset, f->len);
		if (!err && !f->binary && !f->nr_hunks) {
			if (f->status == PR_DIFF_ADDED)
				err = pr_buf_addf(&one,
						  "--- /dev/null\n+++ b/%s\n",
						  f->new_path);
			else if (f->status == PR_DIFF_DELETED)
				err = pr_buf_addf(&one,
						  "--- a/%s\n+++ /dev/null\n",
						  f->old_path);
			else
				err = pr_buf_addf(&one, "--- a/%s\n+++ b/%s\n",
						  f->old_path, f->new_path);
		}
		if (!err && f->binary)
			err = binary_id(id, one.ptr, one.len);
		else if (!err)
			err = pr_patch_id(id, one.ptr, one.len, true);
		if (!err)
			add_hash(sum, id);
	}
	for (i = 0; !err && i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", sum[i]);
	pr_buf_release(&one);
	pr_diff_release(&d);
	return err;
}

int pr_gitrepo_patch_id(char out[41], const char *dir, const char *rev)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *c = NULL, *parent = NULL;
	git_tree *old = NULL, *new = NULL;
	struct pr_buf text = PR_BUF_INIT;
	int err;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&obj, repo, rev) < 0 ||
	    git_commit_lookup(&c, repo, git_object_id(obj)) < 0 ||
	    git_commit_tree(&new, c) < 0 ||
	    (git_commit_parentcount(c) > 0 &&
	     (git_commit_parent(&parent, c, 0) < 0 ||
	      git_commit_tree(&old, parent) < 0))) {
		err = git_fail("revision", rev);
		goto done;
	}
	/* git's commit_patch_id finds renames as diff.renames says */
	err = diff_trees(&text, NULL, repo, old, new, true);
	if (!err)
		err = internal_patch_id(out, &text);
done:
	pr_buf_release(&text);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	git_commit_free(c);
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

int pr_gitrepo_has_merge(const char *dir, const char *range)
{
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid id, tip;
	int ret = 0, count;
	long seen = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revwalk_new(&walk, repo) < 0) {
		ret = git_fail("repository", dir);
		goto done;
	}
	count = setup_walk(walk, repo, range, &tip);
	if (count < 0) {
		ret = count;
		goto done;
	}
	while (!ret && !git_revwalk_next(&id, walk)) {
		git_commit *c = NULL;

		if (count && seen++ >= count)
			break;
		if (git_commit_lookup(&c, repo, &id) < 0) {
			ret = git_fail("repository", dir);
			goto done;
		}
		if (git_commit_parentcount(c) > 1)
			ret = 1;
		git_commit_free(c);
	}
done:
	git_revwalk_free(walk);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}
