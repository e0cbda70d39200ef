#include "base/pr.h"
#include "git/gitrepo.h"
#include "git/abbrev.h"
#include "git/format.h"
#include "git/diff.h"
#include "git/libgit.h"
#include "git/treediff.h"
#include "base/sha1.h"
#include "model/trailer.h"

#include <ctype.h>
#include <git2.h>
#include <time.h>

static time_t time_now(void)
{
	return time(NULL);
}

/* Subject and body of a commit message as git's pretty.c splits them. */
static void split_message(struct pr_patch *p, const char *msg)
{
	struct pr_buf subj = PR_BUF_INIT;
	const char *line = msg;
	size_t n;

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
	/* the paragraph's own lines, which `git log` (and range-diff) shows */
	n = (size_t)(line - msg);
	if (n && msg[n - 1] == '\n')
		n--;
	p->subject_raw = pr_strndup(msg, n);
	p->body = pr_strdup(line);
	/*
	 * The trailers as a list too (the body keeps their text), so checks
	 * see a commit's Signed-off-by as they see a mailed patch's.  Only a
	 * size cap fails here; the list is then left empty.
	 */
	if (pr_trailers_parse(&p->trailers, p->body, strlen(p->body)))
		pr_trailer_list_release(&p->trailers);
}

static int load_diff(struct pr_patch *p, git_repository *repo, git_commit *c,
		     bool binary, const struct pr_sim_opts *diff,
		     struct pr_abbrev_ctx *ctx)
{
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	struct pr_buf text = PR_BUF_INIT, stat = PR_BUF_INIT;
	int err;

	if (git_commit_tree(&new, c) < 0 ||
	    (git_commit_parentcount(c) > 0 &&
	     (git_commit_parent(&parent, c, 0) < 0 ||
	      git_commit_tree(&old, parent) < 0))) {
		err = pr_libgit_fail("commit", p->commit_id);
		goto done;
	}
	err = pr_treediff_render(&text, &stat, repo, old, new, diff, binary,
				 ctx);
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
		       const git_oid *id, bool binary,
		       const struct pr_sim_opts *diff,
		       struct pr_abbrev_ctx *ctx)
{
	struct pr_patch *p = pr_patch_new();
	struct pr_buf date = PR_BUF_INIT;
	git_commit *c = NULL;
	const git_signature *a;
	int err;

