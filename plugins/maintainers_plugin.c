#include "base/pr.h"

#include <ctype.h>
#include <sys/stat.h>

#include "engine/cfg.h"
#include "maintainers.h"
#include "model/model.h"
#include "plugins.h"

/*
 * The `maintainers` route plugin: the recipients get_maintainer.pl would
 * name for a version, added to the series with their reasons, split as
 * b4's auto-to-cc splits them (To: maintainers; Cc: reviewers, lists and
 * addresses written in patched files and signers of the commits that
 * Fixes: tags name), with caps, opt-outs and an instance-level subsystem
 * filter.
 *
 * MAINTAINERS is parsed on first use and kept in inst->state (a struct
 * pr_maint_cache); each run stats it and the tree's .mailmap and parses
 * again when either one's mtime, size or inode moved, so that a daemon
 * follows a `git pull` of the tree without a restart.  The opt-out file
 * is reread on the same test.
 *
 * Recipients whose reason begins "cc: in PR body" were chosen by the
 * submitter: they count against no cap and no opt-out drops them.
 */

#define PR_BODY_CC "cc: in PR body"
#define OPT_OUT_FILE_BYTES (1 * PR_MIB)

struct maint_ctx {
	char *kernel_tree;
	char *maintainers;
	char *to; /* "maintainers" or "none" */
	struct pr_strlist cc; /* roles mailed as Cc */
	int64_t max_lists, max_recipients;
	char *cap_action; /* "warn" or "fail" */
	struct pr_strlist include_subsystem, exclude_subsystem;
	struct pr_strlist opt_out;
	char *opt_out_file;
	char *opt_out_action; /* "fail" or "drop" */
};

/* What a file was when it was read: a change of any of these rereads it. */
struct file_id {
	bool present;
	int64_t mtime_sec, mtime_nsec;
	int64_t size;
	uint64_t ino;
};

struct pr_maint_cache {
	struct pr_maint *m;
	char *file, *tree, *mailmap;
	struct file_id id, mailmap_id;
	const char *log_prefix; /* the instance's, for "reloaded" */
};

struct maint_state {
	struct pr_maint_cache *cache;
	const struct pr_maint *m; /* the cache's, as of this run */
	struct file_id opt_out_id;
	struct pr_strlist opt_out; /* entries of opt-out-file */
};

static const char *const to_choices[] = { "maintainers", "none", NULL };
static const char *const cap_choices[] = { "warn", "fail", NULL };
static const char *const opt_out_choices[] = { "fail", "drop", NULL };

#define CTX(f) offsetof(struct maint_ctx, f)

static const struct pr_option maint_options[] = {
	{ "kernel-tree", PR_OPT_PATH, NULL,
	  "kernel tree top: its MAINTAINERS, .mailmap and directories",
	  CTX(kernel_tree), false, NULL },
	{ "maintainers", PR_OPT_PATH, NULL,
	  "a MAINTAINERS file (its directory is the tree unless kernel-tree "
	  "is set)",
	  CTX(maintainers), false, NULL },
	{ "to", PR_OPT_ENUM, "maintainers",
	  "who goes in To: (maintainers), or nobody (none)", CTX(to), false,
	  to_choices },
	{ "cc", PR_OPT_LIST, NULL,
	  "roles put in Cc: maintainers, reviewers, lists, files, fixes "
	  "(default: reviewers, lists, files, fixes, and maintainers when "
	  "to = none)",
	  CTX(cc), false, NULL },
	{ "max-lists", PR_OPT_INT, "0", "most mailing lists (0: no cap)",
	  CTX(max_lists), false, NULL },
	{ "max-recipients", PR_OPT_INT, "0",
	  "most recipients in all (0: no cap)", CTX(max_recipients), false,
	  NULL },
	{ "cap-action", PR_OPT_ENUM, "warn",
	  "verdict when a cap is passed: warn or fail", CTX(cap_action), false,
	  cap_choices },
	{ "include-subsystem", PR_OPT_LIST, NULL,
	  "refuse series that touch none of these sections",
	  CTX(include_subsystem), false, NULL },
	{ "exclude-subsystem", PR_OPT_LIST, NULL,
	  "refuse series that touch one of these sections",
	  CTX(exclude_subsystem), false, NULL },
	{ "opt-out", PR_OPT_LIST, NULL,
	  "a name or address that takes no bridged submissions", CTX(opt_out),
	  false, NULL },
	{ "opt-out-file", PR_OPT_PATH, NULL,
	  "a file of opt-out entries, one a line, # comments",
	  CTX(opt_out_file), false, NULL },
	{ "opt-out-action", PR_OPT_ENUM, "fail",
	  "fail the series, or drop the opted-out recipients",
	  CTX(opt_out_action), false, opt_out_choices },
	PR_OPTIONS_END,
};

