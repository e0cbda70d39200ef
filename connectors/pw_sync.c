#include "base/pr.h"

#include <jansson.h>

#include "engine/delivery.h"
#include "engine/notes.h"
#include "git/diff.h"
#include "git/pwhash.h"
#include "mail/assemble.h"
#include "model/model.h"
#include "patchwork.h"

/*
 * The patchwork sink: the states of a project's patches follow what
 * happens to them.
 *
 * landed: each commit of a landed event is matched to the project's
 * patches by the `match` methods in order, the first that finds any
 * wins: msgid (the Message-IDs its Link:/Message-Id: lines name, the
 * `msgid` filter), hash (Patchwork's hash of its diff, the `hash` filter;
 * never a hash of no hunk; a diff whose last file is binary is looked up
 * a second time as Patchwork hashes its mail, with the signature), patch-id
 * (git patch-id --stable of the diffs of the patches whose name holds the
 * subject, `q` filter) and subject (the same candidates, exact subject and
 * the author as submitter).  patch-id and subject look only at patches not
 * in a final state.  Each match not in a final state is set to on-landed
 * with commit_ref; what matched, how, and what did not is logged and noted
 * ("landed:SHA").  Requests grow with the commits, never with the project.
 *
 * deliver_version: a version from a mail source (its patches carry
 * Message-IDs) is noted ("version:ORIGIN\x1fKEY\x1fN"), its patches' ids
 * looked up, and the patches of its earlier versions not in a final state
 * are set to on-superseded: found by the Message-IDs of the earlier
 * versions this sink saw (same series key, same b4 change-id, or same
 * submitter and name) and those b4's "Link to vN:" lines name, else by
 * asking Patchwork for the submitter's series of a lower version with the
 * same name or change-id.
 */

#define MAX_CANDIDATES 20 /* patch-id / subject candidates fetched */
#define MAX_COVERS 10 /* covers read for a change-id */

/* ---- small helpers ---- */

/* A name without its leading "[...]" groups. */
static const char *bare_name(const char *name)
{
	const char *p = name ? name : "";

	for (;;) {
		p += strspn(p, " \t");
		if (*p != '[' || !strchr(p, ']'))
			return p;
		p = strchr(p, ']') + 1;
	}
}

/* Move l->items[i] to the end of into (l's slot is left zeroed). */
static void take(struct pr_pw_patch_list *into, struct pr_pw_patch_list *l,
		 size_t i)
{
	PR_ALLOC_GROW(into->items, into->nr + 1, into->alloc);
	into->items[into->nr++] = l->items[i];
	memset(&l->items[i], 0, sizeof(l->items[i]));
}

static bool has_id(const struct pr_pw_patch_list *l, int64_t id)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (l->items[i].id == id)
			return true;
	return false;
}

/* Add each patch of `from` not yet in `into` (moved). */
static void merge(struct pr_pw_patch_list *into, struct pr_pw_patch_list *from)
{
	size_t i;

	for (i = 0; i < from->nr; i++)
		if (from->items[i].id && !has_id(into, from->items[i].id))
			take(into, from, i);
	pr_pw_patch_list_release(from);
}

static void strlist_add_once(struct pr_strlist *l, const char *s, size_t n)
{
	size_t i;
	char *v = pr_strndup(s, n);

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->items[i], v))
			goto done;
	pr_strlist_add(l, v);
done:
	free(v);
}

/*
 * The Message-IDs a commit message names: "Link: URL" lines whose URL
 * names one (lore, patch.msgid.link) and "Message-Id: <id>" lines (git am
 * --message-id).
 */
static void commit_msgids(struct pr_strlist *out, const char *body)
{
	const char *p = body ? body : "";

	while (*p) {
		size_t n = strcspn(p, "\n");
		struct pr_buf id = PR_BUF_INIT;

		if (n > 5 && !strncasecmp(p, "Link:", 5) &&
		    pr_assemble_link_msgid(&id, p + 5, n - 5) == 0 && id.len)
			strlist_add_once(out, id.ptr, id.len);
		else if (n > 11 && !strncasecmp(p, "Message-Id:", 11)) {
			const char *v = p + 11;
			size_t k;

			v += strspn(v, " \t<");
			k = strcspn(v, "> \t\n");
			if (k)
				strlist_add_once(out, v, k);
		}
		pr_error_clear();
		pr_buf_release(&id);
		p += n + (p[n] == '\n');
	}
}