	git_oid_tostr(p->commit_id, sizeof(p->commit_id), id);
	if (git_commit_lookup(&c, repo, id) < 0) {
		err = pr_libgit_fail("commit", p->commit_id);
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
	err = load_diff(p, repo, c, binary, diff, ctx);
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
			return pr_libgit_fail("revision range", range);
		return (int)count;
	}
	memset(&spec, 0, sizeof(spec));
	if (git_revparse(&spec, repo, range) < 0) {
		/*
		 * libgit2 1.5 leaves spec.from set when only the right side
		 * of "A..B" fails to resolve; free what it filled in.
		 */
		err = pr_libgit_fail("revision range", range);
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
			err = pr_libgit_fail("revision range", range);
	} else {
		/* a single revision means "since": rev..HEAD */
		if (git_reference_name_to_id(tip, repo, "HEAD") < 0 ||
		    git_revwalk_push(walk, tip) < 0 ||
		    git_revwalk_hide(walk, git_object_id(spec.from)) < 0)
			err = pr_libgit_fail("revision range", range);
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

/* The commits a walk has reached: a sorted range set, or all of history. */
struct reach {
	git_oid *set; /* sorted; NULL: every commit belongs */
	size_t nset;
	bool *seen; /* per set entry */
	git_oid *extra; /* commits reached when set is NULL */
	size_t nextra, alloc;
};

/* Mark id reached; false when it was already or is outside the set. */
static bool reach_first(struct reach *r, const git_oid *id)
{
	git_oid *hit;
	size_t i;

	if (r->set) {
		hit = bsearch(id, r->set, r->nset, sizeof(*id), oid_cmp);
		if (!hit || r->seen[hit - r->set])
			return false;
		r->seen[hit - r->set] = true;
		return true;
	}
	/* an unlimited walk stops after a series' worth of commits */
	for (i = 0; i < r->nextra; i++)
		if (git_oid_equal(&r->extra[i], id))
			return false;
	PR_ALLOC_GROW(r->extra, r->nextra + 1, r->alloc);
	r->extra[r->nextra++] = *id;
	return true;
}

/*
 * Order commits as git's revision walk does (format-patch sets no topo
 * order): a queue by committer date where a commit goes after those of
 * the same date, each commit queued once, when first reached.  libgit2's
 * sorts break ties otherwise.  set holds every commit of a range, merges
 * included (it is sorted here); set NULL walks all history from tip and
 * stops after limit non-merges, which is what "-N" takes (git counts only
 * the commits it shows, so merges do not count).  out gets the non-merges,
 * newest first.
 */
static int git_order(git_oid **out, size_t *nr_out, git_repository *repo,
		     const git_oid *tip, git_oid *set, size_t nset,
		     size_t limit)
{
	struct reach r = { set, nset, NULL, NULL, 0, 0 };
	struct queued *q = NULL;
	size_t head = 0, tail = 0, qalloc = 0, nr = 0, oalloc = 0, k;
	git_oid *ids = NULL;
	git_commit *c = NULL;
	int err = 0;

	if (set) {
		qsort(set, nset, sizeof(*set), oid_cmp);
		r.seen = pr_calloc(nset ? nset : 1, sizeof(*r.seen));
	}
	if (reach_first(&r, tip)) {
		PR_ALLOC_GROW(q, tail + 1, qalloc);
		q[tail++].id = *tip;
	}
	while (head < tail && (!limit || nr < limit)) {
		git_oid id = q[head++].id;
		unsigned i, np;

		if (git_commit_lookup(&c, repo, &id) < 0) {
			err = pr_libgit_fail("commit", "walk");
			goto done;
		}
		np = git_commit_parentcount(c);
		if (np <= 1) {
			PR_ALLOC_GROW(ids, nr + 1, oalloc);
			ids[nr++] = id;
		}
		for (i = 0; i < np; i++) {
			const git_oid *pid = git_commit_parent_id(c, i);
			git_commit *pc = NULL;
			int64_t date;

			if (!reach_first(&r, pid))
				continue;
			if (git_commit_lookup(&pc, repo, pid) < 0) {
				err = pr_libgit_fail("commit", "walk");
				goto done;
			}
			date = git_commit_time(pc);
			git_commit_free(pc);
			/* after every queued commit not older than this one */
			for (k = head; k < tail && q[k].date >= date; k++)
				;
			PR_ALLOC_GROW(q, tail + 1, qalloc);
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
	free(r.seen);
	free(r.extra);
	free(q);
	*out = ids;
	*nr_out = nr;
	return err;
}

static int boundary_of(git_oid *out, git_repository *repo, const git_oid *shown,
		       size_t nr);

/*
 * A cover letter's stat, written before the first patch, reads the trees
 * and blobs between the series' boundary and its tip (ids, newest first):
 * they join what the first abbreviation counts the packs of.  No unique
 * boundary: git prints no stat and reads nothing.
 */
static int cover_stat_seeds(struct pr_abbrev_ctx *ctx, git_repository *repo,
			    const git_oid *ids, size_t nr,
			    const struct pr_sim_opts *diff)
{
	git_commit *bc = NULL, *tc = NULL;
	git_tree *old = NULL, *new = NULL;
	git_oid *sorted = (git_oid *)pr_memdup(ids, nr * sizeof(*ids)), bid;
	int err;

	qsort(sorted, nr, sizeof(*sorted), oid_cmp);
	err = boundary_of(&bid, repo, sorted, nr);
	if (err <= 0)
		goto done;
	err = 0;
	if (git_commit_lookup(&bc, repo, &bid) < 0 ||
	    git_commit_lookup(&tc, repo, &ids[0]) < 0 ||
	    git_commit_tree(&old, bc) < 0 || git_commit_tree(&new, tc) < 0) {
		err = pr_libgit_fail("cover letter stat", "boundary");
		goto done;
	}
	pr_abbrev_ctx_add(ctx, &bid);
	err = pr_treediff_seeds(ctx, repo, old, new, diff);
done:
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(bc);
	git_commit_free(tc);
	free(sorted);
	return err;
}

int pr_gitrepo_load(struct pr_version **out, const char *dir, const char *range)
{
	return pr_gitrepo_load_flags(out, dir, range, 0, NULL);
}

int pr_gitrepo_load_flags(struct pr_version **out, const char *dir,
			  const char *range, unsigned flags,
			  const struct pr_sim_opts *diff_opts)
{
	struct pr_sim_opts diff = PR_SIM_OPTS_INIT;
	struct pr_version *v = pr_version_new(1);
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid *ids = NULL, *all = NULL;
	struct pr_abbrev_ctx ctx = { 0 };
	size_t nr = 0, alloc = 0, i;
	git_oid id, tip;
	int err, count;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0) {
		err = pr_libgit_fail("repository", dir);
		goto done;
	}
	if (git_revwalk_new(&walk, repo) < 0) {
		err = pr_libgit_fail("repository", dir);
		goto done;
	}
	/* the config is read once for the whole series */
	if (diff_opts)
		diff = *diff_opts;
	if ((err = pr_treediff_config(&diff, repo)))
		goto done;
	count = setup_walk(walk, repo, range, &tip);
	if (count < 0) {
		err = count;
		goto done;
	}
	if (count) {
		/* -N: the last N non-merges of HEAD in git's date order */
		if (count > PR_LIMIT_SERIES_PATCHES) {
			err = pr_error(PR_ETOOBIG,
				       "revision range '%s': more than %d "
				       "commits",
				       range, PR_LIMIT_SERIES_PATCHES);
			goto done;
		}
		if (git_reference_name_to_id(&tip, repo, "HEAD") < 0) {
			err = pr_libgit_fail("revision range", range);
			goto done;
		}
		err = git_order(&ids, &nr, repo, &tip, NULL, 0, (size_t)count);
		if (err)
			goto done;
	} else {
		/* the whole range, merges included, for git_order's walk */
		while (!git_revwalk_next(&id, walk)) {
			if (nr >= PR_LIMIT_SERIES_PATCHES) {
				err = pr_error(PR_ETOOBIG,
					       "revision range '%s': more "
					       "than %d commits",
					       range, PR_LIMIT_SERIES_PATCHES);
				goto done;
			}
			PR_ALLOC_GROW(all, nr + 1, alloc);
			all[nr++] = id;
		}
		if (nr) {
			err = git_order(&ids, &nr, repo, &tip, all, nr, 0);
			if (err)
				goto done;
		}
	}
	/* git's walk read these commits and their parents before any diff */
	for (i = 0; i < nr; i++) {
		git_commit *c = NULL;
		unsigned k;

		pr_abbrev_ctx_add(&ctx, &ids[i]);
		if (git_commit_lookup(&c, repo, &ids[i]) < 0)
			continue;
		for (k = 0; k < git_commit_parentcount(c); k++)
			pr_abbrev_ctx_add(&ctx, git_commit_parent_id(c, k));
		git_commit_free(c);
	}
	if (nr && (flags & PR_GITREPO_COVER_STAT) &&
	    (err = cover_stat_seeds(&ctx, repo, ids, nr, &diff)))
		goto done;
	for (i = nr; i > 0; i--) {
		struct pr_patch *p = NULL;

		err = load_commit(&p, repo, &ids[i - 1],
				  !(flags & PR_GITREPO_NO_BINARY), &diff, &ctx);
		if (err)
			goto done;
		pr_version_add_patch(v, p);
	}
	*out = v;
	v = NULL;
	err = 0;
done:
	pr_abbrev_ctx_release(&ctx);
	free(ids);
	free(all);
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
		err = pr_libgit_fail("revision", rev);
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
	return pr_gitrepo_stat_opts(out, dir, from, to, NULL);
}

int pr_gitrepo_stat_opts(struct pr_buf *out, const char *dir, const char *from,
			 const char *to, const struct pr_sim_opts *diff)
{
	git_repository *repo = NULL;
	git_object *a = NULL, *b = NULL;
	git_tree *ta = NULL, *tb = NULL;
	struct pr_buf text = PR_BUF_INIT;
	struct pr_abbrev_ctx ctx = { 0 };
	int err = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&a, repo, from) < 0 ||
	    git_revparse_single(&b, repo, to) < 0 ||
	    git_object_peel((git_object **)&ta, a, GIT_OBJECT_TREE) < 0 ||
	    git_object_peel((git_object **)&tb, b, GIT_OBJECT_TREE) < 0)
		err = pr_libgit_fail("revision range", from);
	else
		err = pr_treediff_render(&text, out, repo, ta, tb, diff, true,
					 &ctx);
	pr_abbrev_ctx_release(&ctx);
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
		err = pr_libgit_fail("committer of repository", dir);
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
		ret = pr_libgit_fail("revision", commit);
	} else if (git_oid_equal(git_object_id(a), git_object_id(b))) {
		ret = 1;
	} else {
		ret = git_graph_descendant_of(repo, git_object_id(a),
					      git_object_id(b));
		if (ret < 0)
			ret = pr_libgit_fail("revision", commit);
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
int pr_gitrepo_patch_id(char out[41], const char *dir, const char *rev)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *c = NULL, *parent = NULL;
	git_tree *old = NULL, *new = NULL;
	int err;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&obj, repo, rev) < 0 ||
	    git_commit_lookup(&c, repo, git_object_id(obj)) < 0 ||
	    git_commit_tree(&new, c) < 0 ||
	    (git_commit_parentcount(c) > 0 &&
	     (git_commit_parent(&parent, c, 0) < 0 ||
	      git_commit_tree(&old, parent) < 0))) {
		err = pr_libgit_fail("revision", rev);
		goto done;
	}
	/* git's commit_patch_id finds renames as diff.renames says */
	err = pr_treediff_patch_id(out, repo, old, new);
