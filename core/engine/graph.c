#include "base/pr.h"
#include "engine/cfg.h"
#include "engine/graph.h"

#include <fnmatch.h>
#include <sys/stat.h>
#include <git2.h>

/* One "section.sub.key = value" of the file, in file order. */
struct entry {
	char *section, *sub, *key, *value;
	bool novalue; /* "[s] key" without "=": git's true */
};

struct loader {
	const char *file;
	const struct pr_registry *reg;
	struct pr_strlist *problems;
	struct entry *entries;
	size_t nr, alloc;
	struct pr_strlist defaults; /* "key\0value" pairs, flattened */
	struct pr_graph *g;
};

static void problem(struct loader *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct loader *l, const char *fmt, ...)
{
	struct pr_buf b = PR_BUF_INIT;
	va_list ap;

	pr_buf_addf(&b, "%s: ", l->file);
	va_start(ap, fmt);
	pr_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	PR_ALLOC_GROW(l->problems->items, l->problems->nr + 1,
		      l->problems->alloc);
	l->problems->items[l->problems->nr++] = pr_buf_detach(&b, NULL);
}

/* "source.a.b.path" -> "source", "a.b", "path": the key has no dot. */
static int split_name(struct entry *e, const char *name, const char *value)
{
	const char *first = strchr(name, '.');
	const char *last = strrchr(name, '.');

	if (!first)
		return -1;
	e->section = pr_strndup(name, first - name);
	e->sub = first == last ? NULL : pr_strndup(first + 1, last - first - 1);
	e->key = pr_strdup(last + 1);
	e->value = pr_strdup(value ? value : "true");
	e->novalue = !value;
	return 0;
}

static int collect(const git_config_entry *ce, void *payload)
{
	struct loader *l = payload;
	struct entry e;

	if (split_name(&e, ce->name, ce->value))
		return 0;
	PR_ALLOC_GROW(l->entries, l->nr + 1, l->alloc);
	l->entries[l->nr++] = e;
	return 0;
}

static bool is_instance_kind(const char *s)
{
	return !strcmp(s, "source") || !strcmp(s, "sink") ||
	       !strcmp(s, "check");
}

static struct pr_graph_node *find_node(struct pr_graph *g, const char *kind,
				       const char *name)
{
	size_t i;

	for (i = 0; i < g->nr_nodes; i++)
		if (!strcmp(g->nodes[i].inst.kind, kind) &&
		    !strcmp(g->nodes[i].inst.name, name))
			return &g->nodes[i];
	return NULL;
}

const struct pr_graph_node *pr_graph_node(const struct pr_graph *g,
					  const char *kind, const char *name)
{
	return find_node((struct pr_graph *)g, kind, name);
}

static struct pr_graph_route *find_route(struct pr_graph *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->nr_routes; i++)
		if (!strcmp(g->routes[i].name, name))
			return &g->routes[i];
	return NULL;
}

/* The last `type =` of an instance section, NULL when none. */
static const char *type_of(struct loader *l, const char *kind, const char *name)
{
	const char *type = NULL;
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->entries[i].section, kind) && l->entries[i].sub &&
		    !strcmp(l->entries[i].sub, name) &&
		    !strcmp(l->entries[i].key, "type"))
			type = l->entries[i].value;
	return type;
}

/* The section sets `key` (whether or not its value parsed). */
static bool has_key(struct loader *l, const char *kind, const char *name,
		    const char *key)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->entries[i].section, kind) && l->entries[i].sub &&
		    !strcmp(l->entries[i].sub, name) &&
		    !strcmp(l->entries[i].key, key))
			return true;
	return false;
}

static void set_opt(struct loader *l, struct pr_graph_node *n,
		    const struct pr_option *opt, const char *value,
		    const char *where)
{
	if (pr_cfg_set_option(n->inst.ctx, opt, value) < 0)
		problem(l, "%s: %s", where, pr_error_message());
}

/* A source's `interval`: a duration of at least one second. */
static void load_interval(struct loader *l, int64_t *out, const char *value,
			  const char *where)
{
	if (pr_cfg_parse_duration(out, value) < 0)
		problem(l, "%s: %s", where, pr_error_message());
	else if (*out < 1000)
		problem(l, "%s: '%s' is under the least interval, 1s", where,
			value);
}

