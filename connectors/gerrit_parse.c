#include "base/pr.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "gerrit.h"

/*
 * The three things Gerrit says to patchrelay, parsed (gerrit.h): the REST
 * API's JSON (ChangeInfo lists, an AccountInfo), stream-events lines and
 * the text a push to refs/for answers on the progress channel.  Field
 * names follow Gerrit's Documentation/{rest-api-changes,json,
 * cmd-stream-events,user-upload}.txt; apis.md section 3 sums them up.
 */

void pr_gerrit_account_release(struct pr_gerrit_account *a)
{
	free(a->name);
	free(a->email);
	free(a->username);
	memset(a, 0, sizeof(*a));
}

void pr_gerrit_change_release(struct pr_gerrit_change *c)
{
	size_t i;

	free(c->project);
	free(c->branch);
	free(c->topic);
	free(c->change_id);
	free(c->subject);
	free(c->status);
	free(c->updated);
	pr_gerrit_account_release(&c->owner);
	for (i = 0; i < c->nr_revs; i++) {
		free(c->revs[i].ref);
		free(c->revs[i].kind);
	}
	free(c->revs);
	for (i = 0; i < c->nr_msgs; i++) {
		free(c->msgs[i].id);
		free(c->msgs[i].date);
		free(c->msgs[i].tag);
		free(c->msgs[i].message);
		pr_gerrit_account_release(&c->msgs[i].author);
	}
	free(c->msgs);
	for (i = 0; i < c->nr_votes; i++) {
		free(c->votes[i].label);
		pr_gerrit_account_release(&c->votes[i].by);
	}
	free(c->votes);
	memset(c, 0, sizeof(*c));
}

void pr_gerrit_change_list_release(struct pr_gerrit_change_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		pr_gerrit_change_release(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

const struct pr_gerrit_revision *
pr_gerrit_change_rev(const struct pr_gerrit_change *c, const char *sha)
{
	size_t i;

	if (!sha)
		sha = c->current;
	for (i = 0; sha && *sha && i < c->nr_revs; i++)
		if (!strcmp(c->revs[i].sha, sha))
			return &c->revs[i];
	return NULL;
}

void pr_gerrit_json_body(const char **json, size_t *len, const char *body,
			 size_t blen)
{
	const char *nl;

	*json = body;
	*len = blen;
	/* the XSSI guard: ")]}'" and a newline before the JSON */
	if (blen >= 4 && !memcmp(body, ")]}'", 4)) {
		nl = memchr(body, '\n', blen);
		*json = nl ? nl + 1 : body + blen;
		*len = blen - (size_t)(*json - body);
	}
}

/* ---- JSON helpers: absent and null are the same; a wrong type is not ---- */

static int bad(const char *what, const char *key)
{
	return pr_error(PR_EPARSE, "gerrit %s: '%s' has the wrong type", what,
			key);
}

static int get_str(char **slot, const json_t *o, const char *key,
		   const char *what)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bad(what, key);
	free(*slot);
	*slot = pr_strdup(json_string_value(v));
	return 0;
}

/* A 40-hex-digit id into out ("" when absent). */
static int get_sha(char out[41], const json_t *o, const char *key,
		   const char *what)
{
	const json_t *v = json_object_get(o, key);
	const char *s;

	out[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	s = json_string_value(v);
	if (!s || strlen(s) != 40 || strspn(s, "0123456789abcdef") != 40)
		return bad(what, key);
	memcpy(out, s, 41);
	return 0;
}

/*
 * An integer; Gerrit before 2.14 wrote some numbers ("number") as
 * strings, so a string of digits is taken too.
 */
static int get_int(int64_t *out, const json_t *o, const char *key,
		   const char *what)
{
	const json_t *v = json_object_get(o, key);
	const char *s;
	char *end;
	long long n;

	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		*out = (int64_t)json_integer_value(v);
		return 0;
	}
	s = json_string_value(v);
	if (!s || *s < '0' || *s > '9')
		return bad(what, key);
	errno = 0;
	n = strtoll(s, &end, 10);
	if (*end || errno)
		return bad(what, key);
	*out = (int64_t)n;
	return 0;
}

static int get_small(int *out, const json_t *o, const char *key,
		     const char *what)
{
	int64_t v = *out;
	int err = get_int(&v, o, key, what);

	if (!err && (v < -1000000 || v > 1000000))
		return bad(what, key);
	*out = (int)v;
	return err;
}

static int get_bool(bool *out, const json_t *o, const char *key,
		    const char *what)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return bad(what, key);
	*out = json_is_true(v);
	return 0;
}

