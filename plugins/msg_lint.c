#include "base/pr.h"
#include "checks.h"

#include <ctype.h>
#include <git2.h>

/*
 * msg-lint: commit-message rules of the kernel's submitting-patches.rst.
 * Every rule reads only the patch's fields (author, subject, body,
 * trailers); none needs the diff.
 */

static const struct pr_msg_lint_rule rules[PR_ML_NR] = {
	[PR_ML_SIGNOFF_MISSING] = { "signoff-missing", PR_VERDICT_FAIL,
				    "no Signed-off-by: certify the DCO with "
				    "'git commit -s'" },
	[PR_ML_SIGNOFF_AUTHOR_MISMATCH] = { "signoff-author-mismatch",
					    PR_VERDICT_FAIL,
					    "the author has no Signed-off-by: add one with the author's "
					    "own address, or fix the author" },
	[PR_ML_SUBJECT_PREFIX] = { "subject-prefix", PR_VERDICT_WARN,
				   "the subject is not 'subsys: summary': "
				   "start it with the subsystem, as "
				   "'git log --oneline FILE' shows" },
	[PR_ML_SUBJECT_LENGTH] = { "subject-length", PR_VERDICT_WARN,
				   "the subject is too long: keep the summary "
				   "short and put details in the body" },
	[PR_ML_SUBJECT_TRAILING_PERIOD] = { "subject-trailing-period",
					    PR_VERDICT_WARN,
					    "the subject ends with a period: "
					    "drop it" },
	[PR_ML_BODY_EMPTY] = { "body-empty", PR_VERDICT_WARN,
			       "the message has no body: say why the change "
			       "is needed and what it does" },
	[PR_ML_BODY_LINE_LENGTH] = { "body-line-length", PR_VERDICT_WARN,
				     "a body line is too long: wrap the text "
				     "(URLs, quoted logs and trailers may "
				     "stay long)" },
	[PR_ML_FIXES_FORMAT] = { "fixes-format", PR_VERDICT_FAIL,
				 "malformed Fixes: write 'Fixes: <12+ hex "
				 "digits> (\"subject\")', as git log "
				 "--format='%h (\"%s\")' --abbrev=12 gives" },
	[PR_ML_LINK_LKML_ORG] = { "link-lkml-org", PR_VERDICT_WARN,
				  "a link points at lkml.org: link the same "
				  "message on lore.kernel.org instead" },
	[PR_ML_REPORTED_BY_WITHOUT_CLOSES] = { "reported-by-without-closes",
					       PR_VERDICT_WARN,
					       "Reported-by without Closes: add 'Closes: <URL of the "
					       "report>' right after it" },
	[PR_ML_TRAILER_UNKNOWN] = { "trailer-unknown", PR_VERDICT_WARN,
				    "an unknown trailer key: use a standard "
				    "one (Acked-by, Reviewed-by, Tested-by, "
				    "Link, ...) or move it into the body" },
	[PR_ML_CO_DEVELOPED_BY_WITHOUT_SIGNOFF] = { "co-developed-by-without-signoff",
						    PR_VERDICT_FAIL,
						    "a Co-developed-by without the same person's Signed-off-by: "
						    "add it right after" },
	[PR_ML_FIXUP_COMMIT] = { "fixup-commit", PR_VERDICT_FAIL,
				 "a fixup!/squash! commit: squash it with "
				 "'git rebase -i --autosquash' before "
				 "sending" },
	[PR_ML_MERGE_COMMIT] = { "merge-commit", PR_VERDICT_FAIL,
				 "a merge commit cannot be sent as a patch: "
				 "rebase the series onto its base" },
	[PR_ML_NOREPLY_AUTHOR] = { "noreply-author", PR_VERDICT_FAIL,
				   "the author's address takes no replies: "
				   "set a real one with 'git config "
				   "user.email' and 'git commit --amend "
				   "--reset-author'" },
	[PR_ML_FIXES_UNKNOWN_COMMIT] = { "fixes-unknown-commit",
					 PR_VERDICT_FAIL,
					 "a Fixes: that names no commit of the reference repository, "
					 "or the wrong subject: copy both from 'git log'" },
};