done:
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	git_commit_free(c);
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

/*
 * The one parent outside shown (nr commits, sorted) of a commit of shown:
 * 1 with out set, 0 when there are none or several, or an error.
 */
static int boundary_of(git_oid *out, git_repository *repo, const git_oid *shown,
		       size_t nr)
{
	git_commit *c = NULL;
	git_oid found;
	size_t i, nfound = 0;
	int ret = 0;

	for (i = 0; i < nr && nfound < 2; i++) {
		unsigned k, np;

		if (git_commit_lookup(&c, repo, &shown[i]) < 0) {
			char hex[GIT_OID_HEXSZ + 1];

			git_oid_tostr(hex, sizeof(hex), &shown[i]);
			return pr_libgit_fail("commit", hex);
		}
		np = git_commit_parentcount(c);
		for (k = 0; k < np && nfound < 2; k++) {
			const git_oid *pid = git_commit_parent_id(c, k);

			if (bsearch(pid, shown, nr, sizeof(*shown), oid_cmp))
				continue;
			if (!nfound || !git_oid_equal(&found, pid))
				found = *pid, nfound++;
		}
		git_commit_free(c);
		c = NULL;
	}
	if (nfound == 1) {
		*out = found;
		ret = 1;
	}
	return ret;
}

int pr_gitrepo_boundary(char out[41], const char *dir,
			const struct pr_version *v)
{
	git_repository *repo = NULL;
	git_oid *shown = NULL, found;
	size_t i;
	int ret = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0) {
		ret = pr_libgit_fail("repository", dir);
		goto done;
	}
	shown = pr_reallocarray(NULL, v->nr ? v->nr : 1, sizeof(*shown));
	for (i = 0; i < v->nr; i++)
		if (git_oid_fromstr(&shown[i], v->patches[i]->commit_id) < 0) {
			ret = pr_error(PR_EINVAL, "patch %zu: no commit id",
				       i + 1);
			goto done;
		}
	qsort(shown, v->nr, sizeof(*shown), oid_cmp);
	ret = boundary_of(&found, repo, shown, v->nr);
	if (ret == 1)
		git_oid_tostr(out, 41, &found);
done:
	free(shown);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}