/* o[key] as an object (NULL when absent or null). */
static int get_obj(const json_t **out, const json_t *o, const char *key,
		   const char *what)
{
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bad(what, key);
	*out = v;
	return 0;
}

static int get_account(struct pr_gerrit_account *a, const json_t *o,
		       const char *key, const char *what)
{
	const json_t *v;
	int err;

	if ((err = get_obj(&v, o, key, what)) || !v)
		return err;
	if ((err = get_int(&a->id, v, "_account_id", what)) ||
	    (err = get_str(&a->name, v, "name", what)) ||
	    (err = get_str(&a->email, v, "email", what)) ||
	    (err = get_str(&a->username, v, "username", what)))
		return err;
	return 0;
}

/* ---- ChangeInfo ---- */

static int by_ps(const void *a, const void *b)
{
	const struct pr_gerrit_revision *x = a, *y = b;

	return (x->number > y->number) - (x->number < y->number);
}

static int by_date(const void *a, const void *b)
{
	const struct pr_gerrit_message *x = a, *y = b;

	return strcmp(x->date ? x->date : "", y->date ? y->date : "");
}

static int parse_revision(struct pr_gerrit_change *c, const char *sha,
			  const json_t *r)
{
	struct pr_gerrit_revision *rev;
	const json_t *commit, *parents, *p;
	int64_t n = 0;
	int err;

	if (!json_is_object(r) || strlen(sha) != 40 ||
	    strspn(sha, "0123456789abcdef") != 40)
		return pr_error(PR_EPARSE, "gerrit change %lld: bad revision",
				(long long)c->number);
	PR_ALLOC_GROW(c->revs, c->nr_revs + 1, c->alloc_revs);
	rev = &c->revs[c->nr_revs++];
	memset(rev, 0, sizeof(*rev));
	memcpy(rev->sha, sha, 41);
	rev->nr_parents = -1;
	if ((err = get_int(&n, r, "_number", "revision")) ||
	    (err = get_str(&rev->ref, r, "ref", "revision")) ||
	    (err = get_str(&rev->kind, r, "kind", "revision")) ||
	    (err = get_obj(&commit, r, "commit", "revision")))
		return err;
	if (n < 1 || n > 1000000)
		return bad("revision", "_number");
	rev->number = (int)n;
	if (!commit)
		return 0;
	parents = json_object_get(commit, "parents");
	if (!parents || json_is_null(parents))
		return 0;
	if (!json_is_array(parents))
		return bad("commit", "parents");
	rev->nr_parents = (int)json_array_size(parents);
	p = json_array_get(parents, 0);
	if (p && (!json_is_object(p) ||
		  (err = get_sha(rev->parent, p, "commit", "parent"))))
		return err ? err : bad("commit", "parents");
	return 0;
}

static int parse_messages(struct pr_gerrit_change *c, const json_t *a)
{
	const json_t *m;
	size_t i;
	int err;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return bad("change", "messages");
	json_array_foreach(a, i, m)
	{
		struct pr_gerrit_message *msg;

		if (!json_is_object(m))
			return bad("change", "messages");
		PR_ALLOC_GROW(c->msgs, c->nr_msgs + 1, c->alloc_msgs);
		msg = &c->msgs[c->nr_msgs++];
		memset(msg, 0, sizeof(*msg));
		if ((err = get_str(&msg->id, m, "id", "message")) ||
		    (err = get_str(&msg->date, m, "date", "message")) ||
		    (err = get_small(&msg->ps, m, "_revision_number",
				     "message")) ||
		    (err = get_str(&msg->tag, m, "tag", "message")) ||
		    (err = get_str(&msg->message, m, "message", "message")) ||
		    (err = get_account(&msg->author, m, "author", "message")))
			return err;
		if (!msg->id || !msg->date)
			return pr_error(PR_EPARSE,
					"gerrit message: no 'id' or 'date'");
	}
	/* Gerrit sends them oldest first; a stable order is what matters */
	qsort(c->msgs, c->nr_msgs, sizeof(*c->msgs), by_date);
	return 0;
}

