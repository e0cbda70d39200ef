#include "base/pr.h"

#include <git2.h>

#include "base/sha1.h"
#include "engine/bridge.h"
#include "engine/delivery.h"
#include "engine/engine.h"
#include "engine/idmap.h"
#include "engine/store.h"
#include "forge.h"
#include "git/rangediff.h"
#include "gitpush.h"
#include "mail/outgoing.h"

/*
 * A forge as a sink (forge.h): a version pushed as a branch, then opened
 * (or updated) as a pull request.  The requests are the forge's ops; the
 * commits and the push are gitpush.c's, shared with the git sink.
 */

/* The most bytes of the key a branch name takes. */
#define SINK_KEY_MAX 48

static bool ref_byte(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
}

int pr_forge_sink_branch(struct pr_buf *out, const char *prefix,
			 const char *origin, const char *key)
{
	struct pr_sha1 h;
	char hex[PR_SHA1_HEXSZ + 1];
	size_t i, n = 0;
	char prev = '-';
	int err;

	pr_sha1_init(&h);
	pr_sha1_update(&h, origin, strlen(origin) + 1);
	pr_sha1_update(&h, key, strlen(key));
	pr_sha1_final_hex(hex, &h);
	if ((err = pr_buf_adds(out, prefix)))
		return err;
	for (i = 0; key[i] && n < SINK_KEY_MAX && !err; i++) {
		char ch = ref_byte(key[i]) ? key[i] : '-';

		/* no "..", no '.' after a '/' or at the start, no "--" */
		if ((ch == '.' && (prev == '.' || prev == '-')) ||
		    (ch == '-' && prev == '-'))
			continue;
		err = pr_buf_addch(out, ch);
		prev = ch;
		n++;
	}
	if (!err && prev != '-')
		err = pr_buf_addch(out, '-');
	return err ? err : pr_buf_addf(out, "%.8s", hex);
}

int pr_forge_sink_open(struct pr_forge *f)
{
	const struct pr_forge_sink_opts *so = f->sink;
	const char *name = f->inst->name;
	struct pr_buf b = PR_BUF_INIT, ref = PR_BUF_INIT;
	struct pr_ident who = { NULL, NULL };
	int valid = 0, err = 0;

	if (f->opts->repo.nr != 1) {
		err = pr_error(PR_ECONFIG,
			       "sink '%s': option 'repo': a sink opens pull "
			       "requests in one repository, not %zu",
			       name, f->opts->repo.nr);
		goto done;
	}
	if (!so->base || !*so->base) {
		err = pr_error(PR_ECONFIG,
			       "sink '%s': option 'base': the target branch "
			       "is required",
			       name);
		goto done;
	}
	/* a secret is the token, never part of a logged URL */
	if (so->push_url && (err = pr_gitfetch_safe_url(&b, so->push_url)))
		goto done;
	if (so->push_url && strcmp(b.ptr, so->push_url)) {
		err = pr_error(PR_ECONFIG,
			       "sink '%s': option 'push-url': a password in "
			       "the URL is refused (the token is offered)",
			       name);
		goto done;
	}
	pr_buf_reset(&b);
	git_libgit2_init();
	if (!(err = pr_forge_sink_branch(
		      &b, so->branch_prefix ? so->branch_prefix : "patchrelay/",
		      "origin", "key")) &&
	    !(err = pr_buf_addf(&ref, "refs/heads/%s", b.ptr)) &&
	    (git_reference_name_is_valid(&valid, ref.ptr) < 0 || !valid))
		err = pr_error(PR_ECONFIG,
			       "sink '%s': option 'branch-prefix': '%s' makes "
			       "no valid branch name",
			       name, so->branch_prefix);
	git_libgit2_shutdown();
	if (!err && so->committer &&
	    pr_outgoing_parse_address(&who, so->committer) < 0)
		err = pr_error(PR_ECONFIG,
			       "sink '%s': option 'committer': '%s' is not "
			       "\"Name <addr>\"",
			       name, so->committer);
done:
	pr_ident_release(&who);
	pr_buf_release(&b);
	pr_buf_release(&ref);
	return err;
}

/* The Message-ID the version's archive link names: its cover's, or the
 * first patch's. */
