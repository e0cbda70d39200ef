#include "base/pr.h"

#include <git2.h>
#include <stdlib.h>

#include "base/sha1.h"
#include "engine/delivery.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "gerrit.h"
#include "gitcommit.h"
#include "gitfetch.h"
#include "gitnet.h"
#include "gitpush.h"
#include "git/rangediff.h"
#include "mail/outgoing.h"
#include "model/model.h"

/*
 * The gerrit sink (gerrit.h, docs/connectors/gerrit.md): a version is
 * pushed to refs/for/BRANCH%topic=TOPIC, one commit per patch on the
 * target branch (or on the version's own base when Gerrit has it), each
 * with a Change-Id, so that Gerrit makes one change per patch and the
 * next version updates the same changes.
 *
 * Invariants:
 * - A patch keeps the Change-Id trailer it came with.  Otherwise it takes
 *   the Change-Id of the patch of the last version pushed that range-diff
 *   pairs it with (a patch inserted or dropped shifts nothing), and a
 *   patch with no pair gets a new one, made from the series key, the
 *   version number and the patch's place, so that a retry makes the same
 *   commits.  The Change-Ids of each version pushed are kept in the
 *   store's identity map, kind "gerrit-ids:SINK:vN", the list in patch
 *   order, and the commits pushed, "gerrit-commits:SINK:vN" (a reply to
 *   a patch of vN is posted on that patch set); the changes Gerrit names,
 *   kind "gerrit-change:SINK", by URL.
 * - Gerrit's answer is the delivery's status: taken (the changes it
 *   names are logged and recorded), "no new changes" (taken: Gerrit has
 *   the commits), anything else it refuses (a missing Change-Id, an
 *   unknown branch, no permission) is a rejection, final, with Gerrit's
 *   reason.  Not reaching Gerrit (network, ssh login) is an error: the
 *   engine tries again.
 * - The fetch of the target branch and the push run in child processes
 *   under the sink's timeout (gitnet.h, pr_gitpush_send): a Gerrit that
 *   stops answering is PR_ETIMEOUT, and libgit2's loss per ssh
 *   connection dies with the child.  Their URLs are git's rewrites of
 *   the sink's by insteadOf and pushInsteadOf (pr_gitnet_rewrite).
 */

#define CREATION_FACTOR 60
#define TOPIC_MAX 100