/* The `cc` values, by kind. */
static const char *const cc_names[] = {
	[PR_MAINT_MAINTAINER] = "maintainers",
	[PR_MAINT_REVIEWER] = "reviewers",
	[PR_MAINT_LIST] = "lists",
	[PR_MAINT_FILE] = "files",
	[PR_MAINT_FIXES] = "fixes",
};

static int check_cc(const struct pr_instance *inst)
{
	const struct maint_ctx *c = inst->ctx;
	size_t i, k;

	for (i = 0; i < c->cc.nr; i++) {
		for (k = 0; k < PR_ARRAY_SIZE(cc_names); k++)
			if (!strcasecmp(c->cc.items[i], cc_names[k]))
				break;
		if (k == PR_ARRAY_SIZE(cc_names))
			return pr_error(PR_ECONFIG,
					"check '%s': cc '%s' is not one of "
					"maintainers, reviewers, lists, files, "
					"fixes",
					inst->name, c->cc.items[i]);
	}
	return 0;
}

static void file_id_get(struct file_id *id, const char *path)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (stat(path, &st))
		return;
	id->present = true;
	id->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	id->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	id->size = (int64_t)st.st_size;
	id->ino = (uint64_t)st.st_ino;
}

static bool file_id_same(const struct file_id *a, const struct file_id *b)
{
	return a->present == b->present && a->mtime_sec == b->mtime_sec &&
	       a->mtime_nsec == b->mtime_nsec && a->size == b->size &&
	       a->ino == b->ino;
}

static void state_free(struct maint_state *st)
{
	if (!st)
		return;
	pr_maint_cache_free(st->cache);
	pr_strlist_release(&st->opt_out);
	free(st);
}

int pr_maint_cache_new(struct pr_maint_cache **out, const char *kernel_tree,
		       const char *maintainers)
{
	struct pr_maint_cache *c;
	struct pr_buf b = PR_BUF_INIT;
	const char *slash;

	*out = NULL;
	if (!kernel_tree && !maintainers)
		return pr_error(PR_ECONFIG, "set kernel-tree or maintainers");
	c = pr_calloc(1, sizeof(*c));
	if (maintainers) {
		c->file = pr_strdup(maintainers);
	} else {
		pr_buf_addf(&b, "%s/MAINTAINERS", kernel_tree);
		c->file = pr_buf_detach(&b, NULL);
	}
	if (kernel_tree) {
		c->tree = pr_strdup(kernel_tree);
	} else {
		/* get_maintainer.pl runs from the tree top: the file's folder */
		slash = strrchr(maintainers, '/');
		c->tree = slash ? pr_memdup(maintainers,
					    (size_t)(slash - maintainers))
				: pr_strdup(".");
		if (!*c->tree) {
			free(c->tree);
			c->tree = pr_strdup("/");
		}
	}
	pr_buf_addf(&b, "%s/.mailmap", c->tree);
	c->mailmap = pr_buf_detach(&b, NULL);
	*out = c;
	return 0;
}