/* A source's `webhook-secret`, for the types of the registry's hook_types. */
static void load_hook_secret(struct loader *l, struct pr_graph_node *n,
			     const char *value, const char *where)
{
	const char *const *t;

	for (t = l->reg->hook_types; t && *t; t++)
		if (!strcmp(*t, n->type))
			break;
	if (!t || !*t) {
		problem(l, "%s: type '%s' takes no webhooks", where, n->type);
		return;
	}
	free(n->webhook_secret);
	n->webhook_secret = NULL;
	if (pr_cfg_read_secret(&n->webhook_secret, value) < 0)
		problem(l, "%s: %s", where, pr_error_message());
	else if (!*n->webhook_secret)
		problem(l, "%s: the secret is empty", where);
}

/*
 * Fill n (zeroed) as the section kind.name of l's entries says: its type
 * looked up, then the table's defaults, [defaults], and the section's keys.
 * False when the type is refused (n then holds nothing); a key refused
 * leaves a problem and the node as far as it got.
 */
static bool node_load(struct loader *l, struct pr_graph_node *n,
		      const char *kind, const char *name, const char *file)
{
	const struct pr_connector_type *ct = NULL;
	const struct pr_plugin_type *pt = NULL;
	const char *type = type_of(l, kind, name);
	const struct pr_option *opt;
	struct pr_buf where = PR_BUF_INIT;
	size_t i;

	if (!type) {
		problem(l, "%s.%s.type: missing required key", kind, name);
		return false;
	}
	if (!strcmp(kind, "check")) {
		pt = pr_registry_plugin(l->reg, type);
		if (!pt) {
			problem(l, "%s.%s.type: unknown plugin type '%s'", kind,
				name, type);
			return false;
		}
	} else {
		ct = pr_registry_connector(l->reg, type);
		if (!ct) {
			problem(l, "%s.%s.type: unknown connector type '%s'",
				kind, name, type);
			return false;
		}
		if (!strcmp(kind, "source") && !(ct->caps & PR_CAP_SOURCE)) {
			problem(l,
				"%s.%s.type: connector '%s' cannot be a source",
				kind, name, type);
			return false;
		}
		if (!strcmp(kind, "sink") && !(ct->caps & PR_CAP_SINK)) {
			problem(l,
				"%s.%s.type: connector '%s' cannot be a sink",
				kind, name, type);
			return false;
		}
	}

	n->connector = ct;
	n->plugin = pt;
	n->options = ct ? ct->options : pt->options;
	n->inst.name = pr_strdup(name);
	n->inst.kind = pr_strdup(kind);
	n->inst.file = file;
	n->type = pr_strdup(type);
	n->inst.ctx = pr_calloc(1, (ct ? ct->ctx_size : pt->ctx_size) + 1);
	snprintf(n->inst.prefix, sizeof(n->inst.prefix), "%s:%s", type, name);

	/* The table's defaults, then [defaults], then the section itself. */
	for (opt = n->options; opt && opt->key; opt++)
		if (opt->def)
			set_opt(l, n, opt, opt->def, opt->key);
	for (i = 0; i + 1 < l->defaults.nr; i += 2) {
		opt = pr_cfg_find_option(n->options, l->defaults.items[i]);
		if (!opt)
			continue;
		pr_buf_reset(&where);
		pr_buf_addf(&where, "defaults.%s", opt->key);
		set_opt(l, n, opt, l->defaults.items[i + 1], where.ptr);
	}
	for (i = 0; i < l->nr; i++) {
		struct entry *e = &l->entries[i];

		if (strcmp(e->section, kind) || !e->sub ||
		    strcmp(e->sub, name) || !strcmp(e->key, "type"))
			continue;
		pr_buf_reset(&where);
		pr_buf_addf(&where, "%s.%s.%s", kind, name, e->key);
		if (!strcmp(kind, "source") && !strcmp(e->key, "interval")) {
			load_interval(l, &n->interval_ms, e->value, where.ptr);
			continue;
		}
		if (!strcmp(kind, "source") &&
		    !strcmp(e->key, "webhook-secret")) {
			load_hook_secret(l, n, e->value, where.ptr);
			continue;
		}
		opt = pr_cfg_find_option(n->options, e->key);
		if (!opt) {
			problem(l, "%s: unknown key for type '%s'", where.ptr,
				type);
			continue;
		}
		if (e->novalue && opt->type != PR_OPT_BOOL)
			problem(l, "%s: missing value", where.ptr);
		else
			set_opt(l, n, opt, e->value, where.ptr);
	}
	for (opt = n->options; opt && opt->key; opt++)
		if (opt->required && !pr_cfg_option_is_set(n->inst.ctx, opt) &&
		    !has_key(l, kind, name, opt->key))
			problem(l, "%s.%s.%s: missing required key", kind, name,
				opt->key);
	pr_buf_release(&where);
	return true;
}

