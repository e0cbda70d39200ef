#include "base/pr.h"

#include "mail/am.h"
#include "git/diff.h"
#include "mail/mail.h"
#include "model/subject.h"
#include "model/trailer.h"

int pr_am_patch_from_mailinfo(struct pr_patch **out,
			      const struct pr_mailinfo *mi)
{
	struct pr_patch *p = pr_patch_new();
	size_t i;
	int err;

	pr_ident_set(&p->author, mi->name, mi->email);
	p->date = pr_strdup(mi->date);
	/* an unreadable date stays unknown (0) */
	if (pr_mail_parse_date(&p->time, p->date) < 0) {
		p->time = 0;
		pr_error_clear();
	}
	p->subject = pr_strdup(mi->subject);
	p->subject_raw = pr_strdup(mi->subject_raw);
	p->body = pr_strndup(mi->msg.ptr, mi->msg.len);
	p->diff = pr_strndup(mi->patch.ptr, mi->patch.len);
	p->message_id = mi->message_id[0] ? pr_strdup(mi->message_id) : NULL;
	p->in_reply_to = mi->in_reply_to[0] ? pr_strdup(mi->in_reply_to) : NULL;
	p->sender = mi->sender && mi->sender[0] ? pr_strdup(mi->sender) : NULL;
	if (mi->nr_references) {
		p->references =
			pr_calloc(mi->nr_references, sizeof(*p->references));
		for (i = 0; i < mi->nr_references; i++)
			p->references[i] = pr_strdup(mi->references[i]);
		p->nr_references = p->alloc_references = mi->nr_references;
	}
	/* what pr_mailinfo_parse read from the same text is not read again */
	p->prefix = mi->prefix;
	p->prefix.list = mi->prefix.list ? pr_strdup(mi->prefix.list) : NULL;
	err = 0;
	if (mi->kind != PR_MAIL_REPLY) {
		for (i = 0; i < mi->trailers.nr; i++)
			pr_trailer_list_add(&p->trailers,
					    mi->trailers.items[i].key,
					    mi->trailers.items[i].value);
	} else {
		/* mailinfo kept only a reply's trailers outside quotes */
		err = pr_trailers_parse(&p->trailers, p->body, strlen(p->body));
	}
	/* a resend is known by its patch-ids; no diff, no patch-id */
	if (!err && p->diff[0] &&
	    pr_patch_id(p->patch_id, p->diff, strlen(p->diff), true)) {
		p->patch_id[0] = '\0';
		pr_error_clear();
	}
	if (err) {
		pr_patch_free(p);
		p = NULL;
	}
	*out = p;
	return err;
}

void pr_am_bare_diff(struct pr_patch *p)
{
	char *d = p->diff, *start, *sig, *q;

	if (!d || !*d)
		return;
	start = !strncmp(d, "diff --git ", 11) ? d : strstr(d, "\ndiff --git ");
	if (!start)
		return;
	if (start != d)
		start++;
	/* the stat is what sits between the "---" line and a blank line */
	if (!p->diffstat && !strncmp(d, "---\n", 4) && start - d > 5 &&
	    start[-1] == '\n' && start[-2] == '\n')
		p->diffstat = pr_strndup(d + 4, (size_t)(start - 1 - (d + 4)));
	/* the signature: the last "-- " line with no hunk after it */
	for (sig = NULL, q = start; (q = strstr(q, "\n-- \n")); q++)
		sig = q + 1;
	if (sig && (strstr(sig, "\n@@ ") || strstr(sig, "\ndiff --git ")))
		sig = NULL;
	if (sig) {
		/* format-patch --base puts its lines before the signature */
		q = strstr(start, "\nbase-commit: ");
		if (q && q < sig) {
			while (q > start && q[-1] == '\n')
				q--;
			sig = q + 1;
		}
		*sig = '\0';
	}
	memmove(d, start, strlen(start) + 1);
}

int pr_am_patch_parse(struct pr_patch **out, const char *data, size_t len)
{
	struct pr_mailinfo mi;
	int err;

	*out = NULL;
	pr_mailinfo_init(&mi);
	if (!(err = pr_mailinfo_parse(&mi, data, len)))
		err = pr_am_patch_from_mailinfo(out, &mi);
	pr_mailinfo_release(&mi);
	return err;
}