/* Trailer keys a kernel maintainer expects (case-insensitive). */
static const char *const known_trailers[] = {
	"Signed-off-by", "Co-developed-by",
	"Acked-by",	 "Reviewed-by",
	"Tested-by",	 "Reported-by",
	"Suggested-by",	 "Cc",
	"Fixes",	 "Link",
	"Closes",	 "Message-ID",
	"Requested-by",	 "Debugged-by",
	"Bisected-by",	 "Originally-by",
	"Helped-by",	 "Analyzed-by",
	"Cc-stable",
};

const struct pr_msg_lint_rule *pr_msg_lint_rules(void)
{
	return rules;
}

void pr_msg_lint_defaults(struct pr_msg_lint_opts *o)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < PR_ML_NR; i++)
		o->severity[i] = rules[i].severity;
	o->subject_max = 75;
	o->body_max = 75;
}

int pr_msg_lint_set(struct pr_msg_lint_opts *o, const char *id,
		    const char *severity)
{
	enum pr_verdict v;
	size_t i;

	if (!strcmp(severity, "off"))
		v = PR_VERDICT_SKIP;
	else if (!strcmp(severity, "warn"))
		v = PR_VERDICT_WARN;
	else if (!strcmp(severity, "fail"))
		v = PR_VERDICT_FAIL;
	else
		return pr_error(PR_EINVAL,
				"msg-lint rule '%s': severity '%s' is not "
				"off, warn or fail",
				id, severity);
	for (i = 0; i < PR_ML_NR; i++)
		if (!strcmp(id, rules[i].id)) {
			o->severity[i] = v;
			return 0;
		}
	return pr_error(PR_EINVAL, "msg-lint: unknown rule '%s'", id);
}

static bool trailer_like(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && (isalnum((unsigned char)l[i]) || l[i] == '-'))
		i++;
	return i && i + 1 < n && l[i] == ':' && l[i + 1] == ' ';
}

/* Where the trailer paragraph of body starts (its length when none). */
static size_t trailer_start(const char *body)
{
	size_t len = strlen(body), para = 0, i;

	while (len && isspace((unsigned char)body[len - 1]))
		len--;
	for (i = 0; i + 1 < len; i++)
		if (body[i] == '\n' && body[i + 1] == '\n')
			para = i + 2;
	for (i = para; i < len;) {
		size_t n = strcspn(body + i, "\n");

		if (!trailer_like(body + i, n))
			return strlen(body);
		i += n + 1;
	}
	return para < len ? para : strlen(body);
}

static bool has_key(const struct pr_trailer_list *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcasecmp(l->items[i].key, key))
			return true;
	return false;
}

/* 'Fixes: <12+ hex> ("subject")' */
static bool fixes_ok(const char *v)
{
	size_t n = 0, len;

	while (isxdigit((unsigned char)v[n]) && !isupper((unsigned char)v[n]))
		n++;
	if (n < 12 || n > 40 || strncmp(v + n, " (\"", 3))
		return false;
	len = strlen(v);
	return len >= n + 6 && !strcmp(v + len - 2, "\")");
}

static bool subject_prefix_ok(const char *s)
{
	const char *colon = strstr(s, ": ");
	const char *p;

	if (!colon || colon == s || !colon[2])
		return false;
	for (p = s; p < colon; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-./,+ ()*", *p))
			return false;
	return *s != ' ';
}

static bool ci_contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return false;
}

static void finding(struct pr_report *r, const char *step,
		    const struct pr_msg_lint_opts *o, int rule, int patch,
		    const char *what)
{
	if (o->severity[rule] == PR_VERDICT_SKIP)
		return;
	pr_report_add(r, step, rules[rule].id, o->severity[rule], patch, NULL,
		      "%s%s%s", what ? what : "", what ? "; " : "",
		      rules[rule].explain);
}