/* labels.L.all[]: the votes with a value other than 0. */
static int parse_labels(struct pr_gerrit_change *c, const json_t *labels)
{
	const char *name;
	const json_t *l;
	int err;

	if (!labels || json_is_null(labels))
		return 0;
	if (!json_is_object(labels))
		return bad("change", "labels");
	json_object_foreach((json_t *)labels, name, l)
	{
		const json_t *all, *v;
		size_t i;

		if (!json_is_object(l))
			return bad("change", "labels");
		all = json_object_get(l, "all");
		if (!all || json_is_null(all))
			continue;
		if (!json_is_array(all))
			return bad("label", "all");
		json_array_foreach(all, i, v)
		{
			struct pr_gerrit_vote *vote;
			int value = 0;

			if (!json_is_object(v))
				return bad("label", "all");
			if ((err = get_small(&value, v, "value", "vote")))
				return err;
			if (!value)
				continue;
			PR_ALLOC_GROW(c->votes, c->nr_votes + 1,
				      c->alloc_votes);
			vote = &c->votes[c->nr_votes++];
			memset(vote, 0, sizeof(*vote));
			vote->label = pr_strdup(name);
			vote->value = value;
			if ((err = get_int(&vote->by.id, v, "_account_id",
					   "vote")) ||
			    (err = get_str(&vote->by.name, v, "name",
					   "vote")) ||
			    (err = get_str(&vote->by.email, v, "email",
					   "vote")) ||
			    (err = get_str(&vote->by.username, v, "username",
					   "vote")))
				return err;
		}
	}
	return 0;
}

static int parse_change(struct pr_gerrit_change *c, const json_t *o)
{
	const json_t *revs, *r;
	const char *sha;
	int err;

	if ((err = get_int(&c->number, o, "_number", "change")))
		return err;
	if (c->number <= 0)
		return pr_error(PR_EPARSE, "gerrit change: no '_number'");
	if ((err = get_str(&c->project, o, "project", "change")) ||
	    (err = get_str(&c->branch, o, "branch", "change")) ||
	    (err = get_str(&c->topic, o, "topic", "change")) ||
	    (err = get_str(&c->change_id, o, "change_id", "change")) ||
	    (err = get_str(&c->subject, o, "subject", "change")) ||
	    (err = get_str(&c->status, o, "status", "change")) ||
	    (err = get_str(&c->updated, o, "updated", "change")) ||
	    (err = get_account(&c->owner, o, "owner", "change")) ||
	    (err = get_bool(&c->wip, o, "work_in_progress", "change")) ||
	    (err = get_bool(&c->private, o, "is_private", "change")) ||
	    (err = get_sha(c->current, o, "current_revision", "change")) ||
	    (err = get_obj(&revs, o, "revisions", "change")))
		return err;
	if (c->topic && !*c->topic) {
		free(c->topic);
		c->topic = NULL;
	}
	json_object_foreach((json_t *)revs, sha, r)
	{
		if ((err = parse_revision(c, sha, r)))
			return err;
	}
	/* a change without revisions has no array: qsort(NULL) is UB */
	if (c->nr_revs > 1)
		qsort(c->revs, c->nr_revs, sizeof(*c->revs), by_ps);
	if ((err = parse_messages(c, json_object_get(o, "messages"))))
		return err;
	return parse_labels(c, json_object_get(o, "labels"));
}