/* ---- landed commits ---- */

struct landed_stats {
	size_t commits, matched, changed, unmatched;
};

/*
 * The commit's hash lookups: its diff's hash, and, when the last file is
 * binary, the hash Patchwork gives the mail (signature included).  Hashes
 * of no hunk are left out.
 */
static int by_hash(struct pr_pw *pw, struct pr_pw_patch_list *found,
		   const struct pr_patch *c)
{
	struct pr_buf mail = PR_BUF_INIT;
	char h[41], h2[41];
	int n, err = 0;

	if (!c->diff || !*c->diff)
		return 0;
	n = pr_pwhash_diff(h, c->diff, strlen(c->diff));
	if (n < 0)
		return n;
	if (n > 0 && (err = pr_pw_find(pw, found, "hash", h)))
		goto done;
	if (found->nr || (err = pr_buf_adds(&mail, c->diff)) ||
	    (err = pr_buf_adds(&mail, "-- \npatchrelay\n")))
		goto done;
	n = pr_pwhash_mail(h2, mail.ptr, mail.len);
	if (n == PR_ENOENT)
		n = 0;
	if (n < 0) {
		err = n;
		goto done;
	}
	if (n > 0 && strcmp(h, h2))
		err = pr_pw_find(pw, found, "hash", h2);
done:
	pr_buf_release(&mail);
	return err;
}

/*
 * The patches whose name holds the commit's subject (q=), fetched once per
 * commit into *cands, those in no final state first.
 */
static int candidates(struct pr_pw *pw, struct pr_pw_patch_list *cands,
		      bool *fetched, const struct pr_patch *c)
{
	struct pr_pw_patch_list all = { 0 };
	size_t i;
	int err;

	if (*fetched || !c->subject || !*c->subject)
		return 0;
	*fetched = true;
	if ((err = pr_pw_find(pw, &all, "q", c->subject)))
		goto done;
	for (i = 0; i < all.nr && cands->nr < MAX_CANDIDATES; i++)
		if (!pr_pw_state_is_final(pw, all.items[i].state))
			take(cands, &all, i);
	/* a commit offered again finds its patch in a final state */
	for (i = 0; i < all.nr && cands->nr < MAX_CANDIDATES; i++)
		if (all.items[i].id)
			take(cands, &all, i);
done:
	pr_pw_patch_list_release(&all);
	return err;
}

static int by_patch_id(struct pr_pw *pw, struct pr_pw_patch_list *found,
		       struct pr_pw_patch_list *cands, const struct pr_patch *c)
{
	size_t i;
	int err = 0;

	for (i = 0; i < cands->nr && !err; i++) {
		struct pr_pw_patch d;
		char id[41];

		if (!cands->items[i].id)
			continue;
		if ((err = pr_pw_get_patch(pw, &d, cands->items[i].id)))
			break;
		if (d.diff && *d.diff) {
			err = pr_patch_id(id, d.diff, strlen(d.diff), true);
			if (err == PR_ENOENT) {
				pr_error_clear();
				err = 0;
			} else if (!err && !strcmp(id, c->patch_id)) {
				take(found, cands, i);
			}
		}
		pr_pw_patch_release(&d);
	}
	return err;
}

/* The least sure: only among the patches in no final state. */
static void by_subject(const struct pr_pw *pw, struct pr_pw_patch_list *found,
		       struct pr_pw_patch_list *cands, const struct pr_patch *c)
{
	size_t i;

	for (i = 0; i < cands->nr; i++) {
		const struct pr_pw_patch *p = &cands->items[i];

		if (p->id && !pr_pw_state_is_final(pw, p->state) &&
		    !strcmp(bare_name(p->name), c->subject) && p->submitter &&
		    c->author.email &&
		    !strcasecmp(p->submitter, c->author.email))
			take(found, cands, i);
	}
}

