#include "base/pr.h"
#include "commands.h"
#include "engine/cfg.h"
#include "engine/engine.h"
#include "engine/graph.h"

#include <errno.h>
#include <jansson.h>

/*
 * patchrelay poll -c FILE SOURCE [--json] [--cursor TEXT]: poll one source
 * once, from the beginning or from a cursor it printed before, and print
 * what it emits without storing anything, so that sources can be compared.
 * The JSON has "events" in order, "series" (by key, each version with its
 * total, completeness, cover and patches, and for each patch the trailers
 * the comments of this poll gave it), "comments" and the last "cursor".
 */

/*
 * The JSON is written as jansson's json_dumps(JSON_INDENT(2) |
 * JSON_SORT_KEYS) would write the whole document, but not held whole: the
 * events and the comments go to temporary files as they come, and each
 * series is kept as its compact JSON text, so that a long catch-up polled
 * in parts (connectors/mailsrc.h) is not held at the end.
 */
struct poll_ctx {
	bool json;
	FILE *events, *comments; /* items, each as dumped alone */
	size_t nr_events, nr_comments;
	json_t *series; /* key: the series' compact JSON text */
	char *cursor;
};

static void usage(void)
{
	fprintf(stderr, "usage: patchrelay poll -c FILE SOURCE [--json] "
			"[--cursor TEXT]\n");
}

static json_t *str(const char *s)
{
	json_t *j = json_string(s ? s : "");

	return j ? j : json_string("");
}

static json_t *str_or_null(const char *s)
{
	return s ? str(s) : json_null();
}

/* The n/N total of a version, and whether 1..N are all there. */
static int version_total(const struct pr_version *v, bool *complete)
{
	int total = 0;
	size_t i;
	int k;

	for (i = 0; i < v->nr; i++)
		if (v->patches[i]->prefix.total > total)
			total = v->patches[i]->prefix.total;
	if (!total && v->nr)
		total = 1; /* a lone [PATCH] */
	*complete = total > 0;
	for (k = 1; k <= total && *complete; k++) {
		bool found = false;

		for (i = 0; i < v->nr && !found; i++)
			found = (v->patches[i]->prefix.total
					 ? v->patches[i]->prefix.index
					 : 1) == k;
		*complete = found;
	}
	return total;
}

static json_t *trailer_text(const struct pr_trailer *t)
{
	struct pr_buf b = PR_BUF_INIT;
	json_t *j;

	pr_buf_addf(&b, "%s: %s", t->key, t->value);
	j = str(b.ptr);
	pr_buf_release(&b);
	return j;
}

static bool has_mail(const struct pr_version *v, const char *id)
{
	size_t i;

	if (v->cover && v->cover->message_id &&
	    !strcmp(v->cover->message_id, id))
		return true;
	for (i = 0; i < v->nr; i++)
		if (v->patches[i]->message_id &&
		    !strcmp(v->patches[i]->message_id, id))
			return true;
	return false;
}

/* Does v hold every mail of the earlier version o (as JSON)? */
static bool holds_all(const struct pr_version *v, json_t *o)
{
	json_t *ps = json_object_get(o, "patches");
	const char *cover = json_string_value(json_object_get(o, "cover"));
	size_t i;

	if (cover && !has_mail(v, cover))
		return false;
	for (i = 0; i < json_array_size(ps); i++) {
		const char *id = json_string_value(
			json_object_get(json_array_get(ps, i), "message_id"));

		if (!id || !has_mail(v, id))
			return false;
	}
	return true;
}

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENCODE_ANY)

/* Write j's text with every line after the first indented by `indent`. */
static void put_indented(FILE *f, json_t *j, const char *indent)
{
	char *s = json_dumps(j, DUMP_FLAGS), *p;

	for (p = s; p && *p; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fputs(indent, f);
	}
	free(s);
}

/* One more item of a list spooled to f. */
static void spool(FILE *f, size_t *nr, json_t *item)
{
	fputs(*nr ? ",\n    " : "\n    ", f);
	put_indented(f, item, "    ");
	(*nr)++;
}

/* A series as JSON (a new reference), NULL when not seen yet. */
static json_t *series_get(struct poll_ctx *c, const char *key)
{
	const char *text = json_string_value(json_object_get(c->series, key));

	return text ? json_loads(text, 0, NULL) : NULL;
}

