#include "pr.h"
#include "checks.h"

#include <ctype.h>

/*
 * mass-edit: recognises mechanical edits.  Each removed line is paired with
 * the added line at the same place of its -/+ block; for each pair we look
 * for the one substitution s -> t (all occurrences) that turns the old line
 * into the new one.  When a few such substitutions explain most changed
 * lines of a large change, the series is a mechanical mass edit.
 */

#define ME_MAX_SUBS 512 /* distinct substitutions tracked */
#define ME_MAX_LINE 1024 /* longer lines are only compared whole */
#define ME_MAX_PART 32 /* longest s or t searched for */
#define ME_TOP 3 /* "a few" substitutions */

struct me_sub {
	char *s, *t;
	uint64_t lines, files;
	size_t last_file;
	uint64_t inside, outside; /* occurrences inside a word or not */
};

struct me_state {
	struct me_sub subs[ME_MAX_SUBS];
	size_t nr;
	uint64_t pairs, whitespace;
	size_t file; /* 1-based index of the current file */
};

void pr_mass_edit_defaults(struct pr_mass_edit_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_share = 0.5;
	o->min_lines = 50;
	o->min_files = 20;
	o->severity = PR_VERDICT_FAIL;
}

/* Does replacing every s in old by t give new (of length nlen)? */
static bool subst_matches(const char *old, size_t olen, const char *s,
			  size_t slen, const char *t, size_t tlen,
			  const char *new, size_t nlen)
{
	size_t i = 0, j = 0;
	bool any = false;

	while (i < olen) {
		if (i + slen <= olen && !memcmp(old + i, s, slen)) {
			if (j + tlen > nlen || memcmp(new + j, t, tlen))
				return false;
			i += slen;
			j += tlen;
			any = true;
		} else {
			if (j >= nlen || old[i] != new[j])
				return false;
			i++;
			j++;
		}
	}
	return any && j == nlen;
}

/* Non-overlapping occurrences of s (slen > 0) in old. */
static size_t count_occurrences(const char *old, size_t olen, const char *s,
				size_t slen)
{
	size_t i = 0, c = 0;

	while (i + slen <= olen) {
		if (!memcmp(old + i, s, slen)) {
			c++;
			i += slen;
		} else {
			i++;
		}
	}
	return c;
}

int pr_mass_edit_substitution(char **s, char **t, const char *old,
			      const char *new)
{
	size_t olen = strlen(old), nlen = strlen(new);
	size_t pre = 0, suf = 0, k, b, kmax;

	*s = *t = NULL;
	if (olen == nlen && !memcmp(old, new, olen))
		return 0;
	while (pre < olen && pre < nlen && old[pre] == new[pre])
		pre++;
	while (suf < olen - pre && suf < nlen - pre &&
	       old[olen - 1 - suf] == new[nlen - 1 - suf])
		suf++;
	if (olen > ME_MAX_LINE || nlen > ME_MAX_LINE)
		goto middle;
	/*
	 * The substitution starts at or a little before the first difference.
	 * Try the shortest s first; with c occurrences of s, t's length is
	 * fixed by the line lengths, so each s has one t to verify.
	 */
	kmax = olen - pre - suf + 4;
	if (kmax > ME_MAX_PART)
		kmax = ME_MAX_PART;
	for (k = 1; k <= kmax; k++)
		for (b = 0; b <= pre && b < k && b <= 4; b++) {
			size_t st = pre - b, c;
			long long m;

			if (st + k > olen)
				continue;
			c = count_occurrences(old, olen, old + st, k);
			if (!c ||
			    ((long long)nlen - (long long)olen) % (long long)c)
				continue;
			m = (long long)k +
			    ((long long)nlen - (long long)olen) / (long long)c;
			if (m < 0 || st + (size_t)m > nlen)
				continue;
			if (subst_matches(old, olen, old + st, k, new + st,
					  (size_t)m, new, nlen)) {
				*s = pr_strndup(old + st, k);
				*t = pr_strndup(new + st, (size_t)m);
				return 1;
			}
		}
middle:
	/* One contiguous change: the middle parts are the substitution. */
	if (olen - pre - suf > 0 &&
	    subst_matches(old, olen, old + pre, olen - pre - suf, new + pre,
			  nlen - pre - suf, new, nlen)) {
		*s = pr_strndup(old + pre, olen - pre - suf);
		*t = pr_strndup(new + pre, nlen - pre - suf);
		return 1;
	}
	return 0;
}