size_t pr_am_series_mails(struct pr_patch **out, struct pr_patch *const *mails,
			  size_t nr)
{
	size_t i, n = 0;

	for (i = 0; i < nr; i++) {
		const struct pr_patch *p = mails[i];

		if (pr_am_is_reply(p))
			continue;
		if ((p->diff && p->diff[0]) ||
		    (!p->prefix.index && p->prefix.total))
			out[n++] = mails[i];
	}
	return n;
}

bool pr_am_is_reply(const struct pr_patch *p)
{
	if (pr_subject_is_reply(p->subject_raw))
		return true;
	return (!p->diff || !p->diff[0]) && p->in_reply_to && !p->prefix.total;
}

/* The address a trailer value names: "<addr>", else a word with '@'. */
static bool value_addr(const char *v, const char **addr, size_t *len)
{
	const char *lt = strrchr(v, '<'), *gt;

	if (lt && (gt = strchr(lt, '>'))) {
		*addr = lt + 1;
		*len = (size_t)(gt - lt - 1);
		return true;
	}
	if (strchr(v, '@') && !strchr(v, ' ')) {
		*addr = v;
		*len = strlen(v);
		return true;
	}
	return false;
}

/* The local part of a[0..n) without a "+extension", and its domain. */
static void addr_parts(const char *a, size_t n, size_t *local, const char **dom,
		       size_t *dlen)
{
	const char *at = memchr(a, '@', n), *plus;

	*local = at ? (size_t)(at - a) : n;
	*dom = at ? at + 1 : a + n;
	*dlen = at ? n - *local - 1 : 0;
	plus = memchr(a, '+', *local);
	if (plus)
		*local = (size_t)(plus - a);
}

static size_t count_dots(const char *s, size_t n)
{
	size_t i, dots = 0;

	for (i = 0; i < n; i++)
		dots += s[i] == '.';
	return dots;
}

/* Is d[0..n) the domain e[0..m) one label deeper ("mail.example.org"). */
static bool subdomain(const char *d, size_t n, const char *e, size_t m)
{
	return n > m + 1 && d[n - m - 1] == '.' &&
	       !strncasecmp(d + n - m, e, m) &&
	       count_dots(d, n) == count_dots(e, m) + 1;
}

/*
 * Is the address a[0..alen) the sender's address b, as b4 0.12 compares
 * them: equal in any case, or equal without a "+extension" of the local
 * part, or the same local part with one domain a subdomain one label
 * deeper than the other (foo@linux.intel.com is foo@intel.com).
 */
static bool same_addr(const char *a, size_t alen, const char *b)
{
	size_t al, bl, adl, bdl, blen = b ? strlen(b) : 0;
	const char *ad, *bd;

	if (!b)
		return false;
	if (blen == alen && !strncasecmp(a, b, alen))
		return true;
	if (!memchr(a, '@', alen) || !strchr(b, '@'))
		return false;
	addr_parts(a, alen, &al, &ad, &adl);
	addr_parts(b, blen, &bl, &bd, &bdl);
	if (al != bl || strncasecmp(a, b, al))
		return false;
	if (adl == bdl && !strncasecmp(ad, bd, adl))
		return true;
	return subdomain(ad, adl, bd, bdl) || subdomain(bd, bdl, ad, adl);
}

static bool trusted(const struct pr_am_opts *opts, const char *email)
{
	size_t i;

	for (i = 0; opts && email && i < opts->nr_trusted; i++)
		if (!strcasecmp(opts->trusted[i], email))
			return true;
	return false;
}

/*
 * Which patch of v the reply r answers: an index, v->nr for the cover
 * letter (all patches), or -1 when none.
 */
static long reply_target(const struct pr_asm_version *v,
			 const struct pr_patch *r)
{
	size_t i, k = r->nr_references + 1;

	while (k--) {
		const char *id = k == r->nr_references ? r->in_reply_to
						       : r->references[k];

		if (!id)
			continue;
		if (v->cover && v->cover->message_id &&
		    !strcmp(id, v->cover->message_id))
			return (long)v->nr;
		for (i = 0; i < v->nr; i++)
			if (v->patches[i]->message_id &&
			    !strcmp(id, v->patches[i]->message_id))
				return (long)i;
	}
	return -1;
}