int pr_maint_cache_get(const struct pr_maint **out, struct pr_maint_cache *c,
		       const char *log_prefix)
{
	struct file_id id, mid;
	struct pr_maint *m = NULL;
	int err;

	*out = NULL;
	file_id_get(&id, c->file);
	file_id_get(&mid, c->mailmap);
	if (!c->m || !file_id_same(&id, &c->id) ||
	    !file_id_same(&mid, &c->mailmap_id)) {
		if ((err = pr_maint_load(&m, c->file, c->tree)))
			return err;
		/* a cache serves many series: JIT pays for itself */
		pr_maint_set_jit(m, true);
		if (c->m)
			pr_log_info(log_prefix, "'%s' changed: reloaded",
				    file_id_same(&id, &c->id) ? c->mailmap
							      : c->file);
		pr_maint_free(c->m);
		c->m = m;
		c->id = id;
		c->mailmap_id = mid;
	}
	*out = c->m;
	return 0;
}

const char *pr_maint_cache_file(const struct pr_maint_cache *c)
{
	return c->file;
}

void pr_maint_cache_free(struct pr_maint_cache *c)
{
	if (!c)
		return;
	pr_maint_free(c->m);
	free(c->file);
	free(c->tree);
	free(c->mailmap);
	free(c);
}

/* One opt-out entry a line; '#' at a line's start or after a blank. */
static int read_opt_out_file(struct pr_strlist *out, const char *path)
{
	struct pr_buf text = PR_BUF_INIT;
	char *p, *nl;
	int err;

	pr_buf_init(&text, OPT_OUT_FILE_BYTES);
	if ((err = pr_buf_read_file(&text, path))) {
		err = pr_error_wrap(err, "opt-out-file '%s'", path);
		goto done;
	}
	for (p = text.ptr; p && *p; p = nl ? nl + 1 : NULL) {
		char *hash, *e;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		for (hash = p; (hash = strchr(hash, '#')); hash++)
			if (hash == p || isspace((unsigned char)hash[-1])) {
				*hash = '\0';
				break;
			}
		while (isspace((unsigned char)*p))
			p++;
		e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (*p)
			pr_strlist_add(out, p);
	}
done:
	pr_buf_release(&text);
	return err;
}

/* The loaded state, parsed again when MAINTAINERS or opt-out-file moved. */
static int state_get(struct maint_state **out, struct pr_instance *inst)
{
	const struct maint_ctx *c = inst->ctx;
	struct maint_state *st = inst->state;
	struct file_id oid = { 0 };
	int err = 0;

	*out = NULL;
	if (!st) {
		st = pr_calloc(1, sizeof(*st));
		if (!(err = check_cc(inst)) &&
		    (err = pr_maint_cache_new(&st->cache, c->kernel_tree,
					      c->maintainers)))
			err = pr_error_wrap(err, "check '%s'", inst->name);
		if (err) {
			state_free(st);
			return err;
		}
		inst->state = st;
	}
	if ((err = pr_maint_cache_get(&st->m, st->cache, inst->prefix)))
		return pr_error_wrap(err, "check '%s'", inst->name);
	if (c->opt_out_file) {
		file_id_get(&oid, c->opt_out_file);
		if (!oid.present)
			return pr_error(PR_ENOENT,
					"check '%s': opt-out-file '%s' is "
					"missing",
					inst->name, c->opt_out_file);
		if (!file_id_same(&oid, &st->opt_out_id)) {
			struct pr_strlist l = { 0 };

			if ((err = read_opt_out_file(&l, c->opt_out_file))) {
				pr_strlist_release(&l);
				return pr_error_wrap(err, "check '%s'",
						     inst->name);
			}
			pr_strlist_release(&st->opt_out);
			st->opt_out = l;
			st->opt_out_id = oid;
		}
	}
	*out = st;
	return 0;
}

/*
 * The text get_maintainer.pl would read for v: each patch as a mail
 * (headers, message, diff), the cover letter first when there is one, so
 * that K: patterns see the same lines.
 */
