#include "pr.h"

#include "am.h"
#include "diff.h"
#include "subject.h"
#include "trailer.h"

int pr_am_patch_from_mailinfo(struct pr_patch **out,
			      const struct pr_mailinfo *mi)
{
	struct pr_patch *p = pr_patch_new();
	size_t i;
	int err;

	pr_ident_set(&p->author, mi->name, mi->email);
	p->date = pr_strdup(mi->date);
	p->subject = pr_strdup(mi->subject);
	p->subject_raw = pr_strdup(mi->subject_raw);
	p->body = pr_strndup(mi->msg.ptr, mi->msg.len);
	p->diff = pr_strndup(mi->patch.ptr, mi->patch.len);
	p->message_id = mi->message_id[0] ? pr_strdup(mi->message_id) : NULL;
	p->in_reply_to = mi->in_reply_to[0] ? pr_strdup(mi->in_reply_to) : NULL;
	if (mi->nr_references) {
		p->references =
			pr_calloc(mi->nr_references, sizeof(*p->references));
		for (i = 0; i < mi->nr_references; i++)
			p->references[i] = pr_strdup(mi->references[i]);
		p->nr_references = p->alloc_references = mi->nr_references;
	}
	err = pr_subject_parse_prefix(&p->prefix, p->subject_raw);
	if (!err)
		err = pr_trailers_parse(&p->trailers, p->body, strlen(p->body));
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

static bool same_addr(const char *a, size_t alen, const char *b)
{
	return b && strlen(b) == alen && !strncasecmp(a, b, alen);
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

static void add_unique(struct pr_trailer_list *l, const struct pr_patch *p,
		       const struct pr_trailer *t)
{
	if (pr_trailer_list_has(&p->trailers, t->key, t->value) ||
	    pr_trailer_list_has(l, t->key, t->value))
		return;
	pr_trailer_list_add(l, t->key, t->value);
}

int pr_am_collect(struct pr_trailer_list *out, const struct pr_asm_version *v,
		  struct pr_patch *const *mails, size_t nr,
		  const struct pr_am_opts *opts)
{
	struct pr_trailer_list got = { 0 };
	size_t i, j, pass;
	int err = 0;

	/*
	 * As b4 does: first the trailers given to each patch itself, then
	 * those given to the cover letter, each in the order they came.
	 */
	for (pass = 0; pass < 2 * nr; pass++) {
		const struct pr_patch *r = mails[pass % nr];
		bool cover_pass = pass >= nr;
		long target;

		if (!pr_am_is_reply(r) || !r->body)
			continue;
		target = reply_target(v, r);
		if (target < 0 || cover_pass != ((size_t)target == v->nr))
			continue;
		pr_trailer_list_release(&got);
		err = pr_trailers_from_reply(&got, r->body, strlen(r->body));
		if (err)
			goto done;
		for (j = 0; j < got.nr; j++) {
			const struct pr_trailer *t = &got.items[j];
			const char *a;
			size_t alen;

			/* someone else's trailer needs a trusted sender */
			if (value_addr(t->value, &a, &alen) &&
			    !same_addr(a, alen, r->author.email) &&
			    !trusted(opts, r->author.email))
				continue;
			for (i = 0; i < v->nr; i++)
				if ((size_t)target == v->nr ||
				    (size_t)target == i)
					add_unique(&out[i], v->patches[i], t);
		}
	}
done:
	pr_trailer_list_release(&got);
	return err;
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