/* Does l hold t, key and value compared in any case (ASCII), as b4 does. */
static bool has_trailer(const struct pr_trailer_list *l,
			const struct pr_trailer *t)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcasecmp(l->items[i].key, t->key) &&
		    !strcasecmp(l->items[i].value, t->value))
			return true;
	return false;
}

static void add_unique(struct pr_trailer_list *l, const struct pr_patch *p,
		       const struct pr_trailer *t)
{
	if (has_trailer(&p->trailers, t) || has_trailer(l, t))
		return;
	pr_trailer_list_add(l, t->key, t->value);
}

static int cmp_mail_id(const void *a, const void *b)
{
	const struct pr_patch *const *x = a, *const *y = b;

	return strcmp((*x)->message_id, (*y)->message_id);
}

static int cmp_key_id(const void *key, const void *b)
{
	const struct pr_patch *const *y = b;

	return strcmp(key, (*y)->message_id);
}

/*
 * The mail of another version the reply r answers: the nearest mail of
 * its thread that is no reply, looked up in idx[0..n) (the mails that
 * are no replies and have a Message-ID, sorted by it), or NULL.
 */
static const struct pr_patch *other_root(struct pr_patch *const *idx, size_t n,
					 const struct pr_patch *r)
{
	size_t k = r->nr_references + 1;

	while (k--) {
		const char *id = k == r->nr_references ? r->in_reply_to
						       : r->references[k];
		struct pr_patch *const *hit;

		if (id && n &&
		    (hit = bsearch(id, idx, n, sizeof(*idx), cmp_key_id)))
			return *hit;
	}
	return NULL;
}

/* Is m the cover letter of the version a partial re-roll v completes. */
static bool prev_cover(const struct pr_asm_version *v, const struct pr_patch *m)
{
	return m && v->partial_reroll && !v->cover && v->supersedes &&
	       m->message_id && !strcmp(m->message_id, v->supersedes) &&
	       !(m->diff && m->diff[0]);
}

/*
 * b4's rule, for every caller: does a trailer given to `target` (an index
 * of the version, nr for its cover letter, -1 for a mail of another
 * version: a patch whose patch-id is other_pid, or the cover letter of
 * the version a partial re-roll completes when prev) count for patch p,
 * index i of the nr of a version numbered `number`, in `pass` (below).
 */
static bool rule_counts(long target, size_t nr, const char *other_pid,
			bool prev, const struct pr_patch *p, int number,
			size_t i, int pass)
{
	if (pass == 0)
		return target >= 0 && (size_t)target == i;
	if (pass == 2 && target >= 0)
		return (size_t)target == nr;
	/* the earlier cover's trailers: only the patches reused from it */
	if (pass == 2)
		return prev && p->prefix.version != number;
	return target < 0 && other_pid && other_pid[0] && p->patch_id[0] &&
	       !strcmp(other_pid, p->patch_id);
}

/* Does the reply r count for patch i of v in pass (see below). */
static bool counts_for(const struct pr_asm_version *v, long target,
		       const struct pr_patch *other, size_t i, int pass)
{
	return rule_counts(target, v->nr, other ? other->patch_id : NULL,
			   prev_cover(v, other), v->patches[i], v->number, i,
			   pass);
}

/* The trailers of reply r, checked, into out[] for the patches of v. */
static int collect_reply(struct pr_trailer_list *out,
			 const struct pr_asm_version *v,
			 const struct pr_patch *r, long target,
			 const struct pr_patch *other, int pass,
			 const struct pr_am_opts *opts,
			 struct pr_trailer_list *got)
{
	size_t i, j;
	int err;