/*
 * Look a well-formed Fixes value up in repo: the commit must exist and its
 * summary must be the quoted subject.  Writes why not into what.
 */
static bool fixes_known(git_repository *repo, const char *value,
			struct pr_buf *what)
{
	size_t n = strcspn(value, " ");
	char hex[41];
	const char *quoted = value + n + 3; /* after ' ("' */
	size_t qlen = strlen(quoted) - 2; /* before '")' */
	git_object *obj = NULL;
	const char *summary;
	bool ok = false;

	memcpy(hex, value, n);
	hex[n] = '\0';
	if (git_revparse_single(&obj, repo, hex) ||
	    git_object_type(obj) != GIT_OBJECT_COMMIT) {
		pr_buf_addf(what,
			    "commit %s is not in the reference repository",
			    hex);
		goto done;
	}
	summary = git_commit_summary((git_commit *)obj);
	if (!summary || strlen(summary) != qlen ||
	    strncmp(summary, quoted, qlen)) {
		pr_buf_addf(what, "commit %s is \"%s\", not \"%.*s\"", hex,
			    summary ? summary : "", (int)qlen, quoted);
		goto done;
	}
	ok = true;
done:
	git_object_free(obj);
	return ok;
}

static void lint_patch(struct pr_report *r, const char *step,
		       const struct pr_msg_lint_opts *o, int idx,
		       const struct pr_patch *p, git_repository *repo)
{
	const char *subject = p->subject ? p->subject : "";
	const char *body = p->body ? p->body : "";
	const char *email = p->author.email ? p->author.email : "";
	const struct pr_trailer_list *tl = &p->trailers;
	struct pr_buf what = PR_BUF_INIT;
	size_t slen = strlen(subject), tstart = trailer_start(body), i;
	const char *l;
	bool signoff = false, author_signoff = false, text = false;

	for (i = 0; i < tl->nr; i++) {
		const struct pr_trailer *t = &tl->items[i];

		if (!strcasecmp(t->key, "Signed-off-by")) {
			signoff = true;
			if (*email && ci_contains(t->value, email))
				author_signoff = true;
		}
	}
	if (!signoff)
		finding(r, step, o, PR_ML_SIGNOFF_MISSING, idx, NULL);
	else if (*email && !author_signoff) {
		pr_buf_addf(&what, "author '%s' did not sign off", email);
		finding(r, step, o, PR_ML_SIGNOFF_AUTHOR_MISMATCH, idx,
			what.ptr);
	}
	if (!strncmp(subject, "fixup! ", 7) ||
	    !strncmp(subject, "squash! ", 8) || !strncmp(subject, "amend! ", 7))
		finding(r, step, o, PR_ML_FIXUP_COMMIT, idx, NULL);
	else if (!strncmp(subject, "Merge branch ", 13) ||
		 !strncmp(subject, "Merge tag ", 10) ||
		 !strncmp(subject, "Merge remote-tracking branch ", 29) ||
		 !strncmp(subject, "Merge pull request ", 19) ||
		 !strncmp(subject, "Merge commit ", 13))
		finding(r, step, o, PR_ML_MERGE_COMMIT, idx, NULL);
	else if (!subject_prefix_ok(subject))
		finding(r, step, o, PR_ML_SUBJECT_PREFIX, idx, NULL);
	if (slen > o->subject_max) {
		pr_buf_reset(&what);
		pr_buf_addf(&what, "subject has %zu characters, over %u", slen,
			    o->subject_max);
		finding(r, step, o, PR_ML_SUBJECT_LENGTH, idx, what.ptr);
	}
	if (slen && subject[slen - 1] == '.' &&
	    (slen < 3 || strcmp(subject + slen - 3, "...")))
		finding(r, step, o, PR_ML_SUBJECT_TRAILING_PERIOD, idx, NULL);

	for (l = body; l < body + tstart && *l;) {
		size_t n = strcspn(l, "\n");
		size_t k;

		for (k = 0; k < n && isspace((unsigned char)l[k]); k++)
			;
		if (k < n)
			text = true;
		/* URLs, quoted logs (indented or '>') and trailers may stay. */
		if (n > o->body_max && !memmem(l, n, "://", 3) && *l != ' ' &&
		    *l != '\t' && *l != '>' && !trailer_like(l, n)) {
			pr_buf_reset(&what);
			pr_buf_addf(&what,
				    "a body line has %zu characters, "
				    "over %u",
				    n, o->body_max);
			finding(r, step, o, PR_ML_BODY_LINE_LENGTH, idx,
				what.ptr);
			break;
		}
		l += n;
		if (*l)
			l++;
	}
	if (!text)
		finding(r, step, o, PR_ML_BODY_EMPTY, idx, NULL);
	if (strstr(body, "lkml.org/"))
		finding(r, step, o, PR_ML_LINK_LKML_ORG, idx, NULL);

	for (i = 0; i < tl->nr; i++) {
		const struct pr_trailer *t = &tl->items[i];
		size_t k;
		bool known = false;

		for (k = 0; k < PR_ARRAY_SIZE(known_trailers); k++)
			known |= !strcasecmp(t->key, known_trailers[k]);
		pr_buf_reset(&what);
		if (!known) {
			pr_buf_addf(&what, "trailer '%s'", t->key);
			finding(r, step, o, PR_ML_TRAILER_UNKNOWN, idx,
				what.ptr);
		} else if (!strcasecmp(t->key, "Fixes") &&
			   !fixes_ok(t->value)) {
			pr_buf_addf(&what, "'Fixes: %s'", t->value);
			finding(r, step, o, PR_ML_FIXES_FORMAT, idx, what.ptr);
		} else if (!strcasecmp(t->key, "Fixes") && repo &&
			   !fixes_known(repo, t->value, &what)) {
			finding(r, step, o, PR_ML_FIXES_UNKNOWN_COMMIT, idx,
				what.ptr);
		} else if (!strcasecmp(t->key, "Co-developed-by") &&
			   !pr_trailer_list_has(tl, "Signed-off-by",
						t->value)) {
			pr_buf_addf(&what, "'%s'", t->value);
			finding(r, step, o,
				PR_ML_CO_DEVELOPED_BY_WITHOUT_SIGNOFF, idx,
				what.ptr);
		}
	}
	if (has_key(tl, "Reported-by") && !has_key(tl, "Closes"))
		finding(r, step, o, PR_ML_REPORTED_BY_WITHOUT_CLOSES, idx,
			NULL);
	if (ci_contains(email, "noreply") || ci_contains(email, "no-reply")) {
		pr_buf_reset(&what);
		pr_buf_addf(&what, "author '%s'", email);
		finding(r, step, o, PR_ML_NOREPLY_AUTHOR, idx, what.ptr);
	}
	pr_buf_release(&what);
}

