#ifndef PR_GRAPH_H
#define PR_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/registry.h"

/*
 * The config graph: every source, sink and check instance of a config file
 * with its options parsed, and the routes between them.
 *
 * - pr_graph_load builds a fresh graph or none: on any problem it returns
 *   PR_ECONFIG, *out stays NULL, and `problems` holds one line per problem,
 *   all of them, each "FILE: SECTION.NAME.KEY: what is wrong".  So a reload
 *   builds beside the running graph and replaces it only on success.
 * - A loaded graph is valid: every type is known and has the capability its
 *   section needs, every required key is set, every name in a route names
 *   an instance of the right kind, and no route cycle is left unmarked.
 * - A source and a sink with the same name are the same endpoint (a
 *   connector that is both, such as a GitHub repository); this is how a
 *   cycle is seen.  A route from A to B while B routes back to A is refused
 *   unless every route on the cycle says `bridge = true`.
 * - `interval` (a duration) is a key of every source section and of
 *   [defaults], whatever the source's type: how often the run loop polls
 *   that source.  It is not an option of the connector (no table has it).
 * - `webhook-secret` (a secret) is a key of a source section whose type is
 *   one of the registry's hook_types: the secret its webhooks at
 *   /hooks/NAME must carry (web/hook.h); it is read at load like every
 *   secret and never printed.  `core.http` is the built-in web server's
 *   listen address (pr_cfg_parse_listen), checked at load.
 * - The graph owns every string in it; nodes and routes do not move after
 *   load.  pr_graph_free(NULL) is safe.
 */

struct pr_graph_node {
	struct pr_instance inst; /* name, kind, file, ctx */
	const char *type; /* the `type =` value */
	const struct pr_connector_type *connector; /* source or sink */
	const struct pr_plugin_type *plugin; /* check */
	const struct pr_option *options;
	/* source: its `interval` key in ms, else [defaults]; 0: neither */
	int64_t interval_ms;
	/* source: its `webhook-secret`, read; NULL: takes no webhooks */
	char *webhook_secret;
};

struct pr_graph_route {
	char *name;
	char *from;
	struct pr_strlist steps; /* check names, in order */
	struct pr_strlist to; /* sink names, at least one */
	char *feedback; /* NULL: none */
	/* where the report is shown (engine/report_fanout.h) */
	struct pr_strlist report_to;
	char *report_context; /* NULL: "patchrelay/" and the route's name */
	struct pr_strlist include_path; /* prefixes or globs; none: all */
	struct pr_strlist include_subsystem;
	struct pr_strlist exclude_subsystem;
	bool bridge;
	/* a delivery to more addresses is refused; 0: no cap */
	int64_t max_recipients;
};

struct pr_graph {
	char *file;
	char *state; /* core.state, NULL: the default */
	char *log_level; /* core.log-level, NULL: the default */
	char *http; /* core.http, NULL: no web server */
	int64_t interval_ms; /* defaults.interval, 0: not set */
	struct pr_graph_node *nodes;
	size_t nr_nodes, alloc_nodes;
	struct pr_graph_route *routes;
	size_t nr_routes, alloc_routes;
};

int pr_graph_load(struct pr_graph **out, const char *path,
		  const struct pr_registry *reg, struct pr_strlist *problems);
void pr_graph_free(struct pr_graph *g);

/*
 * One check instance made outside a config file (`patchrelay check --step
 * TYPE:key=value,...`), exactly as the loader makes a [check "TYPE"]
 * section of `settings`, each "key=value" or "key" alone (a boolean's
 * true): the type looked up in reg, the table's defaults, then the type's
 * step_defaults, then the settings in order, each parsed by its option's
 * type, with the same refusals (an unknown key, a bad value, a missing
 * required key) in the same words.  Each problem is one line of
 * `problems`, "ORIGIN: check.TYPE.KEY: what is wrong", origin standing
 * where a config file's name stands.  On a problem *out stays NULL and
 * PR_ECONFIG is returned.  The node is named TYPE and owns all it holds;
 * free it with pr_graph_step_free (NULL is safe) after its plugin's close.
 */
int pr_graph_step_new(struct pr_graph_node **out, const struct pr_registry *reg,
		      const char *origin, const char *type,
		      const struct pr_strlist *settings,
		      struct pr_strlist *problems);
void pr_graph_step_free(struct pr_graph_node *n);

/* The instance of `kind` ("source", "sink", "check") named `name`. */
const struct pr_graph_node *pr_graph_node(const struct pr_graph *g,
					  const char *kind, const char *name);
/*
 * Whether route `r` takes a series touching `paths` by its include-path
 * filter: true when the route has none, or when a path is under one of its
 * values ("net" and "net/" take "net/core/dev.c", not "network.c"), or
 * matches one as a glob when the value holds '*', '?' or '['.  The
 * subsystem filters are not applied here (they need MAINTAINERS).
 */
bool pr_graph_route_takes(const struct pr_graph_route *r,
			  const char *const *paths, size_t nr);

/*
 * A node's option by its key, looked up in its type's option table, so
 * that any type with such an option gets the same treatment: its value's
 * address inside the node's context and its type; NULL when the type has
 * no such option.
 */
const void *pr_graph_node_option(const struct pr_graph_node *n, const char *key,
				 enum pr_opt_type *type);
/* A string, enum or path option's value; NULL when none or not one. */
const char *pr_graph_node_string(const struct pr_graph_node *n,
				 const char *key);
/* A list option as is; a string option as a list of one in *tmp; NULL. */
const struct pr_strlist *pr_graph_node_list(struct pr_strlist *tmp,
					    const struct pr_graph_node *n,
					    const char *key);

/*
 * Whether route `r` of g takes version v by its include-subsystem and
 * exclude-subsystem: the first step of r whose plugin has sections() names
 * the MAINTAINERS sections v touches, appended to `touched`.  Returns 1
 * when r takes v (also when r has neither key), 0 when it does not, with
 * *excluded the first touched section that exclude-subsystem names (NULL:
 * none of them is in include-subsystem), or a negative PR_E* code
 * (PR_ECONFIG when no step of r has sections()).
 */
int pr_graph_route_sections(const struct pr_graph *g,
			    const struct pr_graph_route *r,
			    const struct pr_version *v,
			    struct pr_strlist *touched, const char **excluded);

/* Append the graph as text, or as Graphviz DOT when `dot`. */
int pr_graph_print(struct pr_buf *out, const struct pr_graph *g, bool dot);

#endif