/* Free what node_load gave n. */
static void node_release(struct pr_graph_node *n)
{
	pr_cfg_options_release(n->inst.ctx, n->options);
	free(n->inst.ctx);
	free((char *)n->inst.name);
	free((char *)n->inst.kind);
	free((char *)n->type);
	if (n->webhook_secret) {
		/* a secret does not linger in freed memory */
		memset(n->webhook_secret, 0, strlen(n->webhook_secret));
		free(n->webhook_secret);
	}
}

/* Create the node of one instance section and parse its keys. */
static void load_instance(struct loader *l, const char *kind, const char *name)
{
	struct pr_graph *g = l->g;
	struct pr_graph_node n = { 0 };

	if (!node_load(l, &n, kind, name, g->file))
		return;
	if (!strcmp(kind, "source") && !n.interval_ms)
		n.interval_ms = g->interval_ms;
	PR_ALLOC_GROW(g->nodes, g->nr_nodes + 1, g->alloc_nodes);
	g->nodes[g->nr_nodes++] = n;
}

static void load_route_key(struct loader *l, struct pr_graph_route *r,
			   const struct entry *e)
{
	struct pr_strlist *list = NULL;
	char **single = NULL;

	if (!strcmp(e->key, "from"))
		single = &r->from;
	else if (!strcmp(e->key, "feedback"))
		single = &r->feedback;
	else if (!strcmp(e->key, "report-context"))
		single = &r->report_context;
	else if (!strcmp(e->key, "report-to"))
		list = &r->report_to;
	else if (!strcmp(e->key, "step"))
		list = &r->steps;
	else if (!strcmp(e->key, "to"))
		list = &r->to;
	else if (!strcmp(e->key, "include-path"))
		list = &r->include_path;
	else if (!strcmp(e->key, "include-subsystem"))
		list = &r->include_subsystem;
	else if (!strcmp(e->key, "exclude-subsystem"))
		list = &r->exclude_subsystem;
	else if (!strcmp(e->key, "max-recipients")) {
		if (pr_cfg_parse_int(&r->max_recipients, e->value) < 0 ||
		    r->max_recipients < 1)
			problem(l,
				"route.%s.max-recipients: must be a number, "
				"1 or more",
				r->name);
		return;
	} else if (!strcmp(e->key, "bridge")) {
		if (pr_cfg_parse_bool(&r->bridge, e->value) < 0)
			problem(l, "route.%s.bridge: %s", r->name,
				pr_error_message());
		return;
	} else {
		problem(l, "route.%s.%s: unknown key", r->name, e->key);
		return;
	}
	if (single) {
		free(*single);
		*single = pr_strdup(e->value);
	} else {
		pr_strlist_add(list, e->value);
	}
}

/* A name that failed to load still names an instance: no second message. */
static bool declared(struct loader *l, const char *kind, const char *name)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->entries[i].section, kind) && l->entries[i].sub &&
		    !strcmp(l->entries[i].sub, name))
			return true;
	return false;
}

/* Whether a mail sink's options name a sender (what a reply needs). */
static bool has_from(const struct pr_graph_node *n)
{
	const struct pr_option *o;

	for (o = n->options; o && o->key; o++)
		if (!strcmp(o->key, "from"))
			return true;
	return false;
}

/*
 * A report-to name: a source or sink whose connector shows reports (a
 * report op), or a mail sink that names a sender (a reply to the cover
 * letter).
 */
static void check_report_to(struct loader *l, const struct pr_graph_route *r,
			    const char *name)
{
	const struct pr_graph_node *src = find_node(l->g, "source", name);
	const struct pr_graph_node *sink = find_node(l->g, "sink", name);

	if ((src && src->connector->report) ||
	    (sink && (sink->connector->report ||
		      (sink->connector->deliver && has_from(sink)))))
		return;
	if (src || sink)
		problem(l,
			"route.%s.report-to: connector '%s' of '%s' cannot "
			"show a report",
			r->name, (src ? src : sink)->type, name);
	else if (!declared(l, "source", name) && !declared(l, "sink", name))
		problem(l, "route.%s.report-to: unknown source or sink '%s'",
			r->name, name);
}

