#include "base/pr.h"

#include <git2.h>
#include <stdlib.h>

#include "gerrit_src.h"
#include "gitfetch.h"
#include "git/gitrepo.h"
#include "model/model.h"

/*
 * The gerrit source's series (gerrit_src.h): which open changes make one
 * series, in what order, and the version built of their current patch
 * sets, fetched into the cache repository.
 */

/* The change of `all` one of whose revisions is sha (same project). */
static struct pr_gerrit_change *owner_of(const struct pr_gerrit_poll *p,
					 const struct pr_gerrit_change *c,
					 const char *sha, bool *current)
{
	size_t i;

	if (!sha[0])
		return NULL;
	for (i = 0; i < p->all->nr; i++) {
		struct pr_gerrit_change *o = &p->all->items[i];

		if (o == c || strcmp(o->branch ? o->branch : "",
				     c->branch ? c->branch : ""))
			continue;
		if (pr_gerrit_change_rev(o, sha)) {
			*current = !strcmp(o->current, sha);
			return o;
		}
	}
	return NULL;
}

/* The change c's current revision sits on, among the open ones. */
static struct pr_gerrit_change *parent_of(const struct pr_gerrit_poll *p,
					  const struct pr_gerrit_change *c,
					  bool *current)
{
	const struct pr_gerrit_revision *r = pr_gerrit_change_rev(c, NULL);

	*current = false;
	return r ? owner_of(p, c, r->parent, current) : NULL;
}