static void version_texts(struct pr_buf **out, size_t *n,
			  const struct pr_version *v)
{
	size_t i, k = 0;

	*n = v->nr + (v->cover ? 1 : 0);
	*out = pr_calloc(*n ? *n : 1, sizeof(**out));
	if (v->cover) {
		pr_buf_init(&(*out)[k], PR_LIMIT_DIFF_BYTES);
		pr_buf_addf(&(*out)[k], "Subject: [PATCH 0/%zu] %s\n\n%s\n",
			    v->nr, v->cover->subject ? v->cover->subject : "",
			    v->cover->body ? v->cover->body : "");
		k++;
	}
	for (i = 0; i < v->nr; i++, k++) {
		const struct pr_patch *p = v->patches[i];
		struct pr_buf *b = &(*out)[k];

		pr_buf_init(b, PR_LIMIT_DIFF_BYTES);
		pr_buf_addf(b, "From: %s <%s>\nSubject: [PATCH] %s\n\n%s",
			    p->author.name ? p->author.name : "",
			    p->author.email ? p->author.email : "",
			    p->subject ? p->subject : "",
			    p->body ? p->body : "");
		if (b->len && b->ptr[b->len - 1] != '\n')
			pr_buf_addch(b, '\n');
		pr_buf_adds(b, "---\n");
		if (p->diff)
			pr_buf_adds(b, p->diff);
	}
}

static void texts_free(struct pr_buf *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pr_buf_release(&t[i]);
	free(t);
}

static int resolve(struct pr_maint_result *res, struct pr_instance *inst,
		   const struct pr_version *v)
{
	struct maint_state *st;
	struct pr_maint_opts o;
	struct pr_buf *texts = NULL;
	struct pr_maint_git *git;
	size_t n = 0;
	int err;

	if ((err = state_get(&st, inst)))
		return err;
	pr_maint_opts_init(&o);
	/* Fixes: tags: the repository is opened only when one is met */
	git = pr_maint_git_new(st->cache->tree);
	o.commit = pr_maint_git_commit;
	o.commit_payload = git;
	version_texts(&texts, &n, v);
	err = pr_maint_resolve(res, st->m, &o, texts, n);
	texts_free(texts, n);
	pr_maint_git_free(git);
	return err;
}

static int maint_sections(struct pr_instance *inst, const struct pr_version *v,
			  struct pr_strlist *out)
{
	struct pr_maint_result res = { 0 };
	size_t i;
	int err;

	err = resolve(&res, inst, v);
	for (i = 0; !err && i < res.nsections; i++)
		pr_strlist_add(out, res.sections[i]);
	pr_maint_result_release(&res);
	return err;
}

static bool list_has_nocase(const struct pr_strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcasecmp(l->items[i], s))
			return true;
	return false;
}

/* "a, b, c" of the sections, for messages. */
static void join_sections(struct pr_buf *b, const struct pr_maint_result *r)
{
	size_t i;

	for (i = 0; i < r->nsections; i++)
		pr_buf_addf(b, "%s%s", i ? ", " : "", r->sections[i]);
}

/* An opt-out entry: an address (bare or "Name <addr>") or a name. */
static bool opt_out_matches(const char *entry, const struct pr_maint_addr *a)
{
	const char *lt = strchr(entry, '<'), *gt;

	if (lt && (gt = strchr(lt, '>')))
		return (size_t)(gt - lt - 1) == strlen(a->email) &&
		       !strncasecmp(lt + 1, a->email, strlen(a->email));
	if (strchr(entry, '@'))
		return !strcasecmp(entry, a->email);
	return *a->name && !strcasecmp(entry, a->name);
}

static bool opted_out(const struct maint_ctx *c, const struct maint_state *st,
		      const struct pr_maint_addr *a)
{
	size_t i;

	for (i = 0; i < c->opt_out.nr; i++)
		if (opt_out_matches(c->opt_out.items[i], a))
			return true;
	for (i = 0; i < st->opt_out.nr; i++)
		if (opt_out_matches(st->opt_out.items[i], a))
			return true;
	return false;
}

static const char *const kind_names[] = {
	[PR_MAINT_MAINTAINER] = "maintainer",
	[PR_MAINT_REVIEWER] = "reviewer",
	[PR_MAINT_LIST] = "list",
	[PR_MAINT_FILE] = "files",
	[PR_MAINT_FIXES] = "blamed_fixes",
};