static void check_route(struct loader *l, struct pr_graph_route *r)
{
	const struct pr_graph_node *n;
	size_t i;

	if (!r->from)
		problem(l, "route.%s.from: missing required key", r->name);
	else if (declared(l, "sink", r->from) &&
		 !declared(l, "source", r->from))
		problem(l, "route.%s.from: sink '%s' used as a source", r->name,
			r->from);
	else if (!declared(l, "source", r->from))
		problem(l, "route.%s.from: unknown source '%s'", r->name,
			r->from);
	if (!r->to.nr)
		problem(l, "route.%s.to: missing required key", r->name);
	for (i = 0; i < r->to.nr; i++) {
		if (declared(l, "sink", r->to.items[i]))
			continue;
		if (declared(l, "source", r->to.items[i]))
			problem(l, "route.%s.to: source '%s' used as a sink",
				r->name, r->to.items[i]);
		else
			problem(l, "route.%s.to: unknown sink '%s'", r->name,
				r->to.items[i]);
	}
	for (i = 0; i < r->steps.nr; i++)
		if (!declared(l, "check", r->steps.items[i]))
			problem(l, "route.%s.step: unknown check '%s'", r->name,
				r->steps.items[i]);
	if (r->feedback) {
		n = find_node(l->g, "source", r->feedback);
		if (!n)
			n = find_node(l->g, "sink", r->feedback);
		if (!n && !declared(l, "source", r->feedback) &&
		    !declared(l, "sink", r->feedback))
			problem(l,
				"route.%s.feedback: unknown source or sink '%s'",
				r->name, r->feedback);
		else if (n && !(n->connector->caps & PR_CAP_FEEDBACK))
			problem(l,
				"route.%s.feedback: connector '%s' of '%s' "
				"cannot take feedback",
				r->name, n->type, r->feedback);
	}
	for (i = 0; i < r->report_to.nr; i++)
		check_report_to(l, r, r->report_to.items[i]);
	if (r->report_context && !*r->report_context)
		problem(l, "route.%s.report-context: empty", r->name);
}

/* True when `to` reaches `target` through routes, `seen` marking routes. */
static bool reaches(struct loader *l, const char *from, const char *target,
		    bool *seen)
{
	const struct pr_graph *g = l->g;
	size_t i, j;

	if (!strcmp(from, target))
		return true;
	for (i = 0; i < g->nr_routes; i++) {
		const struct pr_graph_route *r = &g->routes[i];

		if (seen[i] || !r->from || strcmp(r->from, from) ||
		    !declared(l, "source", r->from))
			continue;
		seen[i] = true;
		for (j = 0; j < r->to.nr; j++)
			if (declared(l, "sink", r->to.items[j]) &&
			    reaches(l, r->to.items[j], target, seen))
				return true;
	}
	return false;
}

/*
 * A route A -> B with B routing back to A would send each series round the
 * loop for ever unless the connectors know it is a bridge (they then drop
 * what they sent themselves); so the user must say so on each such route.
 */
static void check_cycles(struct loader *l)
{
	struct pr_graph *g = l->g;
	bool *seen = pr_calloc(g->nr_routes + 1, sizeof(*seen));
	size_t i, j;

	for (i = 0; i < g->nr_routes; i++) {
		struct pr_graph_route *r = &g->routes[i];

		if (r->bridge || !r->from || !declared(l, "source", r->from))
			continue;
		for (j = 0; j < r->to.nr; j++) {
			memset(seen, 0, (g->nr_routes + 1) * sizeof(*seen));
			if (!declared(l, "sink", r->to.items[j]) ||
			    !reaches(l, r->to.items[j], r->from, seen))
				continue;
			problem(l,
				"route.%s.to: '%s' routes back to '%s', a cycle "
				"not marked 'bridge = true'",
				r->name, r->to.items[j], r->from);
		}
	}
	free(seen);
}

static void load_core(struct loader *l, const struct entry *e)
{
	enum pr_log_level level;
	char **slot;

	if (!strcmp(e->key, "state")) {
		slot = &l->g->state;
	} else if (!strcmp(e->key, "http")) {
		struct sockaddr_storage addr;
		socklen_t len;

		if (pr_cfg_parse_listen(&addr, &len, e->value) < 0) {
			problem(l, "core.http: %s", pr_error_message());
			return;
		}
		slot = &l->g->http;
	} else if (!strcmp(e->key, "log-level")) {
		if (pr_log_level_parse(&level, e->value) < 0) {
			problem(l, "core.log-level: bad value '%s'", e->value);
			return;
		}
		slot = &l->g->log_level;
	} else {
		problem(l, "core.%s: unknown key", e->key);
		return;
	}
	free(*slot);
	*slot = pr_strdup(e->value);
}