/* A topic Gerrit takes in a refspec option: [A-Za-z0-9._@+-], 100 bytes. */
static int topic_of(struct pr_buf *out, const char *key)
{
	const unsigned char *p;
	int err = 0;

	for (p = (const unsigned char *)key; *p && out->len < TOPIC_MAX && !err;
	     p++) {
		bool ok = (*p >= 'a' && *p <= 'z') ||
			  (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || strchr("._@+-", *p);

		if (ok)
			err = pr_buf_addch(out, *p);
		else if (out->len && out->ptr[out->len - 1] != '-')
			err = pr_buf_addch(out, '-');
	}
	if (!err && !out->len)
		err = pr_buf_adds(out, "patchrelay");
	return err;
}

static bool is_change_id(const char *s)
{
	return s && s[0] == 'I' && strlen(s) == 41 &&
	       strspn(s + 1, "0123456789abcdef") == 40;
}

/* The patch's own Change-Id trailer, or NULL. */
static const char *own_change_id(const struct pr_patch *p)
{
	size_t i;

	for (i = p->trailers.nr; i--;)
		if (!strcasecmp(p->trailers.items[i].key, "Change-Id") &&
		    is_change_id(p->trailers.items[i].value))
			return p->trailers.items[i].value;
	return NULL;
}

/* A new Change-Id: the same for the same series, version and place. */
static void new_change_id(char out[42], const struct pr_version_delivery *d,
			  size_t i)
{
	const struct pr_patch *p = d->version->patches[i];
	struct pr_sha1 h;
	char num[64];

	pr_sha1_init(&h);
	pr_sha1_update(&h, "patchrelay change-id", 21);
	pr_sha1_update(&h, d->series->origin_connector,
		       strlen(d->series->origin_connector) + 1);
	pr_sha1_update(&h, d->series->origin_key,
		       strlen(d->series->origin_key) + 1);
	snprintf(num, sizeof(num), "%d/%zu", d->version->number, i);
	pr_sha1_update(&h, num, strlen(num) + 1);
	if (p->subject)
		pr_sha1_update(&h, p->subject, strlen(p->subject));
	out[0] = 'I';
	pr_sha1_final_hex(out + 1, &h);
}

int pr_gerrit_ids_kind(struct pr_buf *out, const char *sink, int number)
{
	return pr_buf_addf(out, "gerrit-ids:%s:v%d", sink, number);
}

int pr_gerrit_commits_kind(struct pr_buf *out, const char *sink, int number)
{
	return pr_buf_addf(out, "gerrit-commits:%s:v%d", sink, number);
}

/*
 * The Change-Ids of the last version pushed before this one, and that
 * version read back from the store, paired with this one: ids[i] is set
 * for each patch i that has a pair there.
 */
static int inherit_ids(char (*ids)[42], const struct pr_instance *inst,
		       const struct pr_version_delivery *d)
{
	const struct pr_version *v = d->version;
	struct pr_buf kind = PR_BUF_INIT, list = PR_BUF_INIT;
	struct pr_version *prev = NULL;
	int *pair = NULL, k;
	size_t i;
	int err = 0;

	if (!d->store)
		return 0;
	/* the newest earlier version this sink pushed */
	for (k = v->number - 1; k >= 1; k--) {
		pr_buf_reset(&kind);
		if ((err = pr_gerrit_ids_kind(&kind, inst->name, k)))
			goto done;
		err = pr_store_identity_get(&list, d->store, d->series_id,
					    kind.ptr);
		if (err != PR_ENOENT)
			break;
		err = 0;
	}
	if (err || k < 1)
		goto done;
	err = pr_engine_stored_version(&prev, d->store, d->series_id, k);
	if (err == PR_ENOENT) {
		/* the store kept no patches of it: nothing to pair with */
		pr_error_clear();
		err = 0;
		goto done;
	}
	if (err)
		goto done;
	pair = pr_calloc(v->nr + 1, sizeof(*pair));
	if ((err = pr_rangediff_pair(pair, prev, v, CREATION_FACTOR)))
		goto done;
	for (i = 0; i < v->nr; i++) {
		const char *p = list.ptr;
		int n;

		if (pair[i] < 0)
			continue;
		/* the pair's id: the pair[i]-th word of the list */
		for (n = 0; n < pair[i] && *p; n++)
			p += strcspn(p, " ") + (p[strcspn(p, " ")] ? 1 : 0);
		if (strcspn(p, " ") == 41) {
			memcpy(ids[i], p, 41);
			ids[i][41] = '\0';
		}
	}
done:
	pr_version_free(prev);
	free(pair);
	pr_buf_release(&kind);
	pr_buf_release(&list);
	return err;
}

/* Change-Ids for every patch of the version (see the invariants). */
static int change_ids(char (*ids)[42], const struct pr_instance *inst,
		      const struct pr_version_delivery *d)
{
	const struct pr_version *v = d->version;
	size_t i, j;
	int err;

	if ((err = inherit_ids(ids, inst, d)))
		return err;
	for (i = 0; i < v->nr; i++) {
		const char *own = own_change_id(v->patches[i]);

		if (own) {
			memcpy(ids[i], own, 42);
			continue;
		}
		if (!ids[i][0])
			new_change_id(ids[i], d, i);
		/* two patches never share one: the later gets a new one */
		for (j = 0; j < i; j++)
			if (!strcmp(ids[j], ids[i]))
				new_change_id(ids[i], d, i);
	}
	return 0;
}

/* Record the ids pushed and the changes Gerrit named. */
static int remember(const struct pr_instance *inst,
		    const struct pr_version_delivery *d, char (*ids)[42],
		    char (*shas)[41], const struct pr_gerrit_push_answer *a)
{
	struct pr_buf kind = PR_BUF_INIT, list = PR_BUF_INIT;
	size_t i;
	int err = 0;

	if (!d->store)
		return 0;
	for (i = 0; i < d->version->nr && !err; i++)
		err = pr_buf_addf(&list, "%s%s", i ? " " : "", ids[i]);
	if (!err && list.len &&
	    !(err = pr_gerrit_ids_kind(&kind, inst->name, d->version->number)))
		err = pr_store_identity_add(d->store, d->series_id, kind.ptr,
					    list.ptr);
	pr_buf_reset(&kind);
	pr_buf_reset(&list);
	for (i = 0; i < d->version->nr && !err; i++)
		err = pr_buf_addf(&list, "%s%s", i ? " " : "", shas[i]);
	if (!err && list.len &&
	    !(err = pr_gerrit_commits_kind(&kind, inst->name,
					   d->version->number)))
		err = pr_store_identity_add(d->store, d->series_id, kind.ptr,
					    list.ptr);
	pr_buf_reset(&kind);
	if (!err)
		err = pr_buf_addf(&kind, "gerrit-change:%s", inst->name);
	for (i = 0; i < a->nr && !err; i++) {
		err = pr_store_identity_add(d->store, d->series_id, kind.ptr,
					    a->changes[i].url);
		/* a change another series made (its own Change-Id) stays its */
		if (err == PR_EEXIST) {
			pr_error_clear();
			err = 0;
		}
	}
	pr_buf_release(&kind);
	pr_buf_release(&list);
	return err;
}

/*
 * The commits of the version on base, shas[i] patch i's; *tip the last.
 * 0 or a rejection.
 */
static int make_commits(git_oid *tip, struct pr_deliver_result *out,
			git_repository *repo, const struct pr_instance *inst,
			const struct pr_version_delivery *d, git_commit *base,
			char (*ids)[42], char (*shas)[41],
			const git_signature *committer)
{
	const struct pr_gerrit *g = inst->state;
	const struct pr_version *v = d->version;
	git_commit *parent = base, *next = NULL;
	struct pr_buf trailers = PR_BUF_INIT;
	size_t i;
	int err = 0;

	git_oid_cpy(tip, git_commit_id(base));
	for (i = 0; i < v->nr; i++) {
		const struct pr_patch *p = v->patches[i];
		bool applied;

		pr_buf_reset(&trailers);
		if (g->o->archive_url && p->message_id &&
		    ((err = pr_buf_adds(&trailers, "Link: ")) ||
		     (err = pr_outgoing_archive_link(
			      &trailers, g->o->archive_url, p->message_id)) ||
		     (err = pr_buf_addch(&trailers, '\n'))))
			goto done;
		if (!own_change_id(p) &&
		    (err = pr_buf_addf(&trailers, "Change-Id: %s\n", ids[i])))
			goto done;
		if ((err = pr_gitcommit_apply(tip, &applied, repo, inst->name,
					      parent, p, trailers.ptr,
					      committer)))
			goto done;
		if (!applied) {
			pr_gitcommit_reject(
				out,
				"patch %zu/%zu '%s' does not apply "
				"on %s",
				i + 1, v->nr, p->subject ? p->subject : "",
				git_oid_tostr_s(git_commit_id(parent)));
			goto done;
		}
		git_oid_tostr(shas[i], 41, tip);
		git_commit_free(next);
		next = NULL;
		if (git_commit_lookup(&next, repo, tip) < 0) {
			err = pr_gitcommit_fail(PR_EIO, inst->name,
						"read commit");
			goto done;
		}
		parent = next;
	}
	out->status = PR_DELIVER_OK;
done:
	git_commit_free(next);
	pr_buf_release(&trailers);
	return err;
}

/*
 * Push tip to refs/for/BRANCH%topic=T at url (the push URL git makes of
 * the sink's, pushInsteadOf applied), in a child process under the
 * sink's timeout (gitpush.h); what Gerrit said in *said.
 */
static int push(struct pr_gitpush_said *said, git_repository *repo,
		const struct pr_instance *inst, const char *url,
		const struct pr_gitfetch_auth *auth, const git_oid *tip,
		const char *topic)
{
	const struct pr_gerrit *g = inst->state;
	git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
	git_remote *remote = NULL;
	git_reference *ref = NULL;
	struct pr_buf spec = PR_BUF_INIT, local = PR_BUF_INIT;
	const char *specp;
	int err = 0;

	if ((err = pr_buf_adds(&local, "refs/patchrelay/push/")) ||
	    (err = pr_gitfetch_escape(&local, topic)))
		goto done;
	if (git_reference_create(&ref, repo, local.ptr, tip, 1, NULL) < 0) {
		err = pr_gitcommit_fail(PR_EIO, inst->name, local.ptr);
		goto done;
	}
	if ((err = pr_buf_addf(&spec, "%s:refs/for/%s%%topic=%s", local.ptr,
			       g->o->branch.items[0], topic)))
		goto done;
	specp = spec.ptr;
	/* insteadOf was applied by hand: libgit2's lookup leaks (gitnet.h) */
	create.repository = repo;
	create.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
	if (git_remote_create_with_opts(&remote, url, &create) < 0) {
		err = pr_gitcommit_fail(PR_EINVAL, inst->name, url);
		goto done;
	}
	err = pr_gitpush_send(said, remote, url, &specp, 1, auth);
done:
	git_remote_free(remote);
	git_reference_free(ref);
	pr_buf_release(&spec);
	pr_buf_release(&local);
	return err;
}

/* Gerrit's answer as the delivery's status. */
static int judge(struct pr_deliver_result *out, const struct pr_instance *inst,
		 const struct pr_version_delivery *d,
		 const struct pr_gitpush_said *said,
		 const struct pr_gerrit_push_answer *a)
{
	struct pr_buf why = PR_BUF_INIT, list = PR_BUF_INIT;
	size_t i;
	int err = 0;

	if (said->ref.len && !strstr(said->status.ptr, "no new changes")) {
		if ((err = pr_buf_addf(&why, "Gerrit refused the push: %s",
				       said->status.ptr)))
			goto done;
		for (i = 0; i < a->errors.nr && !err; i++)
			err = pr_buf_addf(&why, "; %s", a->errors.items[i]);
		if (!err)
			pr_gitcommit_reject(out, "%s", why.ptr);
		goto done;
	}
	for (i = 0; i < a->nr && !err; i++)
		err = pr_buf_addf(&list, "%s%lld%s", i ? ", " : "",
				  (long long)a->changes[i].number,
				  a->changes[i].is_new ? " (new)" : "");
	pr_log_info(inst->prefix, "pushed v%d of '%s': %s", d->version->number,
		    d->series->origin_key,
		    said->ref.len ? "no new changes"
		    : list.len	  ? list.ptr
				  : "taken");
	out->status = PR_DELIVER_OK;
done:
	pr_buf_release(&why);
	pr_buf_release(&list);
	return err;
}

int pr_gerrit_deliver_version(struct pr_instance *inst,
			      const struct pr_version_delivery *d,
			      struct pr_deliver_result *out)
{
	const struct pr_gerrit *g = inst->state;
	const struct pr_gerrit_ctx *o = g->o;
	const char *project = o->project.items[0], *branch = o->branch.items[0];
	struct pr_gitfetch_auth auth = { o->user,    o->password,
					 o->ssh_key, o->known_hosts,
					 o->timeout, o->ca_file,
					 true };
	struct pr_gitpush_said said;
	struct pr_gerrit_push_answer answer = { 0 };
	struct pr_buf dir = PR_BUF_INIT, url = PR_BUF_INIT;
	struct pr_buf push_url = PR_BUF_INIT;
	struct pr_buf base_ref = PR_BUF_INIT, spec = PR_BUF_INIT;
	struct pr_buf topic = PR_BUF_INIT;
	git_repository *repo = NULL;
	git_commit *base = NULL;
	git_signature *committer = NULL;
	char(*ids)[42] = pr_calloc(d->version->nr + 1, sizeof(*ids));
	char(*shas)[41] = pr_calloc(d->version->nr + 1, sizeof(*shas));
	const char *specp;
	git_oid tip;
	int err;

	memset(&said, 0, sizeof(said));
	out->status = PR_DELIVER_RETRY;
	out->retry_after_ms = 0;
	git_libgit2_init();
	if ((err = pr_gerrit_cache_path(&dir, g, project)) ||
	    (err = pr_gerrit_git_url(&url, g, project)) ||
	    (err = pr_buf_addf(&base_ref, "refs/patchrelay/base/%s", branch)) ||
	    (err = pr_buf_addf(&spec, "+refs/heads/%s:%s", branch,
			       base_ref.ptr)) ||
	    (err = pr_gitfetch_open_cache(&repo, dir.ptr)))
		goto done;
	specp = spec.ptr;
	err = pr_gitfetch(repo, url.ptr, &specp, 1, &auth, spec.ptr + 1);
	if (err == PR_ENOENT) {
		pr_gitcommit_reject(out, "branch '%s' not found in '%s'",
				    branch, project);
		err = 0;
		goto done;
	}
	if (err ||
	    (err = pr_gitcommit_committer(&committer, o->committer, inst->name,
					  dir.ptr, d->time)) ||
	    (err = pr_gitcommit_find_base(&base, repo, base_ref.ptr,
					  d->version)))
		goto done;
	if (!base) {
		pr_gitcommit_reject(out, "no base for v%d of '%s'",
				    d->version->number, d->series->origin_key);
		goto done;
	}
	if ((err = change_ids(ids, inst, d)) ||
	    (err = make_commits(&tip, out, repo, inst, d, base, ids, shas,
				committer)) ||
	    out->status != PR_DELIVER_OK)
		goto done;
	out->status = PR_DELIVER_RETRY;
	if ((err = topic_of(&topic, d->series->origin_key)) ||
	    (err = pr_gitnet_rewrite(&push_url, repo, url.ptr, true)) ||
	    (err = push(&said, repo, inst, push_url.ptr, &auth, &tip,
			topic.ptr)) ||
	    (err = pr_gerrit_push_parse(&answer, said.remote.ptr,
					said.remote.len)) ||
	    (err = judge(out, inst, d, &said, &answer)))
		goto done;
	if (out->status == PR_DELIVER_OK)
		err = remember(inst, d, ids, shas, &answer);
done:
	if (err < 0)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	git_signature_free(committer);
	git_commit_free(base);
	git_repository_free(repo);
	git_libgit2_shutdown();
	pr_gerrit_push_answer_release(&answer);
	pr_gitpush_said_release(&said);
	pr_buf_release(&dir);
	pr_buf_release(&url);
	pr_buf_release(&push_url);
	pr_buf_release(&base_ref);
	pr_buf_release(&spec);
	pr_buf_release(&topic);
	free(ids);
	free(shas);
	return err;
}