/* The patches the match methods find for c, in order; *how names it. */
static int match_commit(struct pr_pw *pw, struct pr_pw_patch_list *found,
			const char **how, const struct pr_patch *c)
{
	struct pr_pw_patch_list cands = { 0 };
	struct pr_strlist ids = { 0 };
	bool fetched = false;
	size_t i, j;
	int err = 0;

	*how = NULL;
	for (i = 0; i < pw->nr_match && !found->nr && !err; i++) {
		switch (pw->match[i]) {
		case PR_PW_MATCH_MSGID:
			commit_msgids(&ids, c->body);
			for (j = 0; j < ids.nr && !err; j++)
				err = pr_pw_find(pw, found, "msgid",
						 ids.items[j]);
			break;
		case PR_PW_MATCH_HASH:
			err = by_hash(pw, found, c);
			break;
		case PR_PW_MATCH_PATCH_ID:
			if (!c->patch_id[0])
				break;
			if (!(err = candidates(pw, &cands, &fetched, c)))
				err = by_patch_id(pw, found, &cands, c);
			break;
		case PR_PW_MATCH_SUBJECT:
			if (!(err = candidates(pw, &cands, &fetched, c)))
				by_subject(pw, found, &cands, c);
			break;
		}
		if (found->nr)
			*how = pr_pw_match_name(pw->match[i]);
	}
	pr_pw_patch_list_release(&cands);
	pr_strlist_release(&ids);
	return err;
}

/* Note how commit c was matched: "landed:SHA". */
static int note_landed(struct pr_pw *pw, const struct pr_patch *c,
		       const char *branch, const struct pr_pw_patch_list *found,
		       const char *how)
{
	json_t *j = json_pack("{s:s, s:s?, s:s?, s:[]}", "branch", branch,
			      "subject", c->subject, "how", how, "patches");
	struct pr_buf key = PR_BUF_INIT, old = PR_BUF_INIT;
	char *text = NULL;
	size_t i;
	int err = 0;

	/* offered again and found no more: what was noted stands */
	if (!found->nr &&
	    !(err = pr_buf_addf(&key, "landed:%s", c->commit_id)) &&
	    pr_pw_note_get(pw, &old, key.ptr) == 0 &&
	    strstr(old.ptr, "\"how\":\"")) {
		err = 0;
		goto done;
	}
	pr_buf_reset(&key);
	for (i = 0; i < found->nr; i++)
		json_array_append_new(json_object_get(j, "patches"),
				      json_pack("{s:I, s:s}", "id",
						(json_int_t)found->items[i].id,
						"state",
						found->items[i].state));
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	if (!(err = pr_buf_addf(&key, "landed:%s", c->commit_id)))
		err = pr_pw_note_set(pw, key.ptr, text);
done:
	free(text);
	json_decref(j);
	pr_buf_release(&key);
	pr_buf_release(&old);
	return err;
}

static int land_commit(struct pr_pw *pw, struct landed_stats *st,
		       const char *branch, const struct pr_patch *c)
{
	struct pr_pw_patch_list found = { 0 };
	const char *how = NULL;
	size_t i;
	int err;

	st->commits++;
	if ((err = match_commit(pw, &found, &how, c)))
		goto done;
	if (!found.nr) {
		st->unmatched++;
		pr_log_info(pw->inst->prefix,
			    "%.12s '%s' on %s: no patch matched", c->commit_id,
			    c->subject ? c->subject : "", branch);
	} else {
		st->matched++;
	}
	for (i = 0; i < found.nr; i++) {
		struct pr_pw_patch *p = &found.items[i];

		if (pr_pw_state_is_final(pw, p->state)) {
			pr_log_info(pw->inst->prefix,
				    "%.12s matched patch %lld by %s: already "
				    "%s",
				    c->commit_id, (long long)p->id, how,
				    p->state);
		} else {
			if ((err = pr_pw_set_state(
				     pw, p, "on-landed", pw->o->on_landed,
				     c->commit_id, pw->o->archive)))
				goto done;
			st->changed++;
			pr_log_info(pw->inst->prefix,
				    "%.12s matched patch %lld by %s: %s",
				    c->commit_id, (long long)p->id, how,
				    p->state);
		}
		if ((err = pr_pw_note_patch(pw, p, NULL, NULL, 0)))
			goto done;
	}
	err = note_landed(pw, c, branch, &found, how);
done:
	pr_pw_patch_list_release(&found);
	return err;
}