static json_t *load(const char *body, size_t len, const char *what)
{
	json_error_t jerr;
	const char *json;
	size_t n;
	json_t *root;

	pr_gerrit_json_body(&json, &n, body, len);
	root = json_loadb(json, n, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		pr_error(PR_EPARSE, "gerrit %s: not JSON: %s (line %d)", what,
			 jerr.text, jerr.line);
	return root;
}

int pr_gerrit_parse_changes(struct pr_gerrit_change_list *out, const char *body,
			    size_t len)
{
	json_t *root = load(body, len, "changes");
	const json_t *o;
	size_t i;
	int err = 0;

	if (!root)
		return PR_EPARSE;
	if (!json_is_array(root)) {
		err = pr_error(PR_EPARSE, "gerrit changes: not a list");
		goto done;
	}
	out->more = false;
	json_array_foreach(root, i, o)
	{
		struct pr_gerrit_change *c;

		if (!json_is_object(o)) {
			err = pr_error(PR_EPARSE,
				       "gerrit changes: item %zu is not an "
				       "object",
				       i + 1);
			goto done;
		}
		PR_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		c = &out->items[out->nr++];
		memset(c, 0, sizeof(*c));
		if ((err = parse_change(c, o)))
			goto done;
		out->more = false;
		if ((err = get_bool(&out->more, o, "_more_changes", "change")))
			goto done;
	}
done:
	json_decref(root);
	return err;
}

int pr_gerrit_parse_account(struct pr_gerrit_account *out, const char *body,
			    size_t len)
{
	json_t *root = load(body, len, "account"), *wrap;
	int err;

	if (!root)
		return PR_EPARSE;
	if (!json_is_object(root)) {
		json_decref(root);
		return pr_error(PR_EPARSE, "gerrit account: not an object");
	}
	wrap = json_object();
	json_object_set(wrap, "a", root);
	err = get_account(out, wrap, "a", "account");
	json_decref(wrap);
	json_decref(root);
	return err;
}

/* ---- CommentInfo ---- */

void pr_gerrit_comment_list_release(struct pr_gerrit_comment_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		struct pr_gerrit_comment *c = &l->items[i];

		free(c->id);
		free(c->path);
		free(c->message);
		free(c->updated);
		free(c->change_message_id);
		pr_gerrit_account_release(&c->author);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int parse_comment(struct pr_gerrit_comment *c, const char *path,
			 const json_t *o)
{
	int err;

	if (!json_is_object(o))
		return pr_error(PR_EPARSE,
				"gerrit comments: a comment of '%s' "
				"is not an object",
				path);
	c->path = pr_strdup(path);
	if ((err = get_str(&c->id, o, "id", "comment")) ||
	    (err = get_int(&c->line, o, "line", "comment")) ||
	    (err = get_small(&c->ps, o, "patch_set", "comment")) ||
	    (err = get_str(&c->message, o, "message", "comment")) ||
	    (err = get_str(&c->updated, o, "updated", "comment")) ||
	    (err = get_str(&c->change_message_id, o, "change_message_id",
			   "comment")) ||
	    (err = get_account(&c->author, o, "author", "comment")))
		return err;
	if (!c->id)
		return pr_error(PR_EPARSE, "gerrit comment: no 'id'");
	if (c->line < 0)
		return bad("comment", "line");
	return 0;
}

int pr_gerrit_parse_comments(struct pr_gerrit_comment_list *out,
			     const char *body, size_t len)
{
	json_t *root = load(body, len, "comments");
	const json_t *list, *o;
	const char *path;
	size_t i;
	int err = 0;

	if (!root)
		return PR_EPARSE;
	if (!json_is_object(root)) {
		err = pr_error(PR_EPARSE, "gerrit comments: not a map");
		goto done;
	}
	json_object_foreach((json_t *)root, path, list)
	{
		if (!json_is_array(list)) {
			err = pr_error(PR_EPARSE,
				       "gerrit comments: '%s' is not a list",
				       path);
			goto done;
		}
		json_array_foreach(list, i, o)
		{
			PR_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
			memset(&out->items[out->nr], 0, sizeof(*out->items));
			if ((err = parse_comment(&out->items[out->nr++], path,
						 o)))
				goto done;
		}
	}
done:
	json_decref(root);
	return err;
}

/* ---- stream-events ---- */

void pr_gerrit_event_release(struct pr_gerrit_event *e)
{
	free(e->type);
	free(e->project);
	free(e->branch);
	free(e->who);
	memset(e, 0, sizeof(*e));
}

/* The actor of an event, under the key its type uses. */
static int event_actor(struct pr_gerrit_event *e, const json_t *root)
{
	static const char *const keys[] = {
		"uploader", "author",  "submitter", "abandoner",
		"restorer", "changer", "editor",    "adder",
		"remover",  "deleter", NULL
	};
	struct pr_gerrit_account a = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; keys[i]; i++) {
		const json_t *v = json_object_get(root, keys[i]);

		if (!json_is_object(v))
			continue;
		if ((err = get_str(&a.username, v, "username", "event")) ||
		    (err = get_str(&a.email, v, "email", "event")) ||
		    (err = get_str(&a.name, v, "name", "event")))
			break;
		if (a.username)
			e->who = pr_strdup(a.username);
		else if (a.email)
			e->who = pr_strdup(a.email);
		else if (a.name)
			e->who = pr_strdup(a.name);
		break;
	}
	pr_gerrit_account_release(&a);
	return err;
}

static int event_fields(struct pr_gerrit_event *e, const json_t *root)
{
	const json_t *change, *ps, *ru, *proj;
	char *ref = NULL;
	int err;

	if ((err = get_int(&e->created, root, "eventCreatedOn", "event")) ||
	    (err = get_obj(&change, root, "change", "event")) ||
	    (err = get_obj(&ps, root, "patchSet", "event")) ||
	    (err = get_obj(&ru, root, "refUpdate", "event")))
		return err;
	/* newer releases write "project" at the top, older in change */
	proj = json_object_get(root, "project");
	if (json_is_string(proj))
		e->project = pr_strdup(json_string_value(proj));
	if (change) {
		if ((err = get_int(&e->change, change, "number", "change")) ||
		    (!e->project && (err = get_str(&e->project, change,
						   "project", "change"))) ||
		    (err = get_str(&e->branch, change, "branch", "change")))
			return err;
	}
	if (ps && (err = get_small(&e->ps, ps, "number", "patchSet")))
		return err;
	if (ru && !e->project &&
	    (err = get_str(&e->project, ru, "project", "refUpdate")))
		return err;
	if (!e->branch) {
		/* change events name it at the top, ref-updated inside */
		if ((err = get_str(&ref, root, "refName", "event")) ||
		    (!ref && ru &&
		     (err = get_str(&ref, ru, "refName", "refUpdate"))))
			return err;
		if (ref && !strncmp(ref, "refs/heads/", 11))
			e->branch = pr_strdup(ref + 11);
		free(ref);
	}
	if (e->change < 0 || e->ps < 0)
		return bad("event", "number");
	return event_actor(e, root);
}

int pr_gerrit_event_parse(struct pr_gerrit_event *out, const char *line,
			  size_t len)
{
	json_error_t jerr;
	json_t *root;
	int err;

	memset(out, 0, sizeof(*out));
	root = json_loadb(line, len, 0, &jerr);
	if (!root || !json_is_object(root) ||
	    !json_is_string(json_object_get(root, "type"))) {
		json_decref(root);
		return pr_error(PR_EPARSE,
				"gerrit event: not a JSON object with a type");
	}
	out->type = pr_strdup(json_string_value(json_object_get(root, "type")));
	err = event_fields(out, root);
	json_decref(root);
	if (err)
		pr_gerrit_event_release(out);
	return err;
}

/* ---- the push's remote: lines ---- */

void pr_gerrit_push_answer_release(struct pr_gerrit_push_answer *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++) {
		free(a->changes[i].url);
		free(a->changes[i].subject);
	}
	free(a->changes);
	pr_strlist_release(&a->errors);
	memset(a, 0, sizeof(*a));
}