	pr_trailer_list_release(got);
	err = pr_trailers_from_reply(got, r->body, strlen(r->body));
	for (j = 0; !err && j < got->nr; j++) {
		const struct pr_trailer *t = &got->items[j];
		const char *a;
		size_t alen;

		/*
		 * As b4 applies them: a Cc: in a reply is mail metadata, and a
		 * URL (Link: and the like) is for the maintainer to add, not
		 * a reviewer
		 */
		if (!strcasecmp(t->key, "Cc") || strstr(t->value, "http://") ||
		    strstr(t->value, "https://"))
			continue;
		/* someone else's trailer needs a trusted sender */
		if (value_addr(t->value, &a, &alen) &&
		    !same_addr(a, alen, r->author.email) &&
		    !trusted(opts, r->author.email))
			continue;
		for (i = 0; i < v->nr; i++)
			if (counts_for(v, target, other, i, pass))
				add_unique(&out[i], v->patches[i], t);
	}
	return err;
}

int pr_am_collect(struct pr_trailer_list *out, const struct pr_asm_version *v,
		  struct pr_patch *const *mails, size_t nr,
		  const struct pr_am_opts *opts)
{
	struct pr_trailer_list got = { 0 };
	struct pr_patch **idx = pr_calloc(nr ? nr : 1, sizeof(*idx));
	struct pick {
		long target; /* reply_target() */
		const struct pr_patch *other; /* other_root() when none */
		int pass; /* below; -1: gives nothing to v */
	} *pick = pr_calloc(nr ? nr : 1, sizeof(*pick));
	size_t m, n = 0;
	int pass, err = 0;

	for (m = 0; m < nr; m++)
		if (mails[m]->message_id && !pr_am_is_reply(mails[m]))
			idx[n++] = mails[m];
	qsort(idx, n, sizeof(*idx), cmp_mail_id);
	for (m = 0; m < nr; m++) {
		const struct pr_patch *r = mails[m];
		struct pick *k = &pick[m];

		k->pass = -1;
		if (!pr_am_is_reply(r) || !r->body)
			continue;
		k->target = reply_target(v, r);
		if (k->target >= 0) {
			k->pass = (size_t)k->target == v->nr ? 2 : 0;
			continue;
		}
		k->other = other_root(idx, n, r);
		if (k->other)
			k->pass = prev_cover(v, k->other) ? 2 : 1;
	}
	/*
	 * As b4 does, in three passes over the replies, each in the order
	 * they came: (0) the trailers given to each patch itself, (1) those
	 * given to the same change (git patch-id) in another version,
	 * (2) those given to the cover letter.
	 */
	for (pass = 0; pass < 3; pass++) {
		for (m = 0; m < nr; m++) {
			const struct pr_patch *r = mails[m];
			const struct pick *k = &pick[m];

			if (k->pass != pass)
				continue;
			err = collect_reply(out, v, r, k->target, k->other,
					    pass, opts, &got);
			if (err)
				goto done;
		}
	}
done:
	pr_trailer_list_release(&got);
	free(pick);
	free(idx);
	return err;
}

int pr_am_apply(struct pr_trailer_list *out, const struct pr_version *v,
		const struct pr_am_given *given, size_t nr)
{
	size_t g, i;
	int pass;

	/* the passes of pr_am_collect, each in the order given */
	for (pass = 0; pass < 3; pass++) {
		for (g = 0; g < nr; g++) {
			const struct pr_am_given *x = &given[g];
			bool own = x->version == v->number;
			long target = !own	   ? -1
				      : x->idx < 0 ? (long)v->nr
						   : x->idx;
			struct pr_trailer t = { (char *)x->key,
						(char *)x->value };

			if ((target < 0		       ? 1
			     : (size_t)target == v->nr ? 2
						       : 0) != pass)
				continue;
			for (i = 0; i < v->nr; i++)
				if (rule_counts(target, v->nr,
						own ? NULL : x->patch_id, false,
						v->patches[i], v->number, i,
						pass))
					add_unique(&out[i], v->patches[i], &t);
		}
	}
	return 0;
}

/* A header value must stay one line: no CR or LF may reach the output. */
static int one_line(const char *what, const char *v)
{
	if (v && strpbrk(v, "\r\n"))
		return pr_error(PR_EINVAL, "am: %s '%s' holds a line break",
				what, v);
	return 0;
}