static const char *root_message_id(const struct pr_version *v)
{
	if (v->cover && v->cover->message_id)
		return v->cover->message_id;
	return v->nr ? v->patches[0]->message_id : NULL;
}

/*
 * The pull request's title and description: the cover letter's subject
 * and body (a lone patch's subject and message), then the archive link
 * (the series' own, else the archive-url template on the root mail).
 */
static int describe(struct pr_buf *title, struct pr_buf *body,
		    const struct pr_forge *f, const struct pr_series *s,
		    const struct pr_version *v)
{
	const char *mid = root_message_id(v), *sig;
	const char *text = v->cover ? v->cover->body
			   : v->nr  ? v->patches[0]->body
				    : NULL;
	int err;

	if ((err = pr_buf_adds(title, v->cover ? v->cover->subject
				      : v->nr  ? v->patches[0]->subject
					       : s->origin_key)))
		return err;
	if (text && (err = pr_buf_adds(body, text)))
		return err;
	/* the mail's signature ("-- " and git's version) is no description */
	sig = strstr(body->ptr, "\n-- \n");
	if (sig)
		pr_buf_setlen(body, (size_t)(sig - body->ptr) + 1);
	else if (!strncmp(body->ptr, "-- \n", 4))
		pr_buf_setlen(body, 0);
	pr_buf_rtrim(body);
	if ((err = pr_buf_addf(body, "%s---\nv%d, %zu patch%s, from %s <%s>\n",
			       body->len ? "\n\n" : "", v->number, v->nr,
			       v->nr == 1 ? "" : "es",
			       s->submitter.name ? s->submitter.name : "",
			       s->submitter.email ? s->submitter.email : "")))
		return err;
	if (s->archive_url)
		return pr_buf_addf(body, "Archive: %s\n", s->archive_url);
	if (f->sink->archive_url && mid) {
		if ((err = pr_buf_adds(body, "Archive: ")) ||
		    (err = pr_outgoing_archive_link(body, f->sink->archive_url,
						    mid)))
			return err;
		return pr_buf_addch(body, '\n');
	}
	return 0;
}

/* A Markdown code fence longer than any run of backticks in text. */
static int add_fenced(struct pr_buf *out, const char *text)
{
	size_t run = 0, most = 2, i;
	int err;

	for (i = 0; text[i]; i++) {
		run = text[i] == '`' ? run + 1 : 0;
		if (run > most)
			most = run;
	}
	for (i = 0, err = 0; i <= most && !err; i++)
		err = pr_buf_addch(out, '`');
	if (!err)
		err = pr_buf_addf(out, "\n%s%s", text,
				  *text && text[strlen(text) - 1] != '\n' ? "\n"
									  : "");
	for (i = 0; i <= most && !err; i++)
		err = pr_buf_addch(out, '`');
	return err ? err : pr_buf_addch(out, '\n');
}

/* The range-diff of prev..v, v's side named by the commits pushed. */
static int pushed_range_diff(struct pr_buf *out, const struct pr_version *prev,
			     const struct pr_version *v,
			     const struct pr_gitpush_result *res)
{
	struct pr_patch *copies = pr_calloc(v->nr ? v->nr : 1, sizeof(*copies));
	struct pr_version shown = *v;
	size_t i;
	int err;

	/* shallow copies that only name their commits: nothing is freed */
	shown.patches = pr_calloc(v->nr ? v->nr : 1, sizeof(*shown.patches));
	for (i = 0; i < v->nr; i++) {
		copies[i] = *v->patches[i];
		if (i < res->nr)
			memcpy(copies[i].commit_id, res->commits[i], 41);
		/* with an id, range-diff reads subject_raw as the commit's
		 * first paragraph: a mail's holds "[PATCH n/N]" instead */
		copies[i].subject_raw = NULL;
		shown.patches[i] = &copies[i];
	}
	err = pr_range_diff(out, prev, &shown);
	free(shown.patches);
	free(copies);
	return err;
}

/*
 * The comment a new version gets: what was pushed and its range-diff
 * against the version before it (left out when that one is not kept).
 */