/* The change number at the end of a change URL: .../+/N, .../N, .../N/ */
static int64_t url_number(const char *url, size_t n)
{
	size_t end = n, start;
	int64_t v = 0;

	if (end && url[end - 1] == '/')
		end--;
	start = end;
	while (start && url[start - 1] >= '0' && url[start - 1] <= '9')
		start--;
	if (start == end || end - start > 15 || !start || url[start - 1] != '/')
		return 0;
	for (; start < end; start++)
		v = v * 10 + (url[start] - '0');
	return v;
}

/* One line, "remote: " and blanks taken off. */
static int push_line(struct pr_gerrit_push_answer *out, const char *p, size_t n)
{
	struct pr_buf rest = PR_BUF_INIT;
	struct pr_gerrit_pushed *c;
	size_t u;
	int64_t number;
	int err = 0;

	if (n >= 7 && !memcmp(p, "remote:", 7)) {
		p += 7;
		n -= 7;
	}
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n > 7 && !memcmp(p, "ERROR: ", 7)) {
		if ((err = pr_buf_add(&rest, p + 7, n - 7)) == 0)
			pr_strlist_add(&out->errors, rest.ptr);
		goto done;
	}
	if (!(n > 7 && !memcmp(p, "http://", 7)) &&
	    !(n > 8 && !memcmp(p, "https://", 8)))
		goto done;
	u = 0;
	while (u < n && p[u] != ' ' && p[u] != '\t')
		u++;
	number = url_number(p, u);
	if (number <= 0)
		goto done;
	PR_ALLOC_GROW(out->changes, out->nr + 1, out->alloc);
	c = &out->changes[out->nr++];
	memset(c, 0, sizeof(*c));
	c->number = number;
	c->url = pr_strndup(p, u);
	p += u;
	n -= u;
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	/* trailing markers: "[NEW]", "[WIP]", "[PRIVATE]" ... */
	while (n && p[n - 1] == ']') {
		size_t open = n - 1;

		while (open && p[open] != '[')
			open--;
		if (p[open] != '[')
			break;
		if (n - open == 5 && !memcmp(p + open, "[NEW]", 5))
			c->is_new = true;
		n = open;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
	}
	if (n)
		c->subject = pr_strndup(p, n);
done:
	pr_buf_release(&rest);
	return err;
}

#define PUSH_LINE_MAX 4096

int pr_gerrit_push_parse(struct pr_gerrit_push_answer *out, const char *text,
			 size_t len)
{
	size_t i = 0;
	int err = 0;

	while (i < len && !err) {
		size_t n = 0;

		while (i + n < len && text[i + n] != '\n' &&
		       text[i + n] != '\r')
			n++;
		err = push_line(out, text + i,
				n > PUSH_LINE_MAX ? PUSH_LINE_MAX : n);
		i += n + 1;
	}
	return err;
}