/* From: as git format-patch writes it, the name quoted when it must be. */
static int add_from(struct pr_buf *out, const struct pr_ident *id)
{
	const char *name = id->name ? id->name : "", *c;
	const char *email = id->email ? id->email : "";
	int err;

	if (!*name)
		return pr_buf_addf(out, "From: <%s>\n", email);
	if (!strpbrk(name, "()<>[]:;@\\,.\""))
		return pr_buf_addf(out, "From: %s <%s>\n", name, email);
	err = pr_buf_adds(out, "From: \"");
	for (c = name; !err && *c; c++) {
		if (*c == '"' || *c == '\\')
			err = pr_buf_addch(out, '\\');
		if (!err)
			err = pr_buf_addch(out, *c);
	}
	if (!err)
		err = pr_buf_addf(out, "\" <%s>\n", email);
	return err;
}

int pr_am_write_patch(struct pr_buf *out, const struct pr_patch *p, int n,
		      int total, const struct pr_trailer_list *extra)
{
	struct pr_buf body = PR_BUF_INIT;
	const char *diff = p->diff ? p->diff : "";
	size_t i, start = out->len;
	int err;

	err = one_line("author name", p->author.name);
	if (!err)
		err = one_line("author address", p->author.email);
	if (!err)
		err = one_line("date", p->date);
	if (!err)
		err = one_line("subject", p->subject);
	if (!err)
		err = pr_buf_adds(&body, p->body ? p->body : "");
	if (err)
		goto done;
	pr_buf_rtrim(&body);
	if (extra && extra->nr) {
		/* git's trailer block is the last paragraph when it parses */
		if (body.len)
			err = pr_buf_adds(&body,
					  p->trailers.nr ? "\n" : "\n\n");
		for (i = 0; !err && i < extra->nr; i++)
			err = pr_buf_addf(&body, "%s: %s\n",
					  extra->items[i].key,
					  extra->items[i].value);
	} else if (body.len) {
		err = pr_buf_addch(&body, '\n');
	}
	if (err)
		goto done;
	err = pr_buf_adds(
		out,
		"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n");
	if (!err)
		err = add_from(out, &p->author);
	/* without a Date: header git am uses the current time */
	if (!err && p->date && *p->date)
		err = pr_buf_addf(out, "Date: %s\n", p->date);
	if (!err)
		err = pr_buf_addf(out,
				  "Subject: [PATCH %d/%d] %s\n"
				  "MIME-Version: 1.0\n"
				  "Content-Type: text/plain; charset=UTF-8\n"
				  "Content-Transfer-Encoding: 8bit\n"
				  "\n",
				  n, total, p->subject ? p->subject : "");
	if (!err)
		err = pr_buf_addbuf(out, &body);
	if (!err && strncmp(diff, "---", 3))
		err = pr_buf_adds(out, "---\n");
	if (!err)
		err = pr_buf_adds(out, diff);
	if (!err && out->len && out->ptr[out->len - 1] != '\n')
		err = pr_buf_addch(out, '\n');
	/* one blank line ends the message in the mbox */
	if (!err && (out->len < 2 || out->ptr[out->len - 2] != '\n'))
		err = pr_buf_addch(out, '\n');
done:
	/* no half message is left behind */
	if (err)
		pr_buf_setlen(out, start);
	pr_buf_release(&body);
	return err;
}

/* The "base-commit: X" line of text, X 40 hex digits, into out. */
static bool find_base_line(char out[41], const char *text)
{
	static const char key[] = "base-commit: ";
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, sizeof(key) - 1)) {
			const char *h = p + sizeof(key) - 1;
			size_t n = strspn(h, "0123456789abcdef");

			if (n == 40 && (!h[40] || h[40] == '\n' ||
					h[40] == '\r' || h[40] == ' ')) {
				memcpy(out, h, 40);
				out[40] = '\0';
				return true;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

void pr_am_base_commit(char out[41], const struct pr_version *v)
{
	out[0] = '\0';
	if (v->base_commit[0]) {
		memcpy(out, v->base_commit, 41);
		return;
	}
	if (v->cover && v->cover->body && find_base_line(out, v->cover->body))
		return;
	if (v->nr && v->patches[0]->diff)
		find_base_line(out, v->patches[0]->diff);
}