/* A [defaults] key must be an option of at least one registered type. */
static bool any_type_has(const struct pr_registry *reg, const char *key)
{
	size_t i;

	for (i = 0; i < reg->nr_connectors; i++)
		if (pr_cfg_find_option(reg->connectors[i]->options, key))
			return true;
	for (i = 0; i < reg->nr_plugins; i++)
		if (pr_cfg_find_option(reg->plugins[i]->options, key))
			return true;
	return false;
}

static void load_sections(struct loader *l)
{
	struct pr_graph *g = l->g;
	struct pr_graph_route *r;
	size_t i;

	for (i = 0; i < l->nr; i++) {
		struct entry *e = &l->entries[i];

		/* libgit2 has followed includes already */
		if (!strcmp(e->section, "include") ||
		    !strcmp(e->section, "includeif"))
			continue;
		if (!strcmp(e->section, "core") && !e->sub) {
			load_core(l, e);
		} else if (!strcmp(e->section, "defaults") && !e->sub &&
			   !strcmp(e->key, "interval")) {
			load_interval(l, &g->interval_ms, e->value,
				      "defaults.interval");
		} else if (!strcmp(e->section, "defaults") && !e->sub) {
			if (!any_type_has(l->reg, e->key)) {
				problem(l, "defaults.%s: unknown key", e->key);
				continue;
			}
			pr_strlist_add(&l->defaults, e->key);
			pr_strlist_add(&l->defaults, e->value);
		} else if (is_instance_kind(e->section) ||
			   !strcmp(e->section, "route")) {
			if (!e->sub) {
				problem(l, "%s.%s: section [%s] needs a name",
					e->section, e->key, e->section);
				continue;
			}
			if (strcmp(e->section, "route"))
				continue;
			r = find_route(g, e->sub);
			if (!r) {
				PR_ALLOC_GROW(g->routes, g->nr_routes + 1,
					      g->alloc_routes);
				r = &g->routes[g->nr_routes++];
				memset(r, 0, sizeof(*r));
				r->name = pr_strdup(e->sub);
			}
			load_route_key(l, r, e);
		} else {
			problem(l, "%s%s%s.%s: unknown section kind '%s'",
				e->section, e->sub ? "." : "",
				e->sub ? e->sub : "", e->key, e->section);
		}
	}
	/* instances in file order of their first key */
	for (i = 0; i < l->nr; i++) {
		struct entry *e = &l->entries[i];
		size_t j;
		bool first = true;

		if (!is_instance_kind(e->section) || !e->sub)
			continue;
		for (j = 0; j < i && first; j++)
			if (!strcmp(l->entries[j].section, e->section) &&
			    l->entries[j].sub &&
			    !strcmp(l->entries[j].sub, e->sub))
				first = false;
		if (first)
			load_instance(l, e->section, e->sub);
	}
	for (i = 0; i < g->nr_routes; i++)
		check_route(l, &g->routes[i]);
	check_cycles(l);
}

static int read_file(struct loader *l, const char *path)
{
	git_config *cfg = NULL;
	const git_error *ge;
	struct stat st;
	int err = 0;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		problem(l, "cannot read config file");
		return PR_ENOENT;
	}
	if ((size_t)st.st_size > PR_LIMIT_CONFIG_BYTES) {
		problem(l, "config file larger than %zu MiB",
			PR_LIMIT_CONFIG_BYTES / PR_MIB);
		return PR_ETOOBIG;
	}
	if (git_config_new(&cfg) < 0 ||
	    git_config_add_file_ondisk(cfg, path, GIT_CONFIG_LEVEL_APP, NULL,
				       0) < 0 ||
	    git_config_foreach(cfg, collect, l) < 0) {
		ge = git_error_last();
		problem(l, "%s",
			ge && ge->message ? ge->message : "bad syntax");
		err = PR_EPARSE;
	}
	git_config_free(cfg);
	return err;
}

static void free_entries(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->entries[i].section);
		free(l->entries[i].sub);
		free(l->entries[i].key);
		free(l->entries[i].value);
	}
	free(l->entries);
	pr_strlist_release(&l->defaults);
}

