#include "base/pr.h"

#include <stdarg.h>

#include "git/gitrepo.h"
#include "gitcommit.h"
#include "mail/outgoing.h"
#include "model/trailer.h"

/*
 * Commits of a version's patches for the sinks that push (gitcommit.h).
 * The commits are what `git am` would make, so that what a sink pushes
 * reads as the author's own commits.
 */

int pr_gitcommit_fail(int code, const char *sink, const char *what)
{
	const git_error *e = git_error_last();

	return pr_error(code, "sink '%s': %s: %s", sink, what,
			e && e->message ? e->message : "libgit2 error");
}

void pr_gitcommit_reject(struct pr_deliver_result *out, const char *fmt, ...)
{
	struct pr_buf why = PR_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	pr_buf_vaddf(&why, fmt, ap);
	va_end(ap);
	out->status = PR_DELIVER_REJECTED;
	free(out->reason);
	out->reason = pr_buf_detach(&why, NULL);
}

bool pr_gitcommit_have(git_commit **out, git_repository *repo, const char *hex)
{
	git_oid oid;

	*out = NULL;
	if (!hex[0] || git_oid_fromstr(&oid, hex) < 0)
		return false;
	if (git_commit_lookup(out, repo, &oid) < 0) {
		git_error_clear();
		return false;
	}
	return true;
}

int pr_gitcommit_find_base(git_commit **out, git_repository *repo,
			   const char *base, const struct pr_version *v)
{
	git_commit *first = NULL;
	git_object *obj = NULL;

	*out = NULL;
	if (pr_gitcommit_have(out, repo, v->base_commit))
		goto done;
	if (v->nr &&
	    pr_gitcommit_have(&first, repo, v->patches[0]->commit_id) &&
	    git_commit_parentcount(first) == 1 &&
	    git_commit_parent(out, first, 0) == 0)
		goto done;
	if (base && git_revparse_single(&obj, repo, base) == 0 &&
	    git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT) == 0)
		goto done;
	git_error_clear();
	*out = NULL;
done:
	git_object_free(obj);
	git_commit_free(first);
	return 0;
}

int pr_gitcommit_message(struct pr_buf *out, const struct pr_patch *p,
			 const char *trailers)
{
	const char *body = p->body ? p->body : "";
	size_t start = out->len;
	int err;

	body += strspn(body, "\n");
	if ((err = pr_buf_addf(out, "%s\n", p->subject ? p->subject : "")))
		return err;
	if (*body && (err = pr_buf_addf(out, "\n%s", body)))
		return err;
	pr_buf_rtrim(out);
	if ((err = pr_buf_addch(out, '\n')) || !trailers || !*trailers)
		return err;
	/* into the trailer block the message ends with, else a new one */
	return pr_trailers_append(out, start, trailers);
}

/*
 * A patch that does not apply is the series' problem, not an error: the
 * message (libgit2's reason, else `why`) is kept for the caller's report.
 */
static void not_applied(const char *why)
{
	const git_error *e = git_error_last();

	pr_error(PR_EINVAL, "%s", e && e->message ? e->message : why);
	git_error_clear();
}

int pr_gitcommit_apply(git_oid *out, bool *applied, git_repository *repo,
		       const char *sink, git_commit *parent,
		       const struct pr_patch *p, const char *trailers,
		       const git_signature *committer)
{
	git_diff *diff = NULL;
	git_index *index = NULL;
	git_tree *tree = NULL, *new_tree = NULL;
	git_signature *author = NULL;
	struct pr_buf msg = PR_BUF_INIT;
	const char *name;
	git_oid tree_id;
	int err = 0;

	*applied = false;
	if (git_commit_tree(&tree, parent) < 0) {
		err = pr_gitcommit_fail(PR_EIO, sink, "read tree");
		goto done;
	}
	if (p->diff && *p->diff) {
		if (git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) < 0 ||
		    git_apply_to_tree(&index, repo, tree, diff, NULL) < 0) {
			not_applied("does not apply");
			goto done;
		}
		if (git_index_write_tree_to(&tree_id, index, repo) < 0) {
			err = pr_gitcommit_fail(PR_EIO, sink, "write tree");
			goto done;
		}
	} else {
		git_oid_cpy(&tree_id, git_tree_id(tree));
	}
	if (git_tree_lookup(&new_tree, repo, &tree_id) < 0) {
		err = pr_gitcommit_fail(PR_EIO, sink, "read tree");
		goto done;
	}
	/* git takes an address alone as the name too */
	name = p->author.name && *p->author.name ? p->author.name
						 : p->author.email;
	if (!name || !p->author.email ||
	    git_signature_new(&author, name, p->author.email,
			      (git_time_t)p->time, p->tz_minutes) < 0) {
		not_applied("no usable author");
		goto done;
	}
	if ((err = pr_gitcommit_message(&msg, p, trailers)))
		goto done;
	if (git_commit_create(out, repo, NULL, author, committer, NULL, msg.ptr,
			      new_tree, 1, (const git_commit **)&parent) < 0) {
		err = pr_gitcommit_fail(PR_EIO, sink, "write commit");
		goto done;
	}
	*applied = true;
done:
	pr_buf_release(&msg);
	git_signature_free(author);
	git_tree_free(new_tree);
	git_tree_free(tree);
	git_index_free(index);
	git_diff_free(diff);
	return err;
}

int pr_gitcommit_committer(git_signature **out, const char *committer,
			   const char *sink, const char *dir, int64_t when)
{
	struct pr_ident who = { NULL, NULL };
	const char *date = getenv("GIT_COMMITTER_DATE");
	int64_t t = when;
	int tz = 0, err;

	*out = NULL;
	if (committer)
		err = pr_outgoing_parse_address(&who, committer);
	else
		err = pr_gitrepo_committer(&who, &t, &tz, dir);
	if (err)
		goto done;
	/* a retry makes the same commits: the delivery's time, not now */
	if (!date || !*date || committer) {
		t = when;
		tz = 0;
	}
	if (git_signature_new(out, who.name && *who.name ? who.name : who.email,
			      who.email, (git_time_t)t, tz) < 0)
		err = pr_gitcommit_fail(PR_EINVAL, sink, "committer");
done:
	pr_ident_release(&who);
	return err;
}
