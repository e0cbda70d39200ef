#include "base/pr.h"

#include <git2.h>

#include "maintainers.h"

/*
 * The commit lookup behind get_maintainer.pl's --fixes, with libgit2: what
 * `git log -1 --format='GitAuthor: %an <%ae>%n...%b' REV` shows of the
 * commit a Fixes: tag names, run in the kernel tree.  Kept apart from
 * maintainers.c so that the `patchrelay` front, which routes without
 * libgit2, links none of it (docs/internals/front.md).
 */

struct pr_maint_git {
	char *tree;
	git_repository *repo;
	bool tried; /* the repository was looked for */
};

struct pr_maint_git *pr_maint_git_new(const char *tree)
{
	struct pr_maint_git *g = pr_calloc(1, sizeof(*g));

	g->tree = pr_strdup(tree ? tree : ".");
	return g;
}

void pr_maint_git_free(struct pr_maint_git *g)
{
	if (!g)
		return;
	if (g->tried) {
		git_repository_free(g->repo);
		git_libgit2_shutdown();
	}
	free(g->tree);
	free(g);
}

struct prefix_walk {
	git_odb *odb;
	git_repository *repo;
	const char *hex;
	size_t len;
	git_oid found;
	size_t n; /* committish objects with the prefix */
};

/* A commit, or a tag that peels to one (git's committish). */
static bool committish(git_repository *repo, const git_oid *id)
{
	git_object *o = NULL, *c = NULL;
	bool yes;

	if (git_object_lookup(&o, repo, id, GIT_OBJECT_ANY) < 0)
		return false;
	yes = git_object_type(o) == GIT_OBJECT_COMMIT ||
	      (git_object_type(o) == GIT_OBJECT_TAG &&
	       !git_object_peel(&c, o, GIT_OBJECT_COMMIT));
	git_object_free(c);
	git_object_free(o);
	return yes;
}

static int prefix_cb(const git_oid *id, void *payload)
{
	struct prefix_walk *w = payload;
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), id);
	if (strncasecmp(hex, w->hex, w->len) || !committish(w->repo, id))
		return 0;
	/* a pack and a loose copy of one object are one candidate */
	if (w->n && !git_oid_cmp(&w->found, id))
		return 0;
	git_oid_cpy(&w->found, id);
	w->n++;
	return 0;
}

/*
 * An abbreviated id that several objects share: `git log` takes the one
 * committish among them (get_oid's committish hint) and fails on more.
 * Every object is visited: slow on a large repository, and only run when
 * libgit2 found the prefix ambiguous.
 */
static int committish_by_prefix(git_object **out, git_repository *repo,
				const char *hex)
{
	struct prefix_walk w = { 0 };
	int err = -1;

	w.repo = repo;
	w.hex = hex;
	w.len = strlen(hex);
	if (git_repository_odb(&w.odb, repo) < 0)
		return -1;
	if (!git_odb_foreach(w.odb, prefix_cb, &w) && w.n == 1)
		err = git_object_lookup(out, repo, &w.found, GIT_OBJECT_ANY);
	git_odb_free(w.odb);
	return err;
}

/* git's isspace(): its ctype table has no \v or \f */
static bool git_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * git's split_ident_line and %an <%ae>: the name up to '<' less trailing
 * space, the address between '<' and '>'; both empty when it has no '<'
 * or no '>'.
 */
static void author_of(struct pr_buf *out, const git_commit *c)
{
	const char *h = git_commit_raw_header(c), *line = NULL, *end, *lt, *gt;
	const char *name_end;

	while (h && *h && !line) {
		if (!strncmp(h, "author ", 7))
			line = h + 7;
		h = strchr(h, '\n');
		if (h)
			h++;
	}
	if (!line) {
		pr_buf_adds(out, " <>");
		return;
	}
	end = strchr(line, '\n');
	if (!end)
		end = line + strlen(line);
	lt = memchr(line, '<', (size_t)(end - line));
	gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
	if (!gt) {
		pr_buf_adds(out, " <>");
		return;
	}
	name_end = lt;
	while (name_end > line && git_space(name_end[-1]))
		name_end--;
	pr_buf_add(out, line, (size_t)(name_end - line));
	pr_buf_adds(out, " <");
	pr_buf_add(out, lt + 1, (size_t)(gt - lt - 1));
	pr_buf_addch(out, '>');
}

/* git's is_blank_line over line[0..len): only whitespace. */
static bool blank(const char *line, size_t len)
{
	while (len && git_space(line[len - 1]))
		len--;
	return !len;
}

static size_t line_len(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? (size_t)(nl - s) + 1 : strlen(s);
}

/*
 * %b: the message less its leading blank lines, its subject paragraph
 * (lines up to a blank one, which goes with it) and the blank lines after.
 */
static const char *body_of(const char *msg)
{
	size_t n;

	while ((n = line_len(msg)) && blank(msg, n))
		msg += n;
	for (;;) {
		n = line_len(msg);
		msg += n;
		if (!n || blank(msg - n, n))
			break;
	}
	while ((n = line_len(msg)) && blank(msg, n))
		msg += n;
	return msg;
}

int pr_maint_git_commit(struct pr_buf *author, struct pr_buf *body,
			const char *rev, void *payload)
{
	struct pr_maint_git *g = payload;
	git_object *obj = NULL;
	git_commit *c = NULL;
	int err, ret = 1;

	if (!g->tried) {
		g->tried = true;
		git_libgit2_init();
		if (pr_maint_git_present(g->tree) &&
		    git_repository_open_ext(&g->repo, g->tree,
					    GIT_REPOSITORY_OPEN_NO_SEARCH,
					    NULL) < 0)
			g->repo = NULL;
	}
	if (!g->repo)
		return 1;
	err = git_revparse_single(&obj, g->repo, rev);
	if (err == GIT_EAMBIGUOUS)
		err = committish_by_prefix(&obj, g->repo, rev);
	/* `git log` of a tree or a blob shows nothing */
	if (err < 0 ||
	    git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT) < 0)
		goto done;
	author_of(author, c);
	pr_buf_adds(body, body_of(git_commit_message_raw(c)));
	ret = 0;
done:
	git_commit_free(c);
	git_object_free(obj);
	return ret;
}