int pr_graph_load(struct pr_graph **out, const char *path,
		  const struct pr_registry *reg, struct pr_strlist *problems)
{
	struct loader l = { 0 };
	size_t before = problems->nr;
	int err;

	*out = NULL;
	l.file = path;
	l.reg = reg;
	l.problems = problems;
	l.g = pr_calloc(1, sizeof(*l.g));
	l.g->file = pr_strdup(path);

	git_libgit2_init();
	err = read_file(&l, path);
	git_libgit2_shutdown();
	if (!err)
		load_sections(&l);
	free_entries(&l);
	if (problems->nr > before) {
		pr_graph_free(l.g);
		return pr_error(PR_ECONFIG, "%zu problem%s in config '%s'",
				problems->nr - before,
				problems->nr - before == 1 ? "" : "s", path);
	}
	*out = l.g;
	return 0;
}

/* An entry of section [check "sub"]; value NULL: the key alone. */
static void add_entry(struct loader *l, const char *sub, const char *key,
		      const char *value)
{
	struct entry *e;

	PR_ALLOC_GROW(l->entries, l->nr + 1, l->alloc);
	e = &l->entries[l->nr++];
	e->section = pr_strdup("check");
	e->sub = pr_strdup(sub);
	e->key = pr_strdup(key);
	e->value = pr_strdup(value ? value : "true");
	e->novalue = !value;
}

/* "key=value" (or "key") as an entry of [check "type"]. */
static void add_setting(struct loader *l, const char *type, const char *s)
{
	const char *eq = strchr(s, '=');
	char *key = eq ? pr_strndup(s, (size_t)(eq - s)) : pr_strdup(s);

	if (!strcmp(key, "type"))
		problem(l, "check.%s.type: the type cannot be set again", type);
	else
		add_entry(l, type, key, eq ? eq + 1 : NULL);
	free(key);
}

int pr_graph_step_new(struct pr_graph_node **out, const struct pr_registry *reg,
		      const char *origin, const char *type,
		      const struct pr_strlist *settings,
		      struct pr_strlist *problems)
{
	const struct pr_plugin_type *pt = pr_registry_plugin(reg, type);
	struct pr_graph_node *n = pr_calloc(1, sizeof(*n));
	struct loader l = { 0 };
	size_t before = problems->nr, i;
	bool loaded;

	*out = NULL;
	l.file = origin;
	l.reg = reg;
	l.problems = problems;
	add_entry(&l, type, "type", type);
	for (i = 0; pt && pt->step_defaults && pt->step_defaults[i]; i++)
		add_setting(&l, type, pt->step_defaults[i]);
	for (i = 0; settings && i < settings->nr; i++)
		add_setting(&l, type, settings->items[i]);
	loaded = node_load(&l, n, "check", type, NULL);
	free_entries(&l);
	if (loaded)
		n->inst.file = pr_strdup(origin);
	if (problems->nr > before) {
		/* a node whose type was refused is still zeroed: safe */
		pr_graph_step_free(n);
		return pr_error(PR_ECONFIG, "%zu problem%s in %s",
				problems->nr - before,
				problems->nr - before == 1 ? "" : "s", origin);
	}
	*out = n;
	return 0;
}

void pr_graph_step_free(struct pr_graph_node *n)
{
	if (!n)
		return;
	node_release(n);
	free((char *)n->inst.file);
	free(n);
}

static void route_release(struct pr_graph_route *r)
{
	free(r->name);
	free(r->from);
	free(r->feedback);
	free(r->report_context);
	pr_strlist_release(&r->report_to);
	pr_strlist_release(&r->steps);
	pr_strlist_release(&r->to);
	pr_strlist_release(&r->include_path);
	pr_strlist_release(&r->include_subsystem);
	pr_strlist_release(&r->exclude_subsystem);
}

void pr_graph_free(struct pr_graph *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->nr_nodes; i++)
		node_release(&g->nodes[i]);
	for (i = 0; i < g->nr_routes; i++)
		route_release(&g->routes[i]);
	free(g->nodes);
	free(g->routes);
	free(g->state);
	free(g->log_level);
	free(g->http);
	free(g->file);
	free(g);
}

static bool path_under(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	if (strpbrk(prefix, "*?["))
		return !fnmatch(prefix, path, 0);
	while (n && prefix[n - 1] == '/')
		n--;
	if (!n)
		return true;
	return !strncmp(prefix, path, n) && (path[n] == '/' || !path[n]);
}

