#include "base/pr.h"

#include <git2.h>

#include "connectors.h"
#include "engine/bridge.h"
#include "engine/delivery.h"
#include "git/diff.h"
#include "gitfetch.h"
#include "gitpush.h"
#include "git/gitrepo.h"
#include "model/model.h"
#include "mail/outgoing.h"
#include "engine/store.h"

/*
 * The git connector: as a source, a branch compared against its base is a
 * series and a changed branch head is a new version; as a sink, a version
 * is pushed as a branch; new commits on a watched branch are "landed"
 * events.
 *
 * poll: the series is base..branch (key: the branch name); the cursor
 * holds the version's fingerprint and text fingerprint, so an unchanged
 * branch emits nothing and a rebase that changes no patch and no commit
 * message emits nothing either.
 *
 * watch: the cursor also holds the watched branch's tip.  Commits in
 * old-tip..tip (merges left out, commits brought in by a merge kept) are
 * one PR_EVENT_STATE "landed" event after the series event: its series is
 * (source, watched branch), its one version the commits oldest first,
 * each with commit_id and patch_id (git patch-id --stable).  The first
 * poll only takes the tip: what landed before patchrelay watched is not
 * news.  A rewritten branch (the old tip no longer below the new) is taken
 * anew, with a warning, and gives no event.
 *
 * A remote url (source): what branch, base and watch name on the remote
 * (a short name resolved as git rev-parse resolves it, or a full ref
 * name) is fetched, forced, into a bare cache repository under the state
 * directory before each poll (sync_cache),
 * and the poll reads the cache as it reads a local repository.  A fetch
 * that fails is the poll's error: the cursor stays, the engine backs off.
 *
 * The cursor is "branch=FP text=FP watch=SHA" (a part absent when not
 * configured or not seen yet); a bare fingerprint is what a binary without
 * watch wrote and reads as branch=FP.  A cursor without text (written
 * before it existed) emits the branch once more; the store finds the
 * version it holds.
 *
 * deliver_version (the sink): the version's patches are applied with
 * libgit2 one by one on its base, a commit each (author, author date and
 * message from the patch, the committer from the `committer` option or as
 * git picks it), and `branch` (a template, default
 * "patchrelay/{key}/v{n}") is set to the last one in the repository at
 * `url`, a local directory (bare or not).  The base is the version's own
 * (its base-commit, else the parent of its first commit when it came from
 * git) when the repository has that commit, else the `base` option.  A
 * version with no base in the repository, or a patch that does not apply,
 * is a rejection; the branch is then not touched.  The branch is forced
 * to the new tip: it belongs to patchrelay (a name per version).
 */

static const char *const cover_letter_choices[] = { "auto", "always", "never",
						    NULL };

static const struct pr_option git_options[] = {
	{ "url", PR_OPT_STRING, NULL,
	  "the repository: a path or a git URL (a source fetches a URL into "
	  "a cache beside the state file)",
	  offsetof(struct pr_git_ctx, url), true, NULL },
	{ "branch", PR_OPT_STRING, NULL,
	  "source: the branch that holds the series; sink: the branch to push",
	  offsetof(struct pr_git_ctx, branch), false, NULL },
	{ "base", PR_OPT_STRING, NULL,
	  "the upstream the branch is compared against",
	  offsetof(struct pr_git_ctx, base), false, NULL },
	{ "watch", PR_OPT_STRING, NULL,
	  "a branch whose new commits are \"landed\" events",
	  offsetof(struct pr_git_ctx, watch), false, NULL },
	{ "committer", PR_OPT_STRING, NULL,
	  "sink: the committer \"Name <addr>\" (default: as git picks it)",
	  offsetof(struct pr_git_ctx, committer), false, NULL },
	{ "cover-letter", PR_OPT_ENUM, "auto",
	  "auto: a cover letter for two or more patches; always; never",
	  offsetof(struct pr_git_ctx, cover_letter), false,
	  cover_letter_choices },
	{ "user", PR_OPT_STRING, NULL,
	  "the user offered to a remote that asks (HTTP; ssh "
	  "when the URL names none)",
	  offsetof(struct pr_git_ctx, user), false, NULL },
	{ "password", PR_OPT_SECRET, NULL,
	  "the HTTP password or token offered with user",
	  offsetof(struct pr_git_ctx, password), false, NULL },
	{ "ssh-key", PR_OPT_PATH, NULL,
	  "the ssh private key (default: the ssh agent's keys)",
	  offsetof(struct pr_git_ctx, ssh_key), false, NULL },
	{ "known-hosts", PR_OPT_PATH, NULL,
	  "the ssh host keys taken (default: ~/.ssh/known_hosts)",
	  offsetof(struct pr_git_ctx, known_hosts), false, NULL },
	{ "timeout", PR_OPT_DURATION, "60s",
	  "give up on a remote after this long without a byte moving",
	  offsetof(struct pr_git_ctx, timeout), false, NULL },
	{ "ca-file", PR_OPT_PATH, NULL,
	  "CA certificates an https remote may be signed by, besides the "
	  "system's",
	  offsetof(struct pr_git_ctx, ca_file), false, NULL },
	PR_OPTIONS_END,
};