int pr_msg_lint_check(struct pr_report *r, const char *step,
		      const struct pr_msg_lint_opts *o,
		      const struct pr_version *v)
{
	git_repository *repo = NULL;
	size_t before = r->nr, i;
	int err = 0;

	if (o->repo && o->severity[PR_ML_FIXES_UNKNOWN_COMMIT]) {
		git_libgit2_init();
		if (git_repository_open(&repo, o->repo)) {
			const git_error *e = git_error_last();

			err = pr_error(PR_ECONFIG,
				       "msg-lint reference repository '%s': %s",
				       o->repo,
				       e ? e->message : "not a repository");
			goto done;
		}
	}
	for (i = 0; i < v->nr; i++)
		lint_patch(r, step, o, (int)i, v->patches[i], repo);
	if (r->nr == before)
		pr_report_add(r, step, "", PR_VERDICT_PASS, -1, NULL,
			      "%zu patch(es), every message rule passes",
			      v->nr);
done:
	if (o->repo && o->severity[PR_ML_FIXES_UNKNOWN_COMMIT]) {
		git_repository_free(repo);
		git_libgit2_shutdown();
	}
	return err;
}

static const char *const ml_severities[] = { "off", "warn", "fail", NULL };

/* One option per rule, its key the rule id (kept equal to rules[].id). */
#define ML_SEV(rule, id)                                             \
	{                                                            \
		id, PR_OPT_ENUM, NULL,                               \
			"severity of this rule: off, warn or fail",  \
			offsetof(struct pr_msg_lint_ctx, severity) + \
				(rule) * sizeof(char *),             \
			false, ml_severities                         \
	}