int pr_pw_landed(struct pr_instance *inst, const struct pr_series *branch)
{
	struct pr_pw *pw = inst->state;
	const struct pr_version *v = pr_series_latest(branch);
	struct landed_stats st = { 0, 0, 0, 0 };
	size_t i, reads = pw->reads, writes = pw->writes;
	int err = 0;

	for (i = 0; v && i < v->nr && !err; i++)
		err = land_commit(pw, &st, branch->origin_key, v->patches[i]);
	if (err)
		return err;
	pr_log_info(inst->prefix,
		    "%zu commit(s) landed on %s: %zu matched, %zu set %s, %zu "
		    "unmatched; %zu request(s), %zu writing",
		    st.commits, branch->origin_key, st.matched, st.changed,
		    pw->o->on_landed, st.unmatched,
		    pw->reads - reads + pw->writes - writes,
		    pw->writes - writes);
	return err;
}

/* ---- superseded versions ---- */

/* What a version is known by: noted per version the sink saw. */
struct version_id {
	const char *origin, *key;
	int number; /* from its subjects */
	char *name; /* cover subject, else first patch's */
	char *email; /* submitter */
	char *change_id; /* b4's, NULL: none */
	struct pr_strlist msgids; /* its mails' */
	struct pr_strlist prev; /* Message-IDs it names as earlier versions */
};

static void version_id_release(struct version_id *id)
{
	free(id->name);
	free(id->email);
	free(id->change_id);
	pr_strlist_release(&id->msgids);
	pr_strlist_release(&id->prev);
}

/* "change-id: X" (b4) and "Link to vN: URL" / "vN: URL" lines of text. */
static void scan_text(struct version_id *id, const char *text)
{
	const char *p = text ? text : "";

	while (*p) {
		size_t n = strcspn(p, "\n"), k;
		const char *l = p, *url;
		struct pr_buf m = PR_BUF_INIT;

		p += n + (p[n] == '\n');
		while (n && (*l == ' ' || *l == '\t' || *l == '-')) {
			l++;
			n--;
		}
		if (!id->change_id && n > 10 && !strncmp(l, "change-id:", 10)) {
			url = l + 10 + strspn(l + 10, " \t");
			k = (size_t)(l + n - url);
			while (k && (url[k - 1] == ' ' || url[k - 1] == '\r'))
				k--;
			if (k)
				id->change_id = pr_strndup(url, k);
			continue;
		}
		if (n > 8 && !strncmp(l, "Link to ", 8)) {
			l += 8;
			n -= 8;
		}
		if (n < 4 || l[0] != 'v' || !memchr(l, ':', n))
			continue;
		k = 1 + strspn(l + 1, "0123456789");
		if (k == 1 || l[k] != ':')
			continue;
		url = l + k + 1;
		if (pr_assemble_link_msgid(&m, url, (size_t)(l + n - url)) ==
			    0 &&
		    m.len)
			strlist_add_once(&id->prev, m.ptr, m.len);
		pr_error_clear();
		pr_buf_release(&m);
	}
}

static void version_id_make(struct version_id *id, const struct pr_series *s,
			    const struct pr_version *v)
{
	size_t i;

	memset(id, 0, sizeof(*id));
	id->origin = s->origin_connector;
	id->key = s->origin_key;
	id->number = 1;
	for (i = 0; i < v->nr; i++) {
		const struct pr_patch *p = v->patches[i];

		if (p->prefix.version > id->number)
			id->number = p->prefix.version;
		if (p->message_id && *p->message_id)
			strlist_add_once(&id->msgids, p->message_id,
					 strlen(p->message_id));
		scan_text(id, p->body);
	}
	if (v->cover) {
		if (v->cover->message_id && *v->cover->message_id)
			strlist_add_once(&id->msgids, v->cover->message_id,
					 strlen(v->cover->message_id));
		scan_text(id, v->cover->body);
	}
	id->name = pr_strdup(bare_name(v->cover && v->cover->subject
					       ? v->cover->subject
				       : v->nr ? v->patches[0]->subject
					       : ""));
	if (s->submitter.email)
		id->email = pr_strdup(s->submitter.email);
	else if (v->nr && v->patches[0]->author.email)
		id->email = pr_strdup(v->patches[0]->author.email);
}