/* The reason recorded on the recipient: "maintainer:NETWORKING DRIVERS". */
static void reason_of(struct pr_buf *b, const struct pr_maint_addr *a)
{
	if (a->kind == PR_MAINT_FILE)
		pr_buf_adds(b, "in file");
	else if (a->kind == PR_MAINT_FIXES)
		pr_buf_adds(b, "blamed_fixes");
	else
		pr_buf_addf(b, "%s:%s", kind_names[a->kind], a->section);
}

/* "the maintainer of NETWORKING DRIVERS", for messages. */
static void who_of(struct pr_buf *b, const struct pr_maint_addr *a)
{
	pr_buf_adds(b, *a->name ? a->name : a->email);
	if (*a->name)
		pr_buf_addf(b, " <%s>", a->email);
	if (a->kind == PR_MAINT_FILE)
		pr_buf_adds(b, " (named in a patched file)");
	else if (a->kind == PR_MAINT_FIXES)
		pr_buf_adds(b, " (signer of a commit the series fixes)");
	else
		pr_buf_addf(b, " (%s of %s)", kind_names[a->kind], a->section);
}

/* -1: not mailed; else the role it is mailed as. */
static int role_of(const struct maint_ctx *c, const struct pr_maint_addr *a)
{
	bool to_maint = !c->to || !strcmp(c->to, "maintainers");

	if (a->kind == PR_MAINT_MAINTAINER && to_maint)
		return PR_RCPT_TO;
	if (c->cc.nr && !list_has_nocase(&c->cc, cc_names[a->kind]))
		return -1;
	return PR_RCPT_CC;
}

/* The instance's own subsystem filter: a verdict, not a silent skip. */
static bool takes(const struct maint_ctx *c, const struct pr_maint_result *r,
		  const char **why)
{
	size_t i;
	bool in = !c->include_subsystem.nr;

	for (i = 0; i < r->nsections; i++) {
		if (list_has_nocase(&c->exclude_subsystem, r->sections[i])) {
			*why = r->sections[i];
			return false;
		}
		if (list_has_nocase(&c->include_subsystem, r->sections[i]))
			in = true;
	}
	*why = NULL;
	return in;
}

static void check_cap(struct pr_report *report, const struct pr_instance *inst,
		      const char *rule, size_t have, int64_t cap,
		      enum pr_verdict verdict, const char *what)
{
	if (cap <= 0 || have <= (size_t)cap)
		return;
	pr_report_add(report, inst->name, rule, verdict, -1, NULL,
		      "%zu %s would be mailed, over %s = %lld: split the "
		      "series by subsystem, or send it by mail",
		      have, what, rule, (long long)cap);
}

static int maint_run(struct pr_instance *inst, struct pr_series *s,
		     struct pr_version *v, struct pr_report *report)
{
	const struct maint_ctx *c = inst->ctx;
	struct pr_maint_result res = { 0 };
	struct maint_state *st = NULL;
	struct pr_buf detail = PR_BUF_INIT, msg = PR_BUF_INIT;
	struct pr_buf reason = PR_BUF_INIT;
	enum pr_verdict cap_verdict = PR_VERDICT_WARN;
	bool drop = c->opt_out_action && !strcmp(c->opt_out_action, "drop");
	size_t i, nto = 0, ncc = 0, nlists = 0, nall = 0;
	const char *why;
	int err;