static const struct pr_option msg_lint_options[] = {
	{ "subject-max", PR_OPT_INT, "75", "longest subject",
	  offsetof(struct pr_msg_lint_ctx, subject_max), false, NULL },
	{ "body-max", PR_OPT_INT, "75", "longest body line",
	  offsetof(struct pr_msg_lint_ctx, body_max), false, NULL },
	ML_SEV(PR_ML_SIGNOFF_MISSING, "signoff-missing"),
	ML_SEV(PR_ML_SIGNOFF_AUTHOR_MISMATCH, "signoff-author-mismatch"),
	ML_SEV(PR_ML_SUBJECT_PREFIX, "subject-prefix"),
	ML_SEV(PR_ML_SUBJECT_LENGTH, "subject-length"),
	ML_SEV(PR_ML_SUBJECT_TRAILING_PERIOD, "subject-trailing-period"),
	ML_SEV(PR_ML_BODY_EMPTY, "body-empty"),
	ML_SEV(PR_ML_BODY_LINE_LENGTH, "body-line-length"),
	ML_SEV(PR_ML_FIXES_FORMAT, "fixes-format"),
	ML_SEV(PR_ML_LINK_LKML_ORG, "link-lkml-org"),
	ML_SEV(PR_ML_REPORTED_BY_WITHOUT_CLOSES, "reported-by-without-closes"),
	ML_SEV(PR_ML_TRAILER_UNKNOWN, "trailer-unknown"),
	ML_SEV(PR_ML_CO_DEVELOPED_BY_WITHOUT_SIGNOFF,
	       "co-developed-by-without-signoff"),
	ML_SEV(PR_ML_FIXUP_COMMIT, "fixup-commit"),
	ML_SEV(PR_ML_MERGE_COMMIT, "merge-commit"),
	ML_SEV(PR_ML_NOREPLY_AUTHOR, "noreply-author"),
	ML_SEV(PR_ML_FIXES_UNKNOWN_COMMIT, "fixes-unknown-commit"),
	{ "repo", PR_OPT_PATH, NULL,
	  "reference git repository that Fixes: commits must be in",
	  offsetof(struct pr_msg_lint_ctx, repo), false, NULL },
	PR_OPTIONS_END,
};

static int msg_lint_run(struct pr_instance *inst, struct pr_series *s,
			struct pr_version *v, struct pr_report *report)
{
	const struct pr_msg_lint_ctx *c = inst->ctx;
	struct pr_msg_lint_opts o;
	size_t i;
	int err;

	PR_UNUSED(s);
	pr_msg_lint_defaults(&o);
	if (c->subject_max > 0)
		o.subject_max = (unsigned)c->subject_max;
	if (c->body_max > 0)
		o.body_max = (unsigned)c->body_max;
	o.repo = c->repo;
	for (i = 0; i < PR_ML_NR; i++)
		if (c->severity[i]) {
			err = pr_msg_lint_set(&o, rules[i].id, c->severity[i]);
			if (err)
				return err;
		}
	return pr_msg_lint_check(report, inst->name, &o, v);
}

const struct pr_plugin_type pr_plugin_msg_lint = {
	.abi = PR_ABI_VERSION,
	.name = "msg-lint",
	.summary = "check commit messages against the kernel's rules",
	.kind = PR_PLUGIN_CHECK,
	.options = msg_lint_options,
	.ctx_size = sizeof(struct pr_msg_lint_ctx),
	.run = msg_lint_run,
};