static bool only_whitespace_differs(const char *a, const char *b)
{
	for (;;) {
		while (isspace((unsigned char)*a))
			a++;
		while (isspace((unsigned char)*b))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/* Count the occurrences of s in old that sit inside a word, and the rest. */
static void count_word_places(uint64_t *inside, uint64_t *outside,
			      const char *old, const char *s)
{
	size_t slen = strlen(s);
	const char *p = old;

	while (slen && (p = strstr(p, s))) {
		bool before = p > old &&
			      (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[slen]) || p[slen] == '_';

		if (before || after)
			(*inside)++;
		else
			(*outside)++;
		p += slen;
	}
}

static void record_pair(struct me_state *st, const char *old, const char *new)
{
	char *s = NULL, *t = NULL;
	size_t i;

	st->pairs++;
	if (only_whitespace_differs(old, new)) {
		st->whitespace++;
		return;
	}
	if (!pr_mass_edit_substitution(&s, &t, old, new))
		return;
	for (i = 0; i < st->nr; i++)
		if (!strcmp(st->subs[i].s, s) && !strcmp(st->subs[i].t, t))
			break;
	if (i == st->nr) {
		if (st->nr == ME_MAX_SUBS)
			goto done;
		st->subs[i].s = s;
		st->subs[i].t = t;
		s = t = NULL;
		st->nr++;
	}
	st->subs[i].lines++;
	if (st->subs[i].last_file != st->file) {
		st->subs[i].last_file = st->file;
		st->subs[i].files++;
	}
	count_word_places(&st->subs[i].inside, &st->subs[i].outside, old,
			  st->subs[i].s);
done:
	free(s);
	free(t);
}

/* Pair the lines of one -/+ block: n removed lines, then the added ones. */
static void flush_block(struct me_state *st, const char **minus, size_t nm,
			const char **plus, size_t np)
{
	size_t i;

	for (i = 0; i < nm && i < np; i++) {
		size_t ol = strcspn(minus[i], "\n");
		size_t nl = strcspn(plus[i], "\n");
		char *o = pr_strndup(minus[i] + 1, ol - 1);
		char *n = pr_strndup(plus[i] + 1, nl - 1);

		record_pair(st, o, n);
		free(o);
		free(n);
	}
}

/* Pair the lines of each -/+ block: its removed lines, then its added ones. */
static void scan_diff(struct me_state *st, const char *diff)
{
	const char **minus = NULL, **plus = NULL;
	size_t nm = 0, am = 0, np = 0, ap = 0;
	const char *l = diff;
	bool in_hunk = false;

	while (l && *l) {
		const char *eol = strchr(l, '\n');

		if (in_hunk && *l == '-' && np) {
			/* A '-' after '+' lines starts the next block. */
			flush_block(st, minus, nm, plus, np);
			nm = np = 0;
		}
		if (in_hunk && *l == '-') {
			PR_ALLOC_GROW(minus, nm + 1, am);
			minus[nm++] = l;
		} else if (in_hunk && *l == '+') {
			PR_ALLOC_GROW(plus, np + 1, ap);
			plus[np++] = l;
		} else {
			/* Flush before a new file is counted. */
			flush_block(st, minus, nm, plus, np);
			nm = np = 0;
			if (!strncmp(l, "diff --git ", 11)) {
				st->file++;
				in_hunk = false;
			} else if (!strncmp(l, "@@ ", 3)) {
				in_hunk = true;
			} else if (*l != ' ' && *l != '\\' && *l != '\n') {
				in_hunk = false;
			}
		}
		l = eol ? eol + 1 : NULL;
	}
	flush_block(st, minus, nm, plus, np);
	free(minus);
	free(plus);
}

static bool allowed(const struct pr_mass_edit_opts *o, const char *email)
{
	const char *const *a;

	for (a = o->allow_submitters; a && *a && email; a++)
		if (!strcasecmp(*a, email))
			return true;
	return false;
}

int pr_mass_edit_check(struct pr_report *r, const char *step,
		       const struct pr_mass_edit_opts *o,
		       const struct pr_version *v)
{
	struct me_state *st = pr_calloc(1, sizeof(*st));
	struct pr_size_figures f;
	struct pr_buf m = PR_BUF_INIT;
	size_t top[ME_TOP], ntop = 0, i, j;
	uint64_t explained = 0;
	const char *email = NULL;
	bool found = false;

	pr_size_figures_count(&f, v);
	for (i = 0; i < v->nr; i++)
		if (v->patches[i]->diff)
			scan_diff(st, v->patches[i]->diff);
	if (v->nr)
		email = v->patches[0]->author.email;

	/* The few substitutions explaining the most lines. */
	for (j = 0; j < ME_TOP; j++) {
		size_t best = st->nr;

		for (i = 0; i < st->nr; i++) {
			size_t k;
			bool taken = false;

			for (k = 0; k < ntop; k++)
				taken |= top[k] == i;
			if (!taken && st->subs[i].lines > 1 &&
			    (best == st->nr ||
			     st->subs[i].lines > st->subs[best].lines))
				best = i;
		}
		if (best == st->nr)
			break;
		top[ntop++] = best;
		explained += st->subs[best].lines;
	}

	if (st->pairs >= o->min_lines && f.files >= o->min_files &&
	    explained >= o->min_share * (double)st->pairs) {
		for (i = 0; i < ntop; i++) {
			const struct me_sub *sub = &st->subs[top[i]];

			if (i)
				pr_buf_adds(&m, "; ");
			pr_buf_addf(&m, "'%s' -> '%s'%s on ", sub->s, sub->t,
				    sub->inside > sub->outside ? " inside words"
							       : "");
			pr_buf_add_count(&m, sub->lines);
			pr_buf_adds(&m, " of ");
			pr_buf_add_count(&m, st->pairs);
			pr_buf_adds(&m, " changed lines, ");
			pr_buf_add_count(&m, sub->files);
			pr_buf_adds(&m, sub->files == 1 ? " file" : " files");
		}
		found = true;
	} else if (st->pairs >= o->min_lines && f.files >= o->min_files &&
		   st->whitespace >= o->min_share * (double)st->pairs) {
		pr_buf_adds(&m, "whitespace-only changes on ");
		pr_buf_add_count(&m, st->whitespace);
		pr_buf_adds(&m, " of ");
		pr_buf_add_count(&m, st->pairs);
		pr_buf_adds(&m, " changed lines");
		found = true;
	}

	if (found && allowed(o, email)) {
		pr_report_add(r, step, "allowed", PR_VERDICT_PASS, -1, NULL,
			      "mechanical edit by '%s', allowed by "
			      "allow-submitters: %s",
			      email, m.ptr);
	} else if (found) {
		pr_buf_adds(&m, " (");
		pr_buf_add_count(&m, f.files);
		pr_buf_adds(&m, " files in all); a mechanical edit is not "
				"reviewable by mail: send the script (e.g. a "
				"Coccinelle patch) or split it per subsystem");
		pr_report_add(r, step,
			      st->whitespace * 2 > st->pairs ? "whitespace"
							     : "substitution",
			      o->severity, -1, NULL, "%s", m.ptr);
	} else {
		pr_report_add(r, step, "", PR_VERDICT_PASS, -1, NULL,
			      "no mechanical mass edit found");
	}
	for (i = 0; i < st->nr; i++) {
		free(st->subs[i].s);
		free(st->subs[i].t);
	}
	free(st);
	pr_buf_release(&m);
	return 0;
}

static const char *const me_severities[] = { "warn", "fail", NULL };

static const struct pr_option mass_edit_options[] = {
	{ "min-lines", PR_OPT_INT, "50",
	  "changed line pairs needed before a finding",
	  offsetof(struct pr_mass_edit_ctx, min_lines), false, NULL },
	{ "min-files", PR_OPT_INT, "20",
	  "files (diff or diffstat) needed before a finding",
	  offsetof(struct pr_mass_edit_ctx, min_files), false, NULL },
	{ "min-share", PR_OPT_INT, "50",
	  "percent of changed lines a few substitutions must explain",
	  offsetof(struct pr_mass_edit_ctx, min_share), false, NULL },
	{ "severity", PR_OPT_ENUM, "fail", "verdict of a finding",
	  offsetof(struct pr_mass_edit_ctx, severity), false, me_severities },
	{ "allow-submitters", PR_OPT_LIST, NULL,
	  "author addresses allowed to send tree-wide edits",
	  offsetof(struct pr_mass_edit_ctx, allow_submitters), false, NULL },
	PR_OPTIONS_END,
};

static int mass_edit_run(struct pr_instance *inst, struct pr_series *s,
			 struct pr_version *v, struct pr_report *report)
{
	const struct pr_mass_edit_ctx *c = inst->ctx;
	struct pr_mass_edit_opts o;
	const char **allow = NULL;
	size_t i;
	int err;

	PR_UNUSED(s);
	pr_mass_edit_defaults(&o);
	/* The loader fills defaults; 0 still means "not set" here. */
	if (c->min_lines > 0)
		o.min_lines = (uint64_t)c->min_lines;
	if (c->min_files > 0)
		o.min_files = (uint64_t)c->min_files;
	if (c->min_share > 0)
		o.min_share = (double)c->min_share / 100.0;
	if (c->severity && !strcmp(c->severity, "warn"))
		o.severity = PR_VERDICT_WARN;
	allow = pr_calloc(c->allow_submitters.nr + 1, sizeof(*allow));
	for (i = 0; i < c->allow_submitters.nr; i++)
		allow[i] = c->allow_submitters.items[i];
	o.allow_submitters = allow;
	err = pr_mass_edit_check(report, inst->name, &o, v);
	free(allow);
	return err;
}

const struct pr_plugin_type pr_plugin_mass_edit = {
	.abi = PR_ABI_VERSION,
	.name = "mass-edit",
	.summary = "fail on mechanical mass edits and whitespace churn",
	.kind = PR_PLUGIN_CHECK,
	.options = mass_edit_options,
	.ctx_size = sizeof(struct pr_mass_edit_ctx),
	.run = mass_edit_run,
};