/* Keep s (the reference is taken) as compact text under key. */
static void series_put(struct poll_ctx *c, const char *key, json_t *s)
{
	char *text = json_dumps(s, JSON_COMPACT);

	if (text)
		json_object_set_new(c->series, key, json_string(text));
	free(text);
	json_decref(s);
}

static void add_version(struct poll_ctx *c, const struct pr_event *ev,
			const struct pr_version *v)
{
	json_t *e = json_object(), *mids = json_array(), *sv = json_object(),
	       *patches = json_array(), *s, *versions;
	const char *key = ev->series->origin_key;
	bool complete;
	int total = version_total(v, &complete);
	size_t i;

	for (i = 0; i < v->nr; i++) {
		json_t *p = json_object();

		json_array_append_new(mids, str(v->patches[i]->message_id));
		json_object_set_new(p, "message_id",
				    str(v->patches[i]->message_id));
		json_object_set_new(p, "subject", str(v->patches[i]->subject));
		json_object_set_new(p, "trailers", json_array());
		json_array_append_new(patches, p);
	}
	json_object_set_new(e, "kind",
			    str(ev->kind == PR_EVENT_SERIES ? "series"
							    : "version"));
	json_object_set_new(e, "series", str(key));
	json_object_set_new(e, "version", json_integer(v->number));
	json_object_set_new(e, "patches", mids);
	spool(c->events, &c->nr_events, e);
	json_decref(e);

	json_object_set_new(sv, "version", json_integer(v->number));
	json_object_set_new(sv, "total", json_integer(total));
	json_object_set_new(sv, "complete", json_boolean(complete));
	json_object_set_new(sv, "cover",
			    str_or_null(v->cover ? v->cover->message_id
						 : NULL));
	json_object_set_new(sv, "patches", patches);
	s = series_get(c, key);
	if (!s) {
		s = json_object();
		json_object_set_new(s, "submitter",
				    str(ev->series->submitter.email));
		json_object_set_new(s, "versions", json_array());
	}
	versions = json_object_get(s, "versions");
	/*
	 * A version emitted again (now complete) replaces the earlier one:
	 * the same number, and its mails all there again.  Another posting
	 * of the same number (an unlabeled revision, a resend) is added.
	 */
	for (i = 0; i < json_array_size(versions); i++) {
		json_t *o = json_array_get(versions, i);

		if (json_integer_value(json_object_get(o, "version")) ==
			    v->number &&
		    holds_all(v, o)) {
			json_array_set_new(versions, i, sv);
			sv = NULL;
			break;
		}
	}
	if (sv)
		json_array_append_new(versions, sv);
	series_put(c, key, s);
}

/* The trailers list of patch `mid` in version `number` of series s. */
static json_t *patch_trailers(json_t *s, int number, const char *mid)
{
	json_t *versions = json_object_get(s, "versions");
	size_t i, j;

	for (i = 0; i < json_array_size(versions); i++) {
		json_t *v = json_array_get(versions, i), *ps;

		if (json_integer_value(json_object_get(v, "version")) != number)
			continue;
		ps = json_object_get(v, "patches");
		for (j = 0; j < json_array_size(ps); j++) {
			json_t *p = json_array_get(ps, j);

			if (!strcmp(json_string_value(
					    json_object_get(p, "message_id")),
				    mid ? mid : ""))
				return json_object_get(p, "trailers");
		}
	}
	return NULL;
}