static int note_version(struct pr_pw *pw, const struct version_id *id)
{
	json_t *j = json_pack("{s:s, s:s, s:i, s:s, s:s?, s:s?, s:[]}",
			      "origin", id->origin, "key", id->key, "version",
			      id->number, "name", id->name, "email", id->email,
			      "change_id", id->change_id, "msgids");
	struct pr_buf key = PR_BUF_INIT;
	char *text = NULL;
	size_t i;
	int err;

	for (i = 0; i < id->msgids.nr; i++)
		json_array_append_new(json_object_get(j, "msgids"),
				      json_string(id->msgids.items[i]));
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	if (!(err = pr_buf_addf(&key, "version:%s\x1f%s\x1f%d", id->origin,
				id->key, id->number)))
		err = pr_pw_note_set(pw, key.ptr, text);
	free(text);
	json_decref(j);
	pr_buf_release(&key);
	return err;
}

struct earlier {
	const struct version_id *id;
	const char *scope;
	struct pr_strlist msgids;
};

static bool json_str_eq(const json_t *j, const char *key, const char *s,
			bool nocase)
{
	const char *v = json_string_value(json_object_get(j, key));

	return v && s && (nocase ? !strcasecmp(v, s) : !strcmp(v, s));
}

/* A noted version of a lower number and the same identity: its mails. */
static int earlier_note(const char *scope, const char *key, const char *value,
			void *payload)
{
	struct earlier *e = payload;
	const struct version_id *id = e->id;
	json_t *j = json_loads(value, 0, NULL), *m;
	size_t i;

	PR_UNUSED(key);
	if (!j || strcmp(scope, e->scope) ||
	    json_integer_value(json_object_get(j, "version")) >= id->number)
		goto done;
	if ((json_str_eq(j, "origin", id->origin, false) &&
	     json_str_eq(j, "key", id->key, false)) ||
	    (id->change_id &&
	     json_str_eq(j, "change_id", id->change_id, false)) ||
	    (json_str_eq(j, "email", id->email, true) &&
	     json_str_eq(j, "name", id->name, false)))
		json_array_foreach(json_object_get(j, "msgids"), i,
				   m) if (json_is_string(m))
			strlist_add_once(&e->msgids, json_string_value(m),
					 strlen(json_string_value(m)));
done:
	json_decref(j);
	return 0;
}

/* The patches of series `sid` added to out (each patch once). */
static int series_patches(struct pr_pw *pw, struct pr_pw_patch_list *out,
			  int64_t sid)
{
	struct pr_pw_patch_list l = { 0 };
	char num[32];
	int err;

	snprintf(num, sizeof(num), "%lld", (long long)sid);
	if (!(err = pr_pw_find(pw, &l, "series", num)))
		merge(out, &l);
	pr_pw_patch_list_release(&l);
	return err;
}