bool pr_graph_route_takes(const struct pr_graph_route *r,
			  const char *const *paths, size_t nr)
{
	size_t i, j;

	if (!r->include_path.nr)
		return true;
	for (i = 0; i < nr; i++)
		for (j = 0; j < r->include_path.nr; j++)
			if (path_under(r->include_path.items[j], paths[i]))
				return true;
	return false;
}

int pr_graph_route_sections(const struct pr_graph *g,
			    const struct pr_graph_route *r,
			    const struct pr_version *v,
			    struct pr_strlist *touched, const char **excluded)
{
	const struct pr_graph_node *n = NULL;
	bool in = !r->include_subsystem.nr;
	size_t i, j;
	int err;

	*excluded = NULL;
	if (!r->include_subsystem.nr && !r->exclude_subsystem.nr)
		return 1;
	for (i = 0; i < r->steps.nr && !n; i++) {
		n = pr_graph_node(g, "check", r->steps.items[i]);
		if (n && (!n->plugin || !n->plugin->sections))
			n = NULL;
	}
	if (!n)
		return pr_error(PR_ECONFIG,
				"route '%s': include-subsystem and "
				"exclude-subsystem need a step of type "
				"maintainers",
				r->name);
	/* sections() may load and keep MAINTAINERS in the instance's state */
	err = n->plugin->sections((struct pr_instance *)&n->inst, v, touched);
	if (err)
		return err;
	for (i = 0; i < touched->nr; i++) {
		for (j = 0; j < r->exclude_subsystem.nr && !*excluded; j++)
			if (!strcasecmp(touched->items[i],
					r->exclude_subsystem.items[j]))
				*excluded = touched->items[i];
		for (j = 0; j < r->include_subsystem.nr; j++)
			if (!strcasecmp(touched->items[i],
					r->include_subsystem.items[j]))
				in = true;
	}
	return in && !*excluded;
}

static void print_list(struct pr_buf *out, const char *key,
		       const struct pr_strlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		pr_buf_addf(out, "    %s = %s\n", key, l->items[i]);
}

static void print_text(struct pr_buf *out, const struct pr_graph *g)
{
	const struct pr_option *opt;
	size_t i, j;

	pr_buf_addf(out, "config %s\n", g->file);
	if (g->state)
		pr_buf_addf(out, "core.state = %s\n", g->state);
	if (g->log_level)
		pr_buf_addf(out, "core.log-level = %s\n", g->log_level);
	if (g->http)
		pr_buf_addf(out, "core.http = %s\n", g->http);
	for (i = 0; i < g->nr_nodes; i++) {
		const struct pr_graph_node *n = &g->nodes[i];

		pr_buf_addf(out, "%s %s (%s)\n", n->inst.kind, n->inst.name,
			    n->type);
		if (n->interval_ms)
			pr_buf_addf(out, "    interval = %lldms\n",
				    (long long)n->interval_ms);
		if (n->webhook_secret)
			pr_buf_adds(out, "    webhook-secret = <redacted>\n");
		for (opt = n->options; opt && opt->key; opt++) {
			if (!pr_cfg_option_is_set(n->inst.ctx, opt))
				continue;
			pr_buf_addf(out, "    %s = ", opt->key);
			pr_cfg_format_option(out, n->inst.ctx, opt);
			pr_buf_addch(out, '\n');
		}
	}
	for (i = 0; i < g->nr_routes; i++) {
		const struct pr_graph_route *r = &g->routes[i];

		pr_buf_addf(out, "route %s: %s", r->name, r->from);
		for (j = 0; j < r->steps.nr; j++)
			pr_buf_addf(out, " -> %s", r->steps.items[j]);
		pr_buf_adds(out, " ->");
		for (j = 0; j < r->to.nr; j++)
			pr_buf_addf(out, "%s%s", j ? ", " : " ",
				    r->to.items[j]);
		pr_buf_addch(out, '\n');
		if (r->feedback)
			pr_buf_addf(out, "    feedback = %s\n", r->feedback);
		print_list(out, "report-to", &r->report_to);
		if (r->report_context)
			pr_buf_addf(out, "    report-context = %s\n",
				    r->report_context);
		if (r->bridge)
			pr_buf_adds(out, "    bridge = true\n");
		if (r->max_recipients)
			pr_buf_addf(out, "    max-recipients = %lld\n",
				    (long long)r->max_recipients);
		print_list(out, "include-path", &r->include_path);
		print_list(out, "include-subsystem", &r->include_subsystem);
		print_list(out, "exclude-subsystem", &r->exclude_subsystem);
	}
}