static int new_version_comment(struct pr_buf *out,
			       const struct pr_version_delivery *d,
			       const struct pr_gitpush_result *res)
{
	const struct pr_version *v = d->version;
	struct pr_version *prev = NULL;
	struct pr_buf rd = PR_BUF_INIT;
	int err;

	if ((err = pr_buf_addf(out,
			       "v%d of this series was pushed (%.12s, on "
			       "%.12s).\n",
			       v->number, res->tip, res->base)))
		goto done;
	err = d->store ? pr_engine_stored_version(&prev, d->store, d->series_id,
						  v->number - 1)
		       : PR_ENOENT;
	if (err == PR_ENOENT) {
		err = 0;
		goto done;
	}
	if (err || (err = pushed_range_diff(&rd, prev, v, res)))
		goto done;
	if ((err = pr_buf_addf(out, "\nRange-diff against v%d:\n\n",
			       v->number - 1)))
		goto done;
	err = add_fenced(out, rd.ptr);
done:
	pr_version_free(prev);
	pr_buf_release(&rd);
	return err;
}

int pr_forge_ref_id(struct pr_buf *out, const struct pr_forge *f,
		    const char *kind, int64_t id)
{
	return pr_buf_addf(out, "%s-%s:%lld", f->ops->name, kind,
			   (long long)id);
}

/*
 * Post a comment that is patchrelay's own (a range-diff, a closing): the
 * store keeps its id, so a source reading it back never relays it.
 */
static int post_own(struct pr_forge *f, struct pr_store *st, int64_t series_id,
		    const char *repo, int64_t number, const char *text)
{
	struct pr_buf ref = PR_BUF_INIT;
	int64_t id = 0;
	int err;

	if (!(err = f->ops->post_comment(f, repo, number, text,
					 st ? &id : NULL)) &&
	    st && !(err = pr_forge_ref_id(&ref, f, "comment", id)))
		err = pr_idmap_relay_add(st, ref.ptr, f->inst->name, series_id,
					 ref.ptr);
	pr_buf_release(&ref);
	return err;
}

/* Keep one id of the series in the identity map (another series' is
 * logged: the map keeps its first owner). */
static int remember(const struct pr_instance *inst,
		    const struct pr_version_delivery *d, const char *kind,
		    const char *value)
{
	int err;

	if (!d->store || !value || !*value)
		return 0;
	err = pr_store_identity_add(d->store, d->series_id, kind, value);
	if (err == PR_EEXIST) {
		pr_log_warn(inst->prefix, "%s", pr_error_message());
		pr_error_clear();
		err = 0;
	}
	return err;
}

/* The pull request's ids: "<forge>" owner/repo#N, its URL, the branch. */
static int remember_pr(const struct pr_forge *f,
		       const struct pr_version_delivery *d, const char *repo,
		       const struct pr_forge_pr *pr, const char *branch)
{
	struct pr_buf key = PR_BUF_INIT, kind = PR_BUF_INIT;
	int err;

	if (!(err = pr_buf_addf(&key, "%s#%lld", repo,
				(long long)pr->number)) &&
	    !(err = remember(f->inst, d, f->ops->name, key.ptr)) &&
	    !(err = pr_buf_addf(&kind, "%s-url", f->ops->name)) &&
	    !(err = remember(f->inst, d, kind.ptr, pr->web_url)))
		err = remember(f->inst, d, "branch", branch);
	pr_buf_release(&key);
	pr_buf_release(&kind);
	return err;
}

/* Open the branch's pull request, or bring the open one up to date. */
static int open_pr(struct pr_forge_pr *pr, struct pr_forge *f,
		   const struct pr_version_delivery *d, const char *repo,
		   const char *branch, const struct pr_gitpush_result *res)
{
	struct pr_buf title = PR_BUF_INIT, body = PR_BUF_INIT;
	struct pr_buf note = PR_BUF_INIT;
	int err;

	if ((err = describe(&title, &body, f, d->series, d->version)))
		goto done;
	err = f->ops->find_pr(f, pr, repo, branch);
	if (err == PR_ENOENT) {
		err = f->ops->create_pr(f, pr, repo, branch, f->sink->base,
					title.ptr, body.ptr);
		goto done;
	}
	if (err ||
	    (err = f->ops->update_pr(f, repo, pr->number, title.ptr, body.ptr)))
		goto done;
	if (d->version->number > 1 &&
	    !(err = new_version_comment(&note, d, res)))
		err = post_own(f, d->store, d->series_id, repo, pr->number,
			       note.ptr);
done:
	pr_buf_release(&title);
	pr_buf_release(&body);
	pr_buf_release(&note);
	return err;
}