/*
 * The branch description as `git format-patch --cover-from-description=
 * subject` takes it: the first paragraph, its lines joined with spaces, is
 * the subject; the rest is the body.  Without a description the subject
 * is the branch name.  Empty result when the repository cannot be opened
 * (a remote URL): the caller falls back to the branch name.
 */
static int read_description(struct pr_buf *out, const char *dir,
			    const char *branch)
{
	git_repository *repo = NULL;
	git_config *cfg = NULL;
	git_buf val = { NULL, 0, 0 };
	struct pr_buf name = PR_BUF_INIT;
	int err = 0;

	git_libgit2_init();
	if ((err = pr_buf_addf(&name, "branch.%s.description", branch)))
		goto done;
	if (git_repository_open(&repo, dir) < 0 ||
	    git_repository_config_snapshot(&cfg, repo) < 0 ||
	    git_config_get_string_buf(&val, cfg, name.ptr) < 0)
		goto done;
	err = pr_buf_add(out, val.ptr, val.size);
done:
	git_buf_dispose(&val);
	git_config_free(cfg);
	git_repository_free(repo);
	git_libgit2_shutdown();
	pr_buf_release(&name);
	return err;
}

/* Give v its cover letter as the cover-letter option says. */
static int add_cover(struct pr_version *v, const struct pr_git_ctx *ctx,
		     const char *dir)
{
	struct pr_buf desc = PR_BUF_INIT, subj = PR_BUF_INIT;
	struct pr_buf stat = PR_BUF_INIT, parent = PR_BUF_INIT;
	const char *mode = ctx->cover_letter ? ctx->cover_letter : "auto";
	const char *p;
	int err;

	if (!strcmp(mode, "never") || (!strcmp(mode, "auto") && v->nr < 2))
		return 0;
	if ((err = read_description(&desc, dir, ctx->branch)))
		goto done;
	/* the first paragraph, lines trimmed and joined with spaces */
	for (p = desc.ptr; *p && !err;) {
		size_t n = strcspn(p, "\n"), e = n;

		while (e && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
		if (!e && subj.len)
			break;
		if (e && subj.len)
			err = pr_buf_addch(&subj, ' ');
		if (!err)
			err = pr_buf_add(&subj, p, e);
		p += n + (p[n] ? 1 : 0);
	}
	if (err)
		goto done;
	v->cover = pr_calloc(1, sizeof(*v->cover));
	v->cover->subject = pr_strdup(subj.len ? subj.ptr : ctx->branch);
	v->cover->body = pr_strdup(subj.len ? p : "");
	/* the stat from the first patch's parent, as format-patch shows it */
	if (v->patches[0]->commit_id[0] &&
	    !(err = pr_buf_addf(&parent, "%s^", v->patches[0]->commit_id)) &&
	    pr_gitrepo_stat(&stat, dir, parent.ptr,
			    v->patches[v->nr - 1]->commit_id) == 0)
		v->cover->stat = pr_buf_detach(&stat, NULL);
	else
		pr_error_clear();
done:
	pr_buf_release(&desc);
	pr_buf_release(&subj);
	pr_buf_release(&stat);
	pr_buf_release(&parent);
	return err;
}

/* The two parts of a cursor, each "" when absent. */
struct git_cursor {
	char fp[41];
	char text[41]; /* the text fingerprint; "" in an older cursor */
	char watch[41];
};

/* A char loop, not strspn + memcpy: GCC 12 with UBSan at -O2 misreads the
 * cursor's bounds and fails the build with a false -Warray-bounds. */
static void copy_hex(char *out, const char *p)
{
	size_t n;

	for (n = 0; n < 40 && p[n] && strchr("0123456789abcdef", p[n]); n++)
		out[n] = p[n];
	if (n < 40 || (p[40] && strchr("0123456789abcdef", p[40])))
		n = 0;
	out[n] = '\0';
}

static void cursor_parse(struct git_cursor *c, const char *text)
{
	const char *p;

	c->fp[0] = c->text[0] = c->watch[0] = '\0';
	if (!text)
		return;
	if (!strchr(text, '=')) {
		/* a fingerprint alone: written before watch existed */
		copy_hex(c->fp, text);
		return;
	}
	for (p = text; *p; p += strcspn(p, " "), p += strspn(p, " ")) {
		if (!strncmp(p, "branch=", 7))
			copy_hex(c->fp, p + 7);
		else if (!strncmp(p, "text=", 5))
			copy_hex(c->text, p + 5);
		else if (!strncmp(p, "watch=", 6))
			copy_hex(c->watch, p + 6);
	}
}

static char *cursor_text(const struct git_cursor *c)
{
	struct pr_buf b = PR_BUF_INIT;

	if (c->fp[0])
		pr_buf_addf(&b, "branch=%s", c->fp);
	if (c->text[0])
		pr_buf_addf(&b, "%stext=%s", b.len ? " " : "", c->text);
	if (c->watch[0])
		pr_buf_addf(&b, "%swatch=%s", b.len ? " " : "", c->watch);
	return pr_buf_detach(&b, NULL);
}

/*
 * The branch series: emit it when its fingerprint is not cur->fp or its
 * text fingerprint not cur->text (a reworded commit message).
 */
static int poll_branch(struct pr_instance *inst, const char *dir,
		       struct git_cursor *cur, pr_event_fn emit, void *payload)
{
	const struct pr_git_ctx *ctx = inst->ctx;
	struct pr_event ev = { 0 };
	struct pr_buf range = PR_BUF_INIT;
	struct pr_version *v = NULL;
	char fp[41], text[41];
	int err;

	if ((err = pr_buf_addf(&range, "%s..%s", ctx->base, ctx->branch)) ||
	    (err = pr_gitrepo_load(&v, dir, range.ptr)))
		goto done;
	if (v->nr == 0 || (err = pr_store_fingerprint(fp, v)) ||
	    (err = pr_store_text_fingerprint(text, v)) ||
	    (err = add_cover(v, ctx, dir)))
		goto done;
	if (!strcmp(cur->fp, fp) && !strcmp(cur->text, text))
		goto done;
	memcpy(cur->fp, fp, sizeof(fp));
	memcpy(cur->text, text, sizeof(text));
	ev.kind = PR_EVENT_VERSION;
	ev.series = pr_series_new(inst->name, ctx->branch);
	pr_series_add_version(ev.series, v);
	v = NULL;
	ev.cursor = cursor_text(cur);
	err = emit(&ev, payload);
done:
	pr_event_release(&ev);
	pr_version_free(v);
	pr_buf_release(&range);
	return err;
}

/* The watched branch: a "landed" event for the commits after cur->watch. */
static int poll_watch(struct pr_instance *inst, const char *dir,
		      struct git_cursor *cur, pr_event_fn emit, void *payload)
{
	const struct pr_git_ctx *ctx = inst->ctx;
	struct pr_event ev = { 0 };
	struct pr_buf range = PR_BUF_INIT;
	struct pr_version *v = NULL;
	char tip[41];
	size_t i;
	int err;

	if ((err = pr_gitrepo_resolve(tip, dir, ctx->watch)))
		goto done;
	if (!strcmp(tip, cur->watch))
		goto done;
	if (cur->watch[0] && pr_gitrepo_descends(dir, tip, cur->watch) != 1) {
		pr_log_warn(inst->prefix,
			    "watch '%s': %s is not below %s (rewritten): "
			    "taken from here",
			    ctx->watch, cur->watch, tip);
		pr_error_clear();
		cur->watch[0] = '\0';
	}
	if (cur->watch[0]) {
		if ((err = pr_buf_addf(&range, "%s..%s", cur->watch, tip)) ||
		    (err = pr_gitrepo_load(&v, dir, range.ptr)))
			goto done;
		for (i = 0; i < v->nr; i++) {
			struct pr_patch *p = v->patches[i];

			if (p->diff && *p->diff &&
			    (err = pr_patch_id(p->patch_id, p->diff,
					       strlen(p->diff), true)) < 0 &&
			    err != PR_ENOENT)
				goto done;
			if (err == PR_ENOENT)
				p->patch_id[0] = '\0';
			err = 0;
		}
	}
	memcpy(cur->watch, tip, sizeof(tip));
	ev.kind = PR_EVENT_STATE;
	ev.state = pr_strdup("landed");
	ev.cursor = cursor_text(cur);
	/* no commits (the first look): a cursor-only event */
	if (v && v->nr) {
		ev.series = pr_series_new(inst->name, ctx->watch);
		pr_series_add_version(ev.series, v);
		v = NULL;
	}
	err = emit(&ev, payload);
done:
	pr_event_release(&ev);
	pr_version_free(v);
	pr_buf_release(&range);
	return err;
}

/*
 * A remote url: fetch what branch, base and watch stand for on the remote
 * into the source's cache repository, <state dir>/git-cache/<source
 * name>.git (bare, kept across passes), and name it in *dir.  A short
 * name is resolved against the remote's refs as git rev-parse resolves
 * it and fetched under the ref name found (pr_gitfetch_names), so that
 * the poll's rev-parse in the cache gives what it gives in a local
 * repository.  Force-pushed refs are followed (the specs are forced); the
 * objects of old tips stay, so a rewritten watched branch is still seen
 * as rewritten.
 */
static int sync_cache(struct pr_buf *dir, struct pr_instance *inst)
{
	const struct pr_git_ctx *ctx = inst->ctx;
	const char *names[3];
	struct pr_gitfetch_auth auth = { ctx->user,    ctx->password,
					 ctx->ssh_key, ctx->known_hosts,
					 ctx->timeout, ctx->ca_file,
					 true /* insteadof */ };
	git_repository *repo = NULL;
	size_t nr = 0;
	int err = 0;

	if (!inst->state_dir)
		return pr_error(PR_EINTERNAL,
				"no state directory for the cache of '%s'",
				inst->name);
	if ((err = pr_buf_addf(dir, "%s/git-cache/", inst->state_dir)) ||
	    (err = pr_gitfetch_escape(dir, inst->name)) ||
	    (err = pr_buf_adds(dir, ".git")))
		return err;
	if (ctx->branch)
		names[nr++] = ctx->branch;
	if (ctx->base)
		names[nr++] = ctx->base;
	if (ctx->watch)
		names[nr++] = ctx->watch;
	git_libgit2_init();
	if (!(err = pr_gitfetch_open_cache(&repo, dir->ptr)))
		err = pr_gitfetch_names(repo, ctx->url, names, nr, &auth,
					"refs");
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

static int git_poll(struct pr_instance *inst, const char *cursor,
		    pr_event_fn emit, void *payload)
{
	const struct pr_git_ctx *ctx = inst->ctx;
	struct pr_buf cache = PR_BUF_INIT;
	const char *dir = ctx->url;
	struct git_cursor cur;
	int err = 0;

	if (ctx->watch ? !ctx->branch != !ctx->base
		       : !ctx->branch || !ctx->base) {
		err = pr_error(PR_ECONFIG,
			       "source '%s': a git source needs branch and "
			       "base (or only watch)",
			       inst->name);
		goto done;
	}
	if (pr_gitpush_is_remote(ctx->url)) {
		if ((err = sync_cache(&cache, inst)))
			goto done;
		dir = cache.ptr;
	}
	cursor_parse(&cur, cursor);
	if (ctx->branch && (err = poll_branch(inst, dir, &cur, emit, payload)))
		goto done;
	if (ctx->watch)
		err = poll_watch(inst, dir, &cur, emit, payload);
done:
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	pr_buf_release(&cache);
	return err;
}

/* The sink's default branch template. */
#define GIT_SINK_BRANCH "patchrelay/{key}/v{n}"

/* Append s with every byte outside [A-Za-z0-9._-] as '-'. */
static int add_ref_part(struct pr_buf *out, const char *s)
{
	int err = 0;

	for (; *s && !err; s++) {
		char ch = *s;
		bool ok = (ch >= 'a' && ch <= 'z') ||
			  (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
			  ch == '-';

		err = pr_buf_addch(out, ok ? ch : '-');
	}
	return err;
}

/*
 * The branch (without refs/heads/) of version n of series s: the template
 * with {key} (the series key), {origin} (its source) and {n} replaced,
 * the first two made ref-safe.  An unknown placeholder or a name git
 * would not take is PR_ECONFIG.
 */
static int branch_name(struct pr_buf *out, const char *sink, const char *tmpl,
		       const char *origin, const char *key, int n)
{
	struct pr_buf ref = PR_BUF_INIT;
	const char *p;
	int valid = 0, err = 0;

	for (p = tmpl; *p && !err;) {
		size_t len = strcspn(p, "{");

		if ((err = pr_buf_add(out, p, len)))
			break;
		p += len;
		if (!*p)
			break;
		if (!strncmp(p, "{key}", 5)) {
			err = add_ref_part(out, key);
			p += 5;
		} else if (!strncmp(p, "{origin}", 8)) {
			err = add_ref_part(out, origin);
			p += 8;
		} else if (!strncmp(p, "{n}", 3)) {
			err = pr_buf_addf(out, "%d", n);
			p += 3;
		} else {
			err = pr_error(PR_ECONFIG,
				       "sink '%s': option 'branch': unknown "
				       "placeholder in '%s' (known: {key}, "
				       "{origin}, {n})",
				       sink, tmpl);
		}
	}
	if (err)
		goto done;
	git_libgit2_init();
	if ((err = pr_buf_addf(&ref, "refs/heads/%s", out->ptr)) == 0 &&
	    (git_reference_name_is_valid(&valid, ref.ptr) < 0 || !valid))
		err = pr_error(PR_ECONFIG,
			       "sink '%s': option 'branch': '%s' is not a "
			       "valid branch name",
			       sink, out->ptr);
	git_libgit2_shutdown();
done:
	pr_buf_release(&ref);
	return err;
}

static int git_open(struct pr_instance *inst)
{
	const struct pr_git_ctx *ctx = inst->ctx;
	struct pr_buf name = PR_BUF_INIT;
	struct pr_ident who = { NULL, NULL };
	int err = 0;

	/* a secret is a secret option, never part of a logged URL */
	if ((err = pr_gitfetch_safe_url(&name, ctx->url)))
		goto done;
	if (strcmp(name.ptr, ctx->url)) {
		err = pr_error(PR_ECONFIG,
			       "%s '%s': option 'url': a password in the URL "
			       "is refused (use 'user' and 'password')",
			       inst->kind, inst->name);
		goto done;
	}
	pr_buf_reset(&name);
	if (strcmp(inst->kind, "sink"))
		goto done;
	/* a template that cannot make a name is refused before any pass */
	if ((err = branch_name(&name, inst->name,
			       ctx->branch ? ctx->branch : GIT_SINK_BRANCH,
			       "origin", "key", 1)))
		goto done;
	if (ctx->committer &&
	    pr_outgoing_parse_address(&who, ctx->committer) < 0)
		err = pr_error(PR_ECONFIG,
			       "sink '%s': option 'committer': '%s' is not "
			       "\"Name <addr>\"",
			       inst->name, ctx->committer);
done:
	pr_ident_release(&who);
	pr_buf_release(&name);
	return err;
}

static int git_deliver_version(struct pr_instance *inst,
			       const struct pr_version_delivery *d,
			       struct pr_deliver_result *out)
{
	const struct pr_git_ctx *ctx = inst->ctx;
	const struct pr_version *v = d->version;
	struct pr_gitfetch_auth auth = { ctx->user,    ctx->password,
					 ctx->ssh_key, ctx->known_hosts,
					 ctx->timeout, ctx->ca_file,
					 true /* insteadof */ };
	struct pr_gitpush p = { inst->name,
				ctx->url,
				&auth,
				ctx->committer,
				ctx->base,
				NULL,
				d->series->origin_key,
				d->time,
				NULL };
	struct pr_gitpush_result res = { 0 };
	struct pr_buf branch = PR_BUF_INIT;
	char **trailers = NULL;
	int err;

	if ((err = branch_name(&branch, inst->name,
			       ctx->branch ? ctx->branch : GIT_SINK_BRANCH,
			       d->series->origin_connector,
			       d->series->origin_key, v->number)))
		goto done;
	p.branch = branch.ptr;
	/* the review trailers gathered so far follow the series */
	if (d->store &&
	    (err = pr_bridge_trailers(&trailers, d->store, d->series_id, v)))
		goto done;
	p.trailers = (const char *const *)trailers;
	err = pr_gitpush_version(&res, out, &p, v);
	if (!err && out->status == PR_DELIVER_OK)
		pr_log_info(inst->prefix, "pushed v%d of '%s' as %s (%s)",
			    v->number, d->series->origin_key, branch.ptr,
			    res.tip);
done:
	pr_gitpush_result_release(&res);
	pr_bridge_trailers_free(trailers, v->nr);
	pr_buf_release(&branch);
	return err;
}

const struct pr_connector_type pr_connector_git = {
	.abi = PR_ABI_VERSION,
	.name = "git",
	.summary = "a git repository: branches as series, pushes as a sink",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK,
	.options = git_options,
	.ctx_size = sizeof(struct pr_git_ctx),
	.open = git_open,
	.poll = git_poll,
	.deliver_version = git_deliver_version,
};
