#include "base/pr.h"
#include "model/model.h"

static void set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src ? pr_strdup(src) : NULL;
}

void pr_ident_set(struct pr_ident *id, const char *name, const char *email)
{
	set_str(&id->name, name ? name : "");
	set_str(&id->email, email ? email : "");
}

void pr_ident_release(struct pr_ident *id)
{
	free(id->name);
	free(id->email);
	id->name = id->email = NULL;
}

void pr_trailer_list_add(struct pr_trailer_list *l, const char *key,
			 const char *value)
{
	PR_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr].key = pr_strdup(key);
	l->items[l->nr].value = pr_strdup(value);
	l->nr++;
}

bool pr_trailer_list_has(const struct pr_trailer_list *l, const char *key,
			 const char *value)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcasecmp(l->items[i].key, key) &&
		    !strcmp(l->items[i].value, value))
			return true;
	return false;
}

void pr_trailer_list_release(struct pr_trailer_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
	l->items = NULL;
	l->nr = l->alloc = 0;
}

void pr_subject_prefix_release(struct pr_subject_prefix *p)
{
	free(p->list);
	memset(p, 0, sizeof(*p));
	p->version = 1;
}

struct pr_patch *pr_patch_new(void)
{
	struct pr_patch *p = pr_calloc(1, sizeof(*p));

	p->prefix.version = 1;
	return p;
}

void pr_patch_release(struct pr_patch *p)
{
	size_t i;

	pr_ident_release(&p->author);
	free(p->date);
	free(p->subject);
	free(p->subject_raw);
	pr_subject_prefix_release(&p->prefix);
	free(p->body);
	pr_trailer_list_release(&p->trailers);
	free(p->diff);
	free(p->diffstat);
	free(p->message_id);
	free(p->in_reply_to);
	for (i = 0; i < p->nr_references; i++)
		free(p->references[i]);
	free(p->references);
	free(p->sender);
	memset(p, 0, sizeof(*p));
	p->prefix.version = 1;
}

void pr_patch_free(struct pr_patch *p)
{
	if (!p)
		return;
	pr_patch_release(p);
	free(p);
}

void pr_cover_release(struct pr_cover *c)
{
	free(c->subject);
	free(c->body);
	free(c->message_id);
	free(c->stat);
	memset(c, 0, sizeof(*c));
}

struct pr_version *pr_version_new(int number)
{
	struct pr_version *v = pr_calloc(1, sizeof(*v));

	v->number = number;
	return v;
}

void pr_version_add_patch(struct pr_version *v, struct pr_patch *p)
{
	PR_ALLOC_GROW(v->patches, v->nr + 1, v->alloc);
	v->patches[v->nr++] = p;
}

void pr_version_free(struct pr_version *v)
{
	size_t i;

	if (!v)
		return;
	if (v->cover) {
		pr_cover_release(v->cover);
		free(v->cover);
	}
	for (i = 0; i < v->nr; i++)
		pr_patch_free(v->patches[i]);
	free(v->patches);
	free(v->target_branch);
	free(v->range_diff);
	free(v);
}

bool pr_recipient_list_add(struct pr_recipient_list *l, const char *name,
			   const char *email, enum pr_recipient_role role,
			   const char *reason)
{
	struct pr_recipient *r;
	size_t i;

	for (i = 0; i < l->nr; i++) {
		r = &l->items[i];
		if (strcasecmp(r->email, email))
			continue;
		if (role == PR_RCPT_TO)
			r->role = PR_RCPT_TO;
		if (reason && *reason && !strstr(r->reason, reason)) {
			struct pr_buf b = PR_BUF_INIT;

			pr_buf_addf(&b, "%s%s%s", r->reason,
				    *r->reason ? ", " : "", reason);
			free(r->reason);
			r->reason = pr_buf_detach(&b, NULL);
		}
		if (!*r->name && name && *name)
			set_str(&r->name, name);
		return false;
	}
	PR_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	r = &l->items[l->nr++];
	r->name = pr_strdup(name ? name : "");
	r->email = pr_strdup(email);
	r->role = role;
	r->reason = pr_strdup(reason ? reason : "");
	return true;
}

const struct pr_recipient *
pr_recipient_list_find(const struct pr_recipient_list *l, const char *email)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcasecmp(l->items[i].email, email))
			return &l->items[i];
	return NULL;
}

void pr_recipient_list_release(struct pr_recipient_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->items[i].name);
		free(l->items[i].email);
		free(l->items[i].reason);
	}
	free(l->items);
	l->items = NULL;
	l->nr = l->alloc = 0;
}

const char *pr_series_state_name(enum pr_series_state s)
{
	static const char *const names[] = { "new",	   "sent",
					     "refused",	   "accepted",
					     "superseded", "closed" };

	if ((size_t)s < PR_ARRAY_SIZE(names))
		return names[s];
	return "unknown";
}

struct pr_series *pr_series_new(const char *origin_connector,
				const char *origin_key)
{
	struct pr_series *s = pr_calloc(1, sizeof(*s));

	s->origin_connector =
		pr_strdup(origin_connector ? origin_connector : "");
	s->origin_key = pr_strdup(origin_key ? origin_key : "");
	return s;
}

void pr_series_add_version(struct pr_series *s, struct pr_version *v)
{
	PR_ALLOC_GROW(s->versions, s->nr + 1, s->alloc);
	s->versions[s->nr++] = v;
}

struct pr_version *pr_series_latest(const struct pr_series *s)
{
	return s->nr ? s->versions[s->nr - 1] : NULL;
}

void pr_series_free(struct pr_series *s)
{
	size_t i;

	if (!s)
		return;
	free(s->origin_connector);
	free(s->origin_key);
	pr_ident_release(&s->submitter);
	free(s->url);
	free(s->archive_url);
	for (i = 0; i < s->nr; i++)
		pr_version_free(s->versions[i]);
	free(s->versions);
	pr_recipient_list_release(&s->recipients);
	free(s);
}

void pr_event_release(struct pr_event *e)
{
	pr_series_free(e->series);
	pr_ident_release(&e->author);
	free(e->body);
	pr_trailer_list_release(&e->trailers);
	free(e->ref.url);
	free(e->ref.path);
	free(e->ref.quote);
	free(e->state);
	free(e->cursor);
	free(e->id);
	memset(e, 0, sizeof(*e));
}