	if (c->cap_action && !strcmp(c->cap_action, "fail"))
		cap_verdict = PR_VERDICT_FAIL;
	if ((err = resolve(&res, inst, v)) || (err = state_get(&st, inst)))
		goto done;
	if (!takes(c, &res, &why)) {
		join_sections(&msg, &res);
		if (why)
			pr_report_add(report, inst->name, "exclude-subsystem",
				      PR_VERDICT_FAIL, -1, NULL,
				      "the series touches %s, which this "
				      "bridge does not take (it touches: "
				      "%s): send it by mail",
				      why, msg.ptr);
		else
			pr_report_add(report, inst->name, "include-subsystem",
				      PR_VERDICT_FAIL, -1, NULL,
				      "the series touches none of the "
				      "sections this bridge takes (it "
				      "touches: %s): send it by mail",
				      msg.ptr);
		goto done;
	}
	for (i = 0; i < res.nr; i++) {
		const struct pr_maint_addr *a = &res.items[i];
		const struct pr_recipient *had;
		int role = role_of(c, a);

		if (role < 0)
			continue;
		had = s ? pr_recipient_list_find(&s->recipients, a->email)
			: NULL;
		/* the submitter asked for these: no opt-out applies */
		if (opted_out(c, st, a) &&
		    !(had &&
		      !strncmp(had->reason, PR_BODY_CC, strlen(PR_BODY_CC)))) {
			pr_buf_reset(&msg);
			who_of(&msg, a);
			if (drop) {
				pr_report_add(report, inst->name, "opt-out",
					      PR_VERDICT_WARN, -1, NULL,
					      "dropped %s: opted out of "
					      "bridged submissions; mail "
					      "them yourself if they should "
					      "see this series",
					      msg.ptr);
			} else {
				pr_report_add(
					report, inst->name, "opt-out",
					PR_VERDICT_FAIL, -1, NULL,
					"%s takes no bridged submissions: "
					"send this series by mail instead "
					"(git format-patch, then git "
					"send-email --to='%s')",
					msg.ptr, a->email);
			}
			continue;
		}
		pr_buf_reset(&reason);
		reason_of(&reason, a);
		if (s)
			pr_recipient_list_add(&s->recipients, a->name, a->email,
					      (enum pr_recipient_role)role,
					      reason.ptr);
		pr_buf_addf(&detail, "%s: %s (%s)\n",
			    role == PR_RCPT_TO ? "To" : "Cc", a->line,
			    reason.ptr);
		if (role == PR_RCPT_TO)
			nto++;
		else
			ncc++;
	}
	/* caps count what the series holds, less what its submitter chose */
	for (i = 0; s && i < s->recipients.nr; i++) {
		const struct pr_recipient *r = &s->recipients.items[i];

		if (!strncmp(r->reason, PR_BODY_CC, strlen(PR_BODY_CC)))
			continue;
		nall++;
		if (strstr(r->reason, "list:"))
			nlists++;
	}
	if (!s) {
		nall = nto + ncc;
		for (i = 0; i < res.nr; i++)
			nlists += res.items[i].kind == PR_MAINT_LIST &&
				  role_of(c, &res.items[i]) >= 0 &&
				  !opted_out(c, st, &res.items[i]);
	}
	check_cap(report, inst, "max-lists", nlists, c->max_lists, cap_verdict,
		  "mailing lists");
	check_cap(report, inst, "max-recipients", nall, c->max_recipients,
		  cap_verdict, "recipients");
	pr_buf_rtrim(&detail);
	pr_report_add(report, inst->name, "recipients", PR_VERDICT_PASS, -1,
		      detail.len ? detail.ptr : NULL,
		      "%zu in To:, %zu in Cc: from MAINTAINERS", nto, ncc);
done:
	pr_maint_result_release(&res);
	pr_buf_release(&detail);
	pr_buf_release(&msg);
	pr_buf_release(&reason);
	return err;
}

static int maint_open(struct pr_instance *inst)
{
	struct maint_state *st;

	return state_get(&st, inst);
}

static void maint_close(struct pr_instance *inst)
{
	state_free(inst->state);
	inst->state = NULL;
}

const struct pr_plugin_type pr_plugin_maintainers = {
	.abi = PR_ABI_VERSION,
	.name = "maintainers",
	.summary = "add the recipients get_maintainer.pl names, with reasons",
	.kind = PR_PLUGIN_ROUTE,
	.options = maint_options,
	.ctx_size = sizeof(struct maint_ctx),
	.open = maint_open,
	.run = maint_run,
	.close = maint_close,
	.sections = maint_sections,
};
