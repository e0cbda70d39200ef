#include "pr.h"
#include "gitrepo.h"
#include "format.h"

#include <ctype.h>
#include <git2.h>
#include <time.h>

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
	p->body = pr_strdup(line);
}

/* The diff text and --stat --summary text between two trees. */
static int diff_trees(git_buf *text, git_buf *stat, git_repository *repo,
		      git_tree *old, git_tree *new)
{
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	git_diff *diff = NULL;
	git_diff_stats *stats = NULL;
	int err = -1;

	/* format-patch prints binary patches and 7-digit index lines */
	dopts.flags |= GIT_DIFF_SHOW_BINARY;
	dopts.id_abbrev = 7;
	if (git_diff_tree_to_tree(&diff, repo, old, new, &dopts) < 0)
		goto done;
	/* diff.renames defaults to true: renames, not copies */
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_find_similar(diff, &fopts) < 0)
		goto done;
	if (text && git_diff_to_buf(text, diff, GIT_DIFF_FORMAT_PATCH) < 0)
		goto done;
	/*
	 * Stopgap until core/diff.h lands: libgit2's stat text, which is
	 * git's for text files; format-patch wraps the stat at 72 columns.
	 */
	if (git_diff_get_stats(&stats, diff) < 0 ||
	    git_diff_stats_to_buf(stat, stats,
				  GIT_DIFF_STATS_FULL |
					  GIT_DIFF_STATS_INCLUDE_SUMMARY,
				  72) < 0)
		goto done;
	err = 0;
done:
	git_diff_stats_free(stats);
	git_diff_free(diff);
	return err;
}

static int load_diff(struct pr_patch *p, git_repository *repo, git_commit *c)
{
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	git_buf text = { 0 }, stat = { 0 };
	int err = PR_EINVAL;

	if (git_commit_tree(&new, c) < 0)
		goto fail;
	if (git_commit_parentcount(c) > 0) {
		if (git_commit_parent(&parent, c, 0) < 0 ||
		    git_commit_tree(&old, parent) < 0)
			goto fail;
	}
	if (diff_trees(&text, &stat, repo, old, new) < 0)
		goto fail;
	p->diff = pr_memdup(text.ptr, text.size);
	p->diffstat = pr_memdup(stat.ptr, stat.size);
	err = 0;
	goto done;
fail:
	err = git_fail("commit", p->commit_id);
done:
	git_buf_dispose(&text);
	git_buf_dispose(&stat);
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
		      const char *range)
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
	if (git_revparse(&spec, repo, range) < 0)
		return git_fail("revision range", range);
	if (spec.flags & GIT_REVSPEC_MERGE_BASE) {
		err = pr_error(PR_EUNSUPPORTED,
			       "revision range '%s': '...' not supported",
			       range);
	} else if (spec.flags & GIT_REVSPEC_RANGE) {
		if (git_revwalk_push(walk, git_object_id(spec.to)) < 0 ||
		    git_revwalk_hide(walk, git_object_id(spec.from)) < 0)
			err = git_fail("revision range", range);
	} else {
		/* a single revision means "since": rev..HEAD */
		if (git_revwalk_push_head(walk) < 0 ||
		    git_revwalk_hide(walk, git_object_id(spec.from)) < 0)
			err = git_fail("revision range", range);
	}
	git_object_free(spec.from);
	git_object_free(spec.to);
	return err;
}

int pr_gitrepo_load(struct pr_version **out, const char *dir, const char *range)
{
	struct pr_version *v = pr_version_new(1);
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid *ids = NULL;
	size_t nr = 0, alloc = 0, i, first = 0;
	git_oid id;
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
	count = setup_walk(walk, repo, range);
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
		if (merge)
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
	git_buf stat = { 0 };
	int err = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&a, repo, from) < 0 ||
	    git_revparse_single(&b, repo, to) < 0 ||
	    git_object_peel((git_object **)&ta, a, GIT_OBJECT_TREE) < 0 ||
	    git_object_peel((git_object **)&tb, b, GIT_OBJECT_TREE) < 0 ||
	    diff_trees(NULL, &stat, repo, ta, tb) < 0)
		err = git_fail("revision range", from);
	else
		err = pr_buf_add(out, stat.ptr, stat.size);
	git_buf_dispose(&stat);
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