static void add_comment(struct poll_ctx *c, const struct pr_event *ev)
{
	const struct pr_version *v = pr_series_latest(ev->series);
	json_t *e = json_object(), *answers = json_array(),
	       *trailers = json_array(),
	       *s = series_get(c, ev->series->origin_key);
	size_t i, j;

	for (i = 0; v && i < v->nr; i++) {
		const struct pr_patch *p = v->patches[i];
		json_t *into = s ? patch_trailers(s, v->number, p->message_id)
				 : NULL;

		json_array_append_new(answers, str(p->message_id));
		for (j = 0; into && j < p->trailers.nr; j++)
			json_array_append_new(
				into, trailer_text(&p->trailers.items[j]));
	}
	for (i = 0; i < ev->trailers.nr; i++)
		json_array_append_new(trailers,
				      trailer_text(&ev->trailers.items[i]));
	json_object_set_new(e, "kind", str("comment"));
	json_object_set_new(e, "series", str(ev->series->origin_key));
	json_object_set_new(e, "version", json_integer(v ? v->number : 0));
	json_object_set_new(e, "from", str(ev->author.email));
	json_object_set_new(e, "answers", answers);
	json_object_set_new(e, "trailers", trailers);
	spool(c->events, &c->nr_events, e);
	spool(c->comments, &c->nr_comments, e);
	json_decref(e);
	if (s)
		series_put(c, ev->series->origin_key, s);
}

static void print_text(const struct pr_event *ev, const struct pr_version *v)
{
	size_t i, j;

	if (ev->kind == PR_EVENT_COMMENT) {
		printf("comment %s v%d from %s\n", ev->series->origin_key,
		       v ? v->number : 0, ev->author.email);
		for (i = 0; v && i < v->nr; i++)
			for (j = 0; j < v->patches[i]->trailers.nr; j++)
				printf("\t%s\t%s: %s\n",
				       v->patches[i]->message_id,
				       v->patches[i]->trailers.items[j].key,
				       v->patches[i]->trailers.items[j].value);
		return;
	}
	if (v) {
		bool complete;
		int total = version_total(v, &complete);

		printf("%s %s v%d %zu/%d%s\n",
		       ev->kind == PR_EVENT_SERIES ? "series" : "version",
		       ev->series->origin_key, v->number, v->nr, total,
		       complete ? " complete" : " incomplete");
		if (v->cover)
			printf("\tcover\t%s\n", v->cover->message_id);
		for (i = 0; i < v->nr; i++)
			printf("\t%d\t%s\n", v->patches[i]->prefix.index,
			       v->patches[i]->message_id);
	}
}

static int on_event(const struct pr_event *ev, void *payload)
{
	struct poll_ctx *c = payload;
	const struct pr_version *v = ev->series ? pr_series_latest(ev->series)
						: NULL;

	if (ev->cursor) {
		free(c->cursor);
		c->cursor = pr_strdup(ev->cursor);
	}
	if (!c->json) {
		print_text(ev, v);
		return 0;
	}
	if ((ev->kind == PR_EVENT_SERIES || ev->kind == PR_EVENT_VERSION) && v)
		add_version(c, ev, v);
	else if (ev->kind == PR_EVENT_COMMENT)
		add_comment(c, ev);
	return 0;
}