int pr_forge_sink_deliver(struct pr_instance *inst,
			  const struct pr_version_delivery *d,
			  struct pr_deliver_result *out)
{
	struct pr_forge *f = inst->state;
	const struct pr_forge_sink_opts *so = f->sink;
	const char *repo = f->opts->repo.items[0];
	struct pr_gitfetch_auth auth = { f->ops->git_user, f->opts->token, NULL,
					 NULL };
	struct pr_gitpush p = { 0 };
	struct pr_gitpush_result res = { 0 };
	struct pr_forge_pr pr = { 0 };
	struct pr_buf branch = PR_BUF_INIT;
	char *url = NULL, **trailers = NULL;
	int err;

	out->status = PR_DELIVER_RETRY;
	if (!so)
		return pr_error(PR_EINTERNAL, "%s '%s' is not a sink",
				PR_FORGE_KIND(inst), inst->name);
	if ((err = pr_forge_sink_branch(
		     &branch,
		     so->branch_prefix ? so->branch_prefix : "patchrelay/",
		     d->series->origin_connector, d->series->origin_key)))
		goto done;
	if (!so->push_url && (err = f->ops->clone_url(f, &url, repo)))
		goto done;
	/* the review trailers gathered so far follow the series */
	if (d->store && (err = pr_bridge_trailers(&trailers, d->store,
						  d->series_id, d->version)))
		goto done;
	p.sink = inst->name;
	p.url = so->push_url ? so->push_url : url;
	p.auth = &auth;
	p.committer = so->committer;
	p.base = so->base;
	p.branch = branch.ptr;
	p.what = d->series->origin_key;
	p.time = d->time;
	p.trailers = (const char *const *)trailers;
	if ((err = pr_gitpush_version(&res, out, &p, d->version)) ||
	    out->status != PR_DELIVER_OK)
		goto done;
	/* pushed: what follows is retried until the pull request stands */
	out->status = PR_DELIVER_RETRY;
	if ((err = open_pr(&pr, f, d, repo, branch.ptr, &res)) ||
	    (err = remember_pr(f, d, repo, &pr, branch.ptr)))
		goto done;
	pr_log_info(inst->prefix, "v%d of '%s' pushed as %s (%.12s): %s",
		    d->version->number, d->series->origin_key, branch.ptr,
		    res.tip, pr.web_url ? pr.web_url : "");
	out->status = PR_DELIVER_OK;
done:
	if (err < 0)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	free(url);
	pr_bridge_trailers_free(trailers, d->version->nr);
	pr_forge_pr_release(&pr);
	pr_gitpush_result_release(&res);
	pr_buf_release(&branch);
	return err;
}

/* ---- the reply relay ---- */

/*
 * The pull request of r's series in this sink's repository (see forge.h);
 * 0 with *number 0 when there is none.  own: the series' own PR counts.
 */
static int bridged_pr(int64_t *number, struct pr_forge *f,
		      const struct pr_relay *r, bool own)
{
	const char *repo = f->opts->repo.items[0];
	struct pr_buf b = PR_BUF_INIT, id = PR_BUF_INIT;
	struct pr_forge_pr pr = { 0 };
	int64_t n = 0;
	int err = 0;

	*number = 0;
	if (own && !pr_forge_split_key(&b, &n, r->series->origin_key) &&
	    !strcmp(b.ptr, repo)) {
		*number = n;
		goto done;
	}
	pr_error_clear();
	pr_buf_reset(&b);
	if (r->store &&
	    !pr_store_identity_get(&id, r->store, r->series_id, f->ops->name) &&
	    !pr_forge_split_key(&b, &n, id.ptr) && !strcmp(b.ptr, repo)) {
		*number = n;
		goto done;
	}
	pr_error_clear();
	pr_buf_reset(&b);
	if ((err = pr_forge_sink_branch(
		     &b,
		     f->sink->branch_prefix ? f->sink->branch_prefix
					    : "patchrelay/",
		     r->series->origin_connector, r->series->origin_key)))
		goto done;
	err = f->ops->find_pr(f, &pr, repo, b.ptr);
	if (!err)
		*number = pr.number;
	else if (err == PR_ENOENT)
		err = 0;
done:
	pr_forge_pr_release(&pr);
	pr_buf_release(&b);
	pr_buf_release(&id);
	return err;
}