/* The series of the cover letter with Message-ID m (0: none). */
static int cover_series(struct pr_pw *pw, int64_t *sid, const char *m)
{
	struct pr_http_response resp;
	struct pr_buf url = PR_BUF_INIT;
	json_t *a = NULL, *s;
	int err;

	*sid = 0;
	memset(&resp, 0, sizeof(resp));
	if ((err = pr_buf_adds(&url, "covers/?project=")) ||
	    (err = pr_http_escape(&url, pw->o->project)) ||
	    (err = pr_buf_adds(&url, "&msgid=")) ||
	    (err = pr_http_escape(&url, m)) ||
	    (err = pr_pw_request(pw, &resp, "GET", url.ptr, NULL)))
		goto done;
	a = json_loadb(resp.body.ptr, resp.body.len, 0, NULL);
	s = json_object_get(json_array_get(a, 0), "series");
	s = json_object_get(json_array_get(s, 0), "id");
	if (json_is_integer(s))
		*sid = (int64_t)json_integer_value(s);
done:
	json_decref(a);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

/*
 * The patches of the earlier versions a Message-ID names: the patch with
 * it and the rest of its series, or the series of the cover letter with
 * it.
 */
static int patches_of_msgid(struct pr_pw *pw, struct pr_pw_patch_list *out,
			    const char *m, bool whole_series)
{
	struct pr_pw_patch_list l = { 0 };
	int64_t sid = 0;
	bool cover;
	int err;

	if ((err = pr_pw_find(pw, &l, "msgid", m)))
		goto done;
	cover = !l.nr;
	if (l.nr)
		sid = l.items[0].series_id;
	else if ((err = cover_series(pw, &sid, m)))
		goto done;
	merge(out, &l);
	/* a cover letter stands for its series */
	if (sid && (whole_series || cover))
		err = series_patches(pw, out, sid);
done:
	pr_pw_patch_list_release(&l);
	return err;
}

/* A series of the list answer: lower version, same name or change-id. */
static int series_matches(struct pr_pw *pw, const json_t *s,
			  const struct version_id *id, size_t *covers_read)
{
	const char *name = json_string_value(json_object_get(s, "name"));
	const json_t *cover = json_object_get(s, "cover_letter");
	struct pr_http_response resp;
	struct pr_buf url = PR_BUF_INIT;
	json_t *c = NULL;
	int err, yes = 0;

	if (json_integer_value(json_object_get(s, "version")) >= id->number)
		return 0;
	if (name && !strcmp(bare_name(name), id->name))
		return 1;
	if (!id->change_id || !json_is_object(cover) ||
	    *covers_read >= MAX_COVERS)
		return 0;
	(*covers_read)++;
	memset(&resp, 0, sizeof(resp));
	if ((err = pr_buf_addf(&url, "covers/%lld/",
			       (long long)json_integer_value(
				       json_object_get(cover, "id")))) ||
	    (err = pr_pw_request(pw, &resp, "GET", url.ptr, NULL)))
		goto done;
	c = json_loadb(resp.body.ptr, resp.body.len, 0, NULL);
	if (json_is_string(json_object_get(c, "content"))) {
		struct version_id other;

		memset(&other, 0, sizeof(other));
		scan_text(&other,
			  json_string_value(json_object_get(c, "content")));
		yes = other.change_id &&
		      !strcmp(other.change_id, id->change_id);
		version_id_release(&other);
	}
done:
	json_decref(c);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err ? err : yes;
}

/*
 * Nothing noted: the submitter's series Patchwork has, of a lower version
 * and the same name (or b4 change-id): their patches into out.
 */
static int earlier_by_api(struct pr_pw *pw, struct pr_pw_patch_list *out,
			  const struct version_id *id)
{
	struct pr_http_response resp;
	struct pr_buf url = PR_BUF_INIT;
	size_t i, covers = 0;
	json_t *a = NULL, *s;
	int err, ok;

	memset(&resp, 0, sizeof(resp));
	if (!id->email)
		return 0;
	if ((err = pr_buf_adds(&url, "series/?project=")) ||
	    (err = pr_http_escape(&url, pw->o->project)) ||
	    (err = pr_buf_adds(&url, "&per_page=250&order=-date&submitter=")) ||
	    (err = pr_http_escape(&url, id->email)) ||
	    (err = pr_pw_request(pw, &resp, "GET", url.ptr, NULL)))
		goto done;
	a = json_loadb(resp.body.ptr, resp.body.len, 0, NULL);
	json_array_foreach(a, i, s)
	{
		if ((ok = series_matches(pw, s, id, &covers)) < 0) {
			err = ok;
			goto done;
		}
		if (ok &&
		    (err = series_patches(pw, out,
					  (int64_t)json_integer_value(
						  json_object_get(s, "id")))))
			goto done;
	}
done:
	json_decref(a);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

static bool own(const struct version_id *id, const char *msgid)
{
	size_t i;

	for (i = 0; msgid && i < id->msgids.nr; i++)
		if (!strcmp(id->msgids.items[i], msgid))
			return true;
	return false;
}

/* Set the earlier versions' patches to on-superseded. */
static int supersede(struct pr_pw *pw, const struct version_id *id)
{
	struct earlier e = { id, NULL, { 0 } };
	struct pr_pw_patch_list old = { 0 };
	struct pr_buf scope = PR_BUF_INIT;
	size_t i, changed = 0;
	int err = 0;

	if ((err = pr_buf_addf(&scope, "patchwork:%s", pw->inst->name)))
		goto done;
	e.scope = scope.ptr;
	if (pw->inst->store &&
	    (err = pr_notes_foreach(pw->inst->store, scope.ptr,
				    "version:", earlier_note, &e)))
		goto done;
	for (i = 0; i < e.msgids.nr && !err; i++)
		err = patches_of_msgid(pw, &old, e.msgids.items[i], false);
	for (i = 0; i < id->prev.nr && !err; i++)
		err = patches_of_msgid(pw, &old, id->prev.items[i], true);
	if (!err && !old.nr && id->number > 1)
		err = earlier_by_api(pw, &old, id);
	for (i = 0; i < old.nr && !err; i++) {
		struct pr_pw_patch *p = &old.items[i];

		if (!p->id || own(id, p->msgid) ||
		    pr_pw_state_is_final(pw, p->state))
			continue;
		if ((err = pr_pw_set_state(pw, p, "on-superseded",
					   pw->o->on_superseded, NULL, false)))
			break;
		changed++;
		pr_log_info(pw->inst->prefix,
			    "patch %lld (%s): %s by v%d of "
			    "'%s'",
			    (long long)p->id, p->name, p->state, id->number,
			    id->key);
		err = pr_pw_note_patch(pw, p, NULL, NULL, 0);
	}
	if (!err && old.nr)
		pr_log_info(pw->inst->prefix,
			    "v%d of '%s': %zu patch(es) of earlier versions, "
			    "%zu set %s",
			    id->number, id->key, old.nr, changed,
			    pw->o->on_superseded);
done:
	pr_pw_patch_list_release(&old);
	pr_strlist_release(&e.msgids);
	pr_buf_release(&scope);
	return err;
}

/*
 * The version's own patches: their Patchwork ids, noted, and in the
 * identity map with their series'.
 */
static int note_own(struct pr_pw *pw, const struct version_id *id,
		    int64_t series_id)
{
	struct pr_pw_patch_list l = { 0 };
	size_t i, j;
	int err = 0;

	if (!pw->inst->store)
		return 0;
	for (i = 0; i < id->msgids.nr && !err; i++) {
		if ((err = pr_pw_find(pw, &l, "msgid", id->msgids.items[i])))
			break;
		for (j = 0; j < l.nr && !err; j++) {
			const struct pr_pw_patch *p = &l.items[j];

			if (!(err = pr_pw_note_patch(pw, p, id->origin, id->key,
						     id->number)) &&
			    !(err = pr_pw_remember(pw, series_id, "patches",
						   p->id, p->web_url)))
				err = pr_pw_remember(pw, series_id, "series",
						     p->series_id, NULL);
		}
		pr_pw_patch_list_release(&l);
	}
	pr_pw_patch_list_release(&l);
	return err;
}

int pr_pw_deliver_version(struct pr_instance *inst,
			  const struct pr_version_delivery *vd,
			  struct pr_deliver_result *out)
{
	struct pr_pw *pw = inst->state;
	struct version_id id;
	int err;

	version_id_make(&id, vd->series, vd->version);
	out->status = PR_DELIVER_OK;
	if (!id.msgids.nr) {
		/* not from mail: Patchwork cannot have parsed it */
		pr_log_debug(inst->prefix,
			     "v%d of '%s': no Message-ID, nothing to "
			     "supersede",
			     id.number, id.key);
		err = 0;
		goto done;
	}
	if ((err = note_version(pw, &id)) ||
	    (err = note_own(pw, &id, vd->series_id)))
		goto done;
	err = supersede(pw, &id);
done:
	version_id_release(&id);
	return err;
}