/* A spooled list: [] when empty, else its items and the closing line. */
static void put_list(FILE *spool, size_t nr)
{
	char chunk[16384];
	size_t n;

	if (!nr) {
		fputs("[]", stdout);
		return;
	}
	fputc('[', stdout);
	rewind(spool);
	while ((n = fread(chunk, 1, sizeof(chunk), spool)) > 0)
		fwrite(chunk, 1, n, stdout);
	fputs("\n  ]", stdout);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The series, by key in byte order, as JSON_SORT_KEYS writes them. */
static void put_series(json_t *series)
{
	size_t n = json_object_size(series), nr = 0, i;
	const char **keys = pr_calloc(n + 1, sizeof(*keys));
	void *it;

	for (it = json_object_iter(series); it;
	     it = json_object_iter_next(series, it))
		keys[nr++] = json_object_iter_key(it);
	if (nr)
		qsort(keys, nr, sizeof(*keys), cmp_key);
	fputs(nr ? "{" : "{}", stdout);
	for (i = 0; i < nr; i++) {
		json_t *k = str(keys[i]), *s;
		const char *text =
			json_string_value(json_object_get(series, keys[i]));

		s = json_loads(text, 0, NULL);
		fputs(i ? ",\n    " : "\n    ", stdout);
		put_indented(stdout, k, "    ");
		fputs(": ", stdout);
		put_indented(stdout, s, "    ");
		json_decref(k);
		json_decref(s);
	}
	if (nr)
		fputs("\n  }", stdout);
	free((void *)keys);
}

/*
 * The document, its three long members written where placeholders stand
 * (a string of byte 1 and a letter, which no other string of it can
 * print as: a quote in one is escaped).
 */
static void print_json(struct poll_ctx *c, const char *name)
{
	static const char *const mark[] = { "\"\\u0001c\"", "\"\\u0001e\"",
					    "\"\\u0001s\"" };
	json_t *root = json_object();
	char *s, *p;
	size_t i;

	json_object_set_new(root, "source", str(name));
	json_object_set_new(root, "comments", str("\001c"));
	json_object_set_new(root, "events", str("\001e"));
	json_object_set_new(root, "series", str("\001s"));
	json_object_set_new(root, "cursor", str_or_null(c->cursor));
	s = json_dumps(root, DUMP_FLAGS);
	for (i = 0, p = s; p && i < PR_ARRAY_SIZE(mark); i++) {
		char *at = strstr(p, mark[i]);

		if (!at)
			break;
		fwrite(p, 1, (size_t)(at - p), stdout);
		if (i == 0)
			put_list(c->comments, c->nr_comments);
		else if (i == 1)
			put_list(c->events, c->nr_events);
		else
			put_series(c->series);
		p = at + strlen(mark[i]);
	}
	if (p)
		printf("%s\n", p);
	free(s);
	json_decref(root);
}

int cmd_poll(int argc, char **argv)
{
	struct poll_ctx c = { false, NULL, NULL, 0, 0, NULL, NULL };
	struct pr_strlist problems = { 0 };
	struct pr_graph *g = NULL;
	const struct pr_graph_node *n;
	const char *file = NULL, *name = NULL, *cursor = NULL;
	struct pr_buf state_dir = PR_BUF_INIT;
	const char *state;
	int i, err, ret = PR_EXIT_OK;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			c.json = true;
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			file = argv[++i];
		} else if (!strcmp(argv[i], "--cursor") && i + 1 < argc) {
			cursor = argv[++i];
		} else if (argv[i][0] != '-' && !name) {
			name = argv[i];
		} else {
			usage();
			return PR_EXIT_USAGE;
		}
	}
	if (!file || !name) {
		usage();
		return PR_EXIT_USAGE;
	}
	if (pr_graph_load(&g, file, pr_builtin_registry(), &problems) < 0) {
		for (i = 0; (size_t)i < problems.nr; i++)
			fprintf(stderr, "patchrelay: error: %s\n",
				problems.items[i]);
		pr_cli_error(NULL);
		ret = PR_EXIT_USAGE;
		goto done;
	}
	n = pr_graph_node(g, "source", name);
	if (!n || !n->connector || !n->connector->poll) {
		fprintf(stderr,
			"patchrelay: error: %s: no source '%s' that "
			"can be polled\n",
			file, name);
		ret = PR_EXIT_USAGE;
		goto done;
	}
	if (n->connector->open &&
	    n->connector->open((struct pr_instance *)&n->inst) < 0) {
		pr_cli_error(name);
		ret = PR_EXIT_USAGE;
		goto done;
	}
	c.series = json_object();
	if (c.json && (!(c.events = tmpfile()) || !(c.comments = tmpfile()))) {
		fprintf(stderr, "patchrelay: error: no temporary file: %s\n",
			strerror(errno));
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	/* nothing is stored, but a remote git source caches beside the state */
	state = g->state ? g->state : PR_CLI_DEFAULT_STATE;
	if ((err = pr_engine_state_dir(&state_dir, state)) == 0) {
		((struct pr_instance *)&n->inst)->state_dir = state_dir.ptr;
		err = n->connector->poll((struct pr_instance *)&n->inst, cursor,
					 on_event, &c);
		((struct pr_instance *)&n->inst)->state_dir = NULL;
	}
	if (n->connector->close)
		n->connector->close((struct pr_instance *)&n->inst);
	if (err < 0) {
		pr_cli_error(NULL);
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	if (c.json)
		print_json(&c, name);
	else if (c.cursor)
		printf("cursor %s\n", c.cursor);
done:
	if (c.events)
		fclose(c.events);
	if (c.comments)
		fclose(c.comments);
	json_decref(c.series);
	free(c.cursor);
	pr_buf_release(&state_dir);
	pr_strlist_release(&problems);
	pr_graph_free(g);
	return ret;
}