/* Union-find over the changes, by index into p->all. */
static size_t find_root(size_t *up, size_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/* What group key change c belongs to, by the series option. */
static int group_key(struct pr_buf *out, const struct pr_gerrit_poll *p,
		     const struct pr_gerrit_change *c, size_t root)
{
	const char *mode = p->g->o->series ? p->g->o->series : "topic";
	const char *branch = c->branch ? c->branch : "";

	if (!strcmp(mode, "topic") && c->topic)
		return pr_buf_addf(out, "%s~%s~topic~%s", c->project, branch,
				   c->topic);
	if (!strcmp(mode, "chain"))
		return pr_buf_addf(out, "#chain%zu", root);
	return pr_buf_addf(out, "%s~%lld", c->project, (long long)c->number);
}

static struct pr_gerrit_group *group_for(struct pr_gerrit_poll *p,
					 const char *key)
{
	struct pr_gerrit_group *gr;
	size_t i;

	for (i = 0; i < p->nr_groups; i++)
		if (!strcmp(p->groups[i].key, key))
			return &p->groups[i];
	PR_ALLOC_GROW(p->groups, p->nr_groups + 1, p->alloc_groups);
	gr = &p->groups[p->nr_groups++];
	memset(gr, 0, sizeof(*gr));
	gr->key = pr_strdup(key);
	return gr;
}

static bool in_group(const struct pr_gerrit_group *gr,
		     const struct pr_gerrit_change *c)
{
	size_t i;

	for (i = 0; i < gr->nr; i++)
		if (gr->c[i] == c)
			return true;
	return false;
}

/*
 * Put the group in series order: a change after the one it sits on,
 * lower numbers first among those with the same parent.
 */
static void order_group(struct pr_gerrit_poll *p, struct pr_gerrit_group *gr)
{
	struct pr_gerrit_change **out = pr_calloc(gr->nr + 1, sizeof(*out));
	bool *done = pr_calloc(gr->nr + 1, sizeof(*done));
	size_t n = 0, i;

	while (n < gr->nr) {
		size_t best = gr->nr;

		for (i = 0; i < gr->nr; i++) {
			struct pr_gerrit_change *par;
			bool cur;

			if (done[i])
				continue;
			par = parent_of(p, gr->c[i], &cur);
			/* ready when its parent is out of the group or placed */
			if (par && in_group(gr, par)) {
				size_t j;
				bool placed = false;

				for (j = 0; j < n; j++)
					placed |= out[j] == par;
				if (!placed)
					continue;
			}
			if (best == gr->nr ||
			    gr->c[i]->number < gr->c[best]->number)
				best = i;
		}
		if (best == gr->nr) {
			/* a cycle cannot be; take the lowest left anyway */
			for (i = 0; i < gr->nr; i++)
				if (!done[i] &&
				    (best == gr->nr ||
				     gr->c[i]->number < gr->c[best]->number))
					best = i;
		}
		done[best] = true;
		out[n++] = gr->c[best];
	}
	memcpy(gr->c, out, gr->nr * sizeof(*out));
	free(out);
	free(done);
}

/*
 * Split p->all into series: by topic, by relation chain (changes linked
 * by their current revisions' parents) or one change each.
 */
int pr_gerrit_group_all(struct pr_gerrit_poll *p)
{
	size_t n = p->all->nr, i;
	size_t *up = pr_calloc(n + 1, sizeof(*up));
	struct pr_buf key = PR_BUF_INIT;
	int err = 0;

	for (i = 0; i < n; i++)
		up[i] = i;
	for (i = 0; i < n; i++) {
		bool cur;
		struct pr_gerrit_change *par =
			parent_of(p, &p->all->items[i], &cur);

		if (par)
			up[find_root(up, i)] =
				find_root(up, (size_t)(par - p->all->items));
	}
	for (i = 0; i < n && !err; i++) {
		struct pr_gerrit_change *c = &p->all->items[i];
		struct pr_gerrit_group *gr;

		pr_buf_reset(&key);
		if ((err = group_key(&key, p, c, find_root(up, i))))
			break;
		gr = group_for(p, key.ptr);
		PR_ALLOC_GROW(gr->c, gr->nr + 1, gr->alloc);
		gr->c[gr->nr++] = c;
	}
	for (i = 0; i < p->nr_groups; i++)
		order_group(p, &p->groups[i]);
	free(up);
	pr_buf_release(&key);
	return err;
}

/*
 * A chain keeps the key it had: the first of its changes that was part
 * of a series before names it, else its lowest change does.
 */
int pr_gerrit_group_key(struct pr_gerrit_poll *p, struct pr_gerrit_group *gr)
{
	struct pr_buf key = PR_BUF_INIT;
	size_t i;
	int err = 0;

	if (strncmp(gr->key, "#chain", 6))
		return 0;
	for (i = 0; i < gr->nr && !key.len && !err; i++) {
		struct pr_gerrit_chg *s =
			pr_gerrit_cursor_chg(&p->c, gr->c[i]->number, false);

		if (s && s->k && strstr(s->k, "~chain~"))
			err = pr_buf_adds(&key, s->k);
	}
	if (!err && !key.len)
		err = pr_buf_addf(&key, "%s~%s~chain~%lld", gr->c[0]->project,
				  gr->c[0]->branch ? gr->c[0]->branch : "",
				  (long long)gr->c[0]->number);
	if (!err) {
		free(gr->key);
		gr->key = pr_buf_detach(&key, NULL);
	}
	pr_buf_release(&key);
	return err;
}

/* ---- building the series ---- */

int pr_gerrit_change_url(struct pr_buf *out, const struct pr_gerrit *g,
			 const struct pr_gerrit_change *c)
{
	const char *base = g->o->rest_url;
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	return pr_buf_addf(out, "%.*s/c/%s/+/%lld", (int)n, base, c->project,
			   (long long)c->number);
}

/* The fetch spec of c's current patch set, unless the cache has it. */
static int want_rev(struct pr_strlist *specs, git_repository *repo,
		    const struct pr_gerrit_change *c)
{
	const struct pr_gerrit_revision *r = pr_gerrit_change_rev(c, NULL);
	struct pr_buf spec = PR_BUF_INIT;
	git_commit *have = NULL;
	git_oid oid;
	int err;

	if (!r)
		return 0;
	if (git_oid_fromstr(&oid, r->sha) == 0 &&
	    git_commit_lookup(&have, repo, &oid) == 0) {
		git_commit_free(have);
		return 0;
	}
	git_error_clear();
	if (r->ref)
		err = pr_buf_addf(&spec, "+%s:", r->ref);
	else
		err = pr_buf_addf(&spec, "+refs/changes/%02lld/%lld/%d:",
				  (long long)(c->number % 100),
				  (long long)c->number, r->number);
	if (!err)
		err = pr_buf_addf(&spec, "refs/patchrelay/changes/%lld/%d",
				  (long long)c->number, r->number);
	if (!err)
		pr_strlist_add(specs, spec.ptr);
	pr_buf_release(&spec);
	return err;
}

/* Fetch the current patch sets of groups the cache does not have yet. */
int pr_gerrit_group_fetch(struct pr_gerrit_poll *p,
			  const struct pr_gerrit_group *const *grs, size_t nr,
			  git_repository *repo, const char *project)
{
	const struct pr_gerrit_ctx *o = p->g->o;
	struct pr_gitfetch_auth auth = { o->user,    o->password,
					 o->ssh_key, o->known_hosts,
					 o->timeout, o->ca_file };
	struct pr_strlist specs = { 0 };
	struct pr_buf url = PR_BUF_INIT, what = PR_BUF_INIT;
	size_t i, k;
	int err = 0;

	for (k = 0; k < nr; k++)
		for (i = 0; i < grs[k]->nr && !err; i++)
			err = want_rev(&specs, repo, grs[k]->c[i]);
	if (err || !specs.nr)
		goto done;
	if ((err = pr_gerrit_git_url(&url, p->g, project)) ||
	    (err = pr_buf_addf(&what, "patch sets of '%s'",
			       nr == 1 ? grs[0]->key : project)))
		goto done;
	err = pr_gitfetch(repo, url.ptr, (const char *const *)specs.items,
			  specs.nr, &auth, what.ptr);
done:
	pr_strlist_release(&specs);
	pr_buf_release(&url);
	pr_buf_release(&what);
	return err;
}

static int add_cover(struct pr_version *v, const struct pr_gerrit_poll *p,
		     const struct pr_gerrit_group *gr, const char *dir,
		     bool linear)
{
	const struct pr_gerrit_change *first = gr->c[0];
	struct pr_buf body = PR_BUF_INIT, stat = PR_BUF_INIT;
	size_t i;
	int err = 0;

	if (v->nr < 2)
		return 0;
	for (i = 0; i < gr->nr && !err; i++) {
		err = pr_buf_adds(&body, "  ");
		if (!err)
			err = pr_gerrit_change_url(&body, p->g, gr->c[i]);
		if (!err)
			err = pr_buf_addf(&body, " %s\n",
					  gr->c[i]->subject ? gr->c[i]->subject
							    : "");
	}
	if (err)
		goto done;
	v->cover = pr_calloc(1, sizeof(*v->cover));
	v->cover->subject = pr_strdup(first->topic     ? first->topic
				      : first->subject ? first->subject
						       : gr->key);
	v->cover->body = pr_buf_detach(&body, NULL);
	if (linear && v->base_commit[0] &&
	    pr_gitrepo_stat(&stat, dir, v->base_commit,
			    gr->c[gr->nr - 1]->current) == 0)
		v->cover->stat = pr_buf_detach(&stat, NULL);
	else
		pr_error_clear();
done:
	pr_buf_release(&body);
	pr_buf_release(&stat);
	return err;
}

/*
 * Whether the patches of v apply one after the other on base (the test
 * for changes that are not one chain: a topic of separate changes, or a
 * chain one of whose changes sits on an outdated patch set of another).
 * 0 and nothing in why when they do.
 */
static int check_applies(struct pr_buf *why, git_repository *repo,
			 const struct pr_version *v,
			 const struct pr_gerrit_group *gr)
{
	git_commit *base = NULL;
	git_tree *tree = NULL;
	git_oid oid;
	size_t i;
	int err = 0;

	if (git_oid_fromstr(&oid, v->base_commit) < 0 ||
	    git_commit_lookup(&base, repo, &oid) < 0 ||
	    git_commit_tree(&tree, base) < 0) {
		err = pr_error(PR_EIO, "base %s: %s", v->base_commit,
			       git_error_last() ? git_error_last()->message
						: "not in the cache");
		goto done;
	}
	for (i = 0; i < v->nr; i++) {
		const char *d = v->patches[i]->diff;
		git_diff *diff = NULL;
		git_index *index = NULL;
		bool ok;

		if (!d || !*d)
			continue;
		ok = git_diff_from_buffer(&diff, d, strlen(d)) == 0 &&
		     git_apply_to_tree(&index, repo, tree, diff, NULL) == 0 &&
		     git_index_write_tree_to(&oid, index, repo) == 0;
		git_diff_free(diff);
		git_index_free(index);
		git_tree_free(tree);
		tree = NULL;
		git_error_clear();
		if (!ok) {
			err = pr_buf_addf(why,
					  "change %lld does not apply on top "
					  "of the changes before it: rebase "
					  "them onto each other",
					  (long long)gr->c[i]->number);
			goto done;
		}
		if (git_tree_lookup(&tree, repo, &oid) < 0) {
			err = pr_error(PR_EIO, "tree %s: cannot read",
				       git_oid_tostr_s(&oid));
			goto done;
		}
	}
done:
	git_tree_free(tree);
	git_commit_free(base);
	return err;
}

/*
 * The series of a group as fetched; *out NULL and why set when it cannot
 * be one (a merge, too many changes, patches that do not apply in turn).
 */
int pr_gerrit_group_build(struct pr_series **out, struct pr_buf *why,
			  struct pr_gerrit_poll *p,
			  const struct pr_gerrit_group *gr)
{
	const struct pr_gerrit_ctx *o = p->g->o;
	const char *project = gr->c[0]->project;
	struct pr_buf dir = PR_BUF_INIT, range = PR_BUF_INIT;
	struct pr_version *v = NULL, *one = NULL;
	struct pr_series *s = NULL;
	git_repository *repo = NULL;
	bool linear = true, inited = false;
	size_t i;
	int err;

	*out = NULL;
	if (o->max_commits && gr->nr > (size_t)o->max_commits) {
		err = pr_buf_addf(why,
				  "it has %zu changes, more than the %lld this "
				  "project takes in one series (max-commits)",
				  gr->nr, (long long)o->max_commits);
		goto done;
	}
	for (i = 0; i < gr->nr; i++) {
		const struct pr_gerrit_revision *r =
			pr_gerrit_change_rev(gr->c[i], NULL);

		if (!r || r->nr_parents != 1) {
			err = pr_buf_addf(why,
					  "change %lld is %s: a patch series "
					  "is a line of commits",
					  (long long)gr->c[i]->number,
					  !r ? "without a current revision"
					     : "a merge or root commit");
			goto done;
		}
		if (i && strcmp(r->parent, gr->c[i - 1]->current))
			linear = false;
	}
	git_libgit2_init();
	inited = true;
	if ((err = pr_gerrit_cache_path(&dir, p->g, project)) ||
	    (err = pr_gitfetch_open_cache(&repo, dir.ptr)) ||
	    (err = pr_gerrit_group_fetch(p, &gr, 1, repo, project)))
		goto done;
	v = pr_version_new(1);
	for (i = 0; i < gr->nr; i++) {
		pr_buf_reset(&range);
		if ((err = pr_buf_addf(&range, "%s^..%s", gr->c[i]->current,
				       gr->c[i]->current)) ||
		    (err = pr_gitrepo_load(&one, dir.ptr, range.ptr)))
			goto done;
		if (one->nr != 1) {
			err = pr_error(PR_EINTERNAL,
				       "change %lld: %zu commits in %s",
				       (long long)gr->c[i]->number, one->nr,
				       range.ptr);
			goto done;
		}
		pr_version_add_patch(v, one->patches[0]);
		one->nr = 0;
		pr_version_free(one);
		one = NULL;
	}
	v->target_branch = pr_strdup(gr->c[0]->branch ? gr->c[0]->branch : "");
	memcpy(v->base_commit, pr_gerrit_change_rev(gr->c[0], NULL)->parent,
	       41);
	if (!linear && ((err = check_applies(why, repo, v, gr)) || why->len))
		goto done;
	/* no series URL: the cover lists every change's, and a lone
	 * patch's Change-Id names it */
	if ((err = add_cover(v, p, gr, dir.ptr, linear)))
		goto done;
	s = pr_series_new(p->g->inst->name, gr->key);
	if (gr->c[0]->owner.email)
		pr_ident_set(&s->submitter,
			     gr->c[0]->owner.name ? gr->c[0]->owner.name : "",
			     gr->c[0]->owner.email);
	else
		pr_ident_set(&s->submitter, v->patches[v->nr - 1]->author.name,
			     v->patches[v->nr - 1]->author.email);
	pr_series_add_version(s, v);
	v = NULL;
	*out = s;
done:
	git_repository_free(repo);
	if (inited)
		git_libgit2_shutdown();
	pr_version_free(one);
	pr_version_free(v);
	pr_buf_release(&dir);
	pr_buf_release(&range);
	return err;
}