/* A DOT double-quoted ID: backslash and quote escaped. */
static void dot_id(struct pr_buf *out, const char *kind, const char *name)
{
	pr_buf_addf(out, "\"%s:", kind);
	for (; *name; name++) {
		if (*name == '"' || *name == '\\')
			pr_buf_addch(out, '\\');
		pr_buf_addch(out, *name);
	}
	pr_buf_addch(out, '"');
}

static void dot_edge(struct pr_buf *out, const char *k1, const char *n1,
		     const char *k2, const char *n2, const char *route,
		     bool dashed)
{
	pr_buf_adds(out, "\t");
	dot_id(out, k1, n1);
	pr_buf_adds(out, " -> ");
	dot_id(out, k2, n2);
	pr_buf_adds(out, " [label=");
	dot_id(out, "route", route);
	pr_buf_adds(out, dashed ? ", style=dashed];\n" : "];\n");
}

static void print_dot(struct pr_buf *out, const struct pr_graph *g)
{
	size_t i, j;

	pr_buf_adds(out, "digraph patchrelay {\n\trankdir=LR;\n");
	for (i = 0; i < g->nr_nodes; i++) {
		const struct pr_graph_node *n = &g->nodes[i];
		const char *shape = !strcmp(n->inst.kind, "source") ? "box"
				    : !strcmp(n->inst.kind, "sink") ? "box3d"
								    : "diamond";

		pr_buf_adds(out, "\t");
		dot_id(out, n->inst.kind, n->inst.name);
		pr_buf_addf(out, " [shape=%s, label=", shape);
		dot_id(out, n->type, n->inst.name);
		pr_buf_adds(out, "];\n");
	}
	for (i = 0; i < g->nr_routes; i++) {
		const struct pr_graph_route *r = &g->routes[i];
		const char *kind = "source", *last = r->from;

		for (j = 0; j < r->steps.nr; j++) {
			dot_edge(out, kind, last, "check", r->steps.items[j],
				 r->name, false);
			kind = "check";
			last = r->steps.items[j];
		}
		for (j = 0; j < r->to.nr; j++)
			dot_edge(out, kind, last, "sink", r->to.items[j],
				 r->name, false);
		if (r->feedback)
			dot_edge(out, "sink", r->to.items[0],
				 find_node((struct pr_graph *)g, "source",
					   r->feedback)
					 ? "source"
					 : "sink",
				 r->feedback, r->name, true);
	}
	pr_buf_adds(out, "}\n");
}

int pr_graph_print(struct pr_buf *out, const struct pr_graph *g, bool dot)
{
	if (dot)
		print_dot(out, g);
	else
		print_text(out, g);
	return 0;
}

/*
 * A node's option by its key, looked up in the node's own option table, so
 * that any sink type with a `from`, `to`, `cc` or `archive-url` option gets
 * the same treatment.  NULL when the type has no such option.
 */
const void *pr_graph_node_option(const struct pr_graph_node *n, const char *key,
				 enum pr_opt_type *type)
{
	const struct pr_option *o;

	for (o = n->options; o && o->key; o++)
		if (!strcmp(o->key, key)) {
			*type = o->type;
			return (const char *)n->inst.ctx + o->offset;
		}
	return NULL;
}

const char *pr_graph_node_string(const struct pr_graph_node *n, const char *key)
{
	enum pr_opt_type t;
	const void *p = pr_graph_node_option(n, key, &t);

	if (!p || (t != PR_OPT_STRING && t != PR_OPT_ENUM && t != PR_OPT_PATH))
		return NULL;
	return *(char *const *)p;
}

/* A list option as is; a string option as a list of one in *tmp. */
const struct pr_strlist *pr_graph_node_list(struct pr_strlist *tmp,
					    const struct pr_graph_node *n,
					    const char *key)
{
	enum pr_opt_type t;
	const void *p = pr_graph_node_option(n, key, &t);

	if (p && t == PR_OPT_LIST)
		return p;
	if (p && t == PR_OPT_STRING && *(char *const *)p) {
		pr_strlist_add(tmp, *(char *const *)p);
		return tmp;
	}
	return NULL;
}