/* What a comment takes of a mail: the forges refuse over 65536. */
#define RELAY_TEXT_MAX 60000

/* The comment a list reply becomes (Markdown). */
static int relay_text(struct pr_buf *out, const struct pr_relay *r)
{
	const struct pr_event *ev = r->comment;
	const char *name = ev->author.name && *ev->author.name ? ev->author.name
							       : NULL;
	const char *body = ev->body ? ev->body : "";
	struct pr_buf text = PR_BUF_INIT;
	size_t i;
	int err;

	err = pr_buf_addf(out, "**%s** <%s> replied on the list",
			  name ? name : "someone",
			  ev->author.email ? ev->author.email : "");
	if (!err && r->answered)
		err = pr_buf_addf(out, " to `%s`", r->answered);
	if (!err && ev->ref.url)
		err = pr_buf_addf(out, " ([archive](%s))", ev->ref.url);
	if (!err)
		err = pr_buf_adds(out, ":\n\n");
	/* plain text as mailed: no Markdown, no @mention, capped */
	if (!err)
		err = pr_buf_add(&text, body,
				 pr_utf8_fit(body, strlen(body),
					     RELAY_TEXT_MAX));
	if (!err && text.len < strlen(body))
		err = pr_buf_adds(&text, "\n[... cut: see the archive]");
	if (!err)
		err = add_fenced(out, text.ptr);
	pr_buf_release(&text);
	pr_buf_rtrim(out);
	if (!err && ev->trailers.nr)
		err = pr_buf_adds(out, "\n\nTrailers given:");
	for (i = 0; !err && i < ev->trailers.nr; i++)
		err = pr_buf_addf(out, "\n- `%s: %s`",
				  ev->trailers.items[i].key,
				  ev->trailers.items[i].value);
	return err ? err : pr_buf_addch(out, '\n');
}

int pr_forge_sink_relay(struct pr_instance *inst, const struct pr_relay *r,
			char **posted)
{
	struct pr_forge *f = inst->state;
	struct pr_buf text = PR_BUF_INIT, ref = PR_BUF_INIT;
	int64_t number, id = 0;
	int err;

	*posted = NULL;
	if (!f->sink || !r->comment)
		return 0;
	if ((err = bridged_pr(&number, f, r, true)) || !number)
		goto done;
	if ((err = relay_text(&text, r)) ||
	    (err = f->ops->post_comment(f, f->opts->repo.items[0], number,
					text.ptr, &id)) ||
	    (err = pr_forge_ref_id(&ref, f, "comment", id)))
		goto done;
	*posted = pr_buf_detach(&ref, NULL);
done:
	if (err < 0)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	pr_buf_release(&text);
	pr_buf_release(&ref);
	return err;
}

int pr_forge_sink_state(struct pr_instance *inst, const struct pr_relay *r,
			const char *state, const char *why)
{
	struct pr_forge *f = inst->state;
	const char *repo;
	struct pr_buf text = PR_BUF_INIT;
	int64_t number;
	int err;

	if (!f->sink)
		return 0;
	repo = f->opts->repo.items[0];
	/* a PR from the forge itself is its source's to close (`close`) */
	if ((err = bridged_pr(&number, f, r, false)) || !number)
		goto done;
	if (!(err = pr_buf_addf(&text,
				"This series was %s%s%s; patchrelay closes "
				"this pull request.\n",
				state, why && *why ? ": " : "",
				why ? why : "")) &&
	    !(err = post_own(f, r->store, r->series_id, repo, number,
			     text.ptr)) &&
	    !(err = f->ops->close_pr(f, repo, number)))
		pr_log_info(inst->prefix, "'%s' %s: closed %s#%lld",
			    r->series->origin_key, state, repo,
			    (long long)number);
done:
	if (err < 0)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	pr_buf_release(&text);
	return err;
}
