#include "base/pr.h"

#include <ctype.h>

#include "engine/idmap.h"
#include "engine/notes.h"
#include "engine/store.h"
#include "mail/assemble.h"
#include "mailsrc.h"

/*
 * A series' key across polls (see mailsrc.h, pr_mailsrc_rekey): a v2 that
 * is not threaded into v1 (git send-email's default for a new version) is
 * one series with v1 when both come in one poll, by the assembler's
 * identity rules; when v1 came in an earlier poll, the store remembers
 * what those rules need: the mails of each stored version (the engine's
 * mail table) and, per source, "src:SUBMITTER\x1fSUBJECT" notes.
 */

/* Keep `key` for the rest of the poll; *out points at the copy. */
static void keep(struct pr_mailsrc_rekey *r, const char **out, const char *key)
{
	pr_strlist_add(&r->keys, key);
	*out = r->keys.items[r->keys.nr - 1];
}

/*
 * The key of the stored series of this source that has the mail `id`, in
 * *out, and its id in *series (when not NULL); both unchanged when there
 * is none.
 */
static int stored_key(struct pr_mailsrc_rekey *r, const char **out,
		      int64_t *series, const char *id)
{
	struct pr_idmap_mail m;
	struct pr_buf origin = PR_BUF_INIT, key = PR_BUF_INIT;
	int err;

	memset(&m, 0, sizeof(m));
	if (!id || !*id)
		return 0;
	if (!(err = pr_idmap_mail_find(&m, r->store, id)) &&
	    !(err = pr_idmap_series(&origin, &key, r->store, m.series_id)) &&
	    !strcmp(origin.ptr, r->origin)) {
		keep(r, out, key.ptr);
		if (series)
			*series = m.series_id;
	}
	pr_idmap_mail_release(&m);
	pr_buf_release(&origin);
	pr_buf_release(&key);
	return err == PR_ENOENT ? 0 : err;
}

/*
 * The note name of a version's submitter and subject, as the assembler
 * compares versions: its cover letter's when it has one with a subject of
 * its own, else its first patch's; false when it has neither.
 */
static bool src_name(struct pr_buf *out, const struct pr_asm_version *v)
{
	const struct pr_patch *p = v->nr ? v->patches[0] : NULL;
	const char *who;
	size_t i, start;

	if (v->cover && v->cover->subject &&
	    strcmp(v->cover->subject, "*** SUBJECT HERE ***"))
		p = v->cover;
	who = p ? pr_assemble_submitter(p) : "";
	if (!*who || !p->subject || !*p->subject)
		return false;
	pr_buf_reset(out);
	pr_buf_adds(out, "src:");
	start = out->len;
	pr_buf_adds(out, who);
	/* the submitter compares in any case */
	for (i = start; i < out->len; i++)
		out->ptr[i] = (char)tolower((unsigned char)out->ptr[i]);
	return !pr_buf_addf(out, "\x1f%s", p->subject);
}

/* The stored series of this source under `key`, in *id; 0 when none. */
static int series_of(int64_t *id, struct pr_mailsrc_rekey *r, const char *key)
{
	int err = pr_store_series_find(id, r->store, r->origin, key);

	if (err == PR_ENOENT)
		*id = 0;
	return err == PR_ENOENT ? 0 : err;
}

/* Is a mail of v one the store holds for series `id` (read again)? */
static int any_stored(bool *out, struct pr_mailsrc_rekey *r,
		      const struct pr_asm_version *v, int64_t id)
{
	struct pr_idmap_mail m;
	size_t i;
	int err = 0;

	*out = false;
	for (i = 0; i <= v->nr && !*out && !err; i++) {
		const struct pr_patch *p = i ? v->patches[i - 1] : v->cover;

		if (!p || !p->message_id)
			continue;
		memset(&m, 0, sizeof(m));
		err = pr_idmap_mail_find(&m, r->store, p->message_id);
		*out = !err && m.series_id == id;
		pr_idmap_mail_release(&m);
		if (err == PR_ENOENT)
			err = 0;
	}
	return err;
}

/*
 * May v, in the thread of the stored series `key` (id), be a version of
 * it?  As in one poll: a later version, an unlabeled one from the same
 * submitter under the same subject, or a version with mails of it (read
 * again, or completed by a late patch); a patch or series of another
 * subject that only answers it is not (its own key, the Message-ID of its
 * first mail).
 */
static int thread_joins(bool *out, struct pr_mailsrc_rekey *r,
			const struct pr_asm_version *v, const char *key,
			int64_t id, const char *scope)
{
	struct pr_buf name = PR_BUF_INIT, val = PR_BUF_INIT;
	int err = 0;

	*out = v->number > 1;
	if (!*out && src_name(&name, v)) {
		err = pr_notes_get(&val, r->store, scope, name.ptr);
		*out = !err && !strcmp(val.ptr, key);
		if (err == PR_ENOENT)
			err = 0;
	}
	if (!*out && !err)
		err = any_stored(out, r, v, id);
	pr_buf_release(&name);
	pr_buf_release(&val);
	return err;
}

/* The mail a version starts from: its cover letter, else its first patch. */
static const char *first_id(const struct pr_asm_version *v)
{
	const struct pr_patch *p = v->cover ? v->cover
				   : v->nr  ? v->patches[0]
					    : NULL;

	return p && p->message_id && *p->message_id ? p->message_id : NULL;
}

/* The series an earlier poll gave a key to (see above), in *out. */
static int earlier_key(struct pr_mailsrc_rekey *r, const char **out,
		       const char *key, const struct pr_asm_version *v,
		       const char *scope)
{
	struct pr_buf name = PR_BUF_INIT, val = PR_BUF_INIT;
	const char *k = key;
	bool joins;
	int64_t id;
	int err;

	/* b4's change-id stays */
	if (v->change_id)
		return 0;
	/* a stored series under the key, or with the thread root as a mail */
	if ((err = series_of(&id, r, key)) ||
	    (!id && (err = stored_key(r, out, &id, key))))
		return err;
	if (id) {
		if (*out)
			k = *out;
		if ((err = thread_joins(&joins, r, v, k, id, scope)))
			return err;
		if (!joins && first_id(v))
			*out = first_id(v);
		else if (!joins)
			*out = NULL;
		return 0;
	}
	/* a previous version named */
	if ((err = stored_key(r, out, NULL, v->prev_id)) || *out)
		return err;
	/* a later version under the subject of an earlier one */
	if (v->number > 1 && src_name(&name, v)) {
		err = pr_notes_get(&val, r->store, scope, name.ptr);
		if (!err && val.len)
			keep(r, out, val.ptr);
	}
	pr_buf_release(&name);
	pr_buf_release(&val);
	return err == PR_ENOENT ? 0 : err;
}

int pr_mailsrc_rekey(const char **key, const struct pr_asm_series *s,
		     void *payload)
{
	struct pr_mailsrc_rekey *r = payload;
	struct pr_buf scope = PR_BUF_INIT, name = PR_BUF_INIT;
	struct pr_buf val = PR_BUF_INIT;
	const char *found = NULL;
	size_t i;
	int err;

	if (!s->nr || !r->store)
		return 0;
	if ((err = pr_buf_addf(&scope, "mailsrc:%s", r->origin)) ||
	    (err = earlier_key(r, &found, *key, &s->versions[0], scope.ptr)))
		goto done;
	if (found) {
		pr_log_debug(r->prefix, "series '%s' keyed '%s' by the store",
			     *key, found);
		*key = found;
	}
	/*
	 * each complete version's subject names the series from now on (a
	 * part re-read, a lone [PATCH 2/3], would name it by that patch)
	 */
	for (i = 0; i < s->nr && !err; i++) {
		if (!s->versions[i].complete ||
		    !src_name(&name, &s->versions[i]))
			continue;
		pr_buf_reset(&val);
		err = pr_notes_get(&val, r->store, scope.ptr, name.ptr);
		if (!err && !strcmp(val.ptr, *key))
			continue;
		if (!err || err == PR_ENOENT)
			err = pr_notes_set(r->store, scope.ptr, name.ptr, *key);
	}
done:
	pr_buf_release(&scope);
	pr_buf_release(&name);
	pr_buf_release(&val);
	return err;
}
