#ifndef PR_REGISTRY_H
#define PR_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strlist.h"
#include "model/model.h"
#include "model/report.h"

/*
 * Connector and plugin types (DESIGN.md section 3).  A type is one const
 * definition; the table of built-in types lives in cli/registry.c and is
 * handed to the engine, so nothing in core/ includes a connector or plugin
 * header.
 *
 * Options: each type declares a table of pr_option, ended by a {NULL} entry.
 * The config loader parses each key of the instance's section by the
 * option's type and stores the value at `offset` inside the instance's
 * context (ctx_size bytes, zeroed, owned by the engine):
 *
 *	PR_OPT_STRING, PR_OPT_PATH, PR_OPT_ENUM, PR_OPT_SECRET: char *
 *	PR_OPT_BOOL: bool
 *	PR_OPT_INT: int64_t
 *	PR_OPT_SIZE: uint64_t (bytes; "2M", "512k")
 *	PR_OPT_DURATION: int64_t (milliseconds; "30s", "5m", "250ms")
 *	PR_OPT_LIST: struct pr_strlist (a repeated key)
 *
 * A secret is written "file:PATH" or "env:NAME"; the context holds the
 * secret's value, and it prints as "<redacted>".
 */

#define PR_ABI_VERSION 1

enum pr_opt_type {
	PR_OPT_STRING = 0,
	PR_OPT_PATH,
	PR_OPT_BOOL,
	PR_OPT_INT,
	PR_OPT_SIZE,
	PR_OPT_DURATION,
	PR_OPT_LIST,
	PR_OPT_ENUM,
	PR_OPT_SECRET,
};

struct pr_option {
	const char *key;
	enum pr_opt_type type;
	const char *def; /* default as config text; NULL: none */
	const char *help;
	size_t offset;
	bool required;
	const char *const *choices; /* PR_OPT_ENUM: NULL-terminated */
};

#define PR_OPTIONS_END                              \
	{                                           \
		NULL, 0, NULL, NULL, 0, false, NULL \
	}

enum {
	PR_CAP_SOURCE = 1 << 0,
	PR_CAP_SINK = 1 << 1,
	PR_CAP_FEEDBACK = 1 << 2,
};

/* What a sink says of one delivery. */
enum pr_deliver_status {
	PR_DELIVER_OK = 0,
	PR_DELIVER_RETRY, /* try again after retry_after_ms */
	PR_DELIVER_REJECTED, /* permanent: reason says why */
};

struct pr_deliver_result {
	enum pr_deliver_status status;
	int64_t retry_after_ms;
	char *reason;
};

/* One configured instance: "[sink \"netdev\"]" with its context. */
struct pr_instance {
	const char *name; /* section subsection: "netdev" */
	const char *kind; /* "source", "sink", "check" */
	const char *file; /* config file that defined it */
	void *ctx; /* ctx_size bytes, options filled in */
	void *state; /* whatever open() allocates; close() frees */
	/*
	 * The directory of the state file while the engine polls this
	 * instance or runs this step, where it keeps what it caches
	 * between passes (the git source's fetched repository, kernel-ci's
	 * trees and logs); NULL otherwise.
	 */
	const char *state_dir;
	/*
	 * The state store while the engine's pass calls this instance (poll,
	 * deliver, feedback, landed), for what a connector keeps beside it
	 * (engine/notes.h); NULL otherwise.
	 */
	struct pr_store *store;
	/*
	 * While the engine polls this source: the poll was asked for by a
	 * webhook (pr_engine_opts.hooked).  A source that skips the polls it
	 * believes idle (gerrit, whose stream says when) reads anyway: the
	 * hook is news its own signal may not have brought yet.
	 */
	bool hooked;
	char prefix[160]; /* log prefix: "smtp:netdev" */
};

/* The callback a source emits events through; return non-zero to stop. */
typedef int (*pr_event_fn)(const struct pr_event *ev, void *payload);

struct pr_store; /* engine: the state store */
struct pr_delivery; /* engine: what to deliver, with its idempotency key */
struct pr_version_delivery; /* engine: a whole version (delivery.h) */
struct pr_relay; /* engine: a comment or state crossing a bridge */
struct pr_report_post; /* engine: a report for report-to (delivery.h) */

struct pr_connector_type {
	int abi;
	const char *name; /* the `type =` value */
	const char *summary;
	unsigned caps;
	const struct pr_option *options;
	size_t ctx_size;
	/*
	 * Validate the options.  No side effects: no network, no file
	 * written or created, no process started (reading a file is
	 * allowed), since `patchrelay graph` calls open() and close() only
	 * to report what open() refuses (pr_engine_check).  Message names
	 * the key.
	 */
	int (*open)(struct pr_instance *inst);
	/* Emit what is new since `cursor` (NULL: from the start). */
	int (*poll)(struct pr_instance *inst, const char *cursor,
		    pr_event_fn emit, void *payload);
	int (*deliver)(struct pr_instance *inst,
		       const struct pr_delivery *delivery,
		       struct pr_deliver_result *out);
	int (*feedback)(struct pr_instance *inst, const struct pr_series *s,
			const struct pr_report *report, const char *summary);
	/* Free inst->state; also called after an open() that failed. */
	void (*close)(struct pr_instance *inst);
	/*
	 * A sink that takes a whole version (a git push) instead of its
	 * mails: when set, the engine renders no mail for this sink and
	 * calls this once per (series, version) until it returns
	 * PR_DELIVER_OK (or REJECTED, final); deliver is not used.
	 */
	int (*deliver_version)(struct pr_instance *inst,
			       const struct pr_version_delivery *delivery,
			       struct pr_deliver_result *out);
	/*
	 * Commits that landed on a branch a route's source watches (a git
	 * source's `watch`), handed to each sink of that route that has
	 * this op (the patchwork sink syncs its patches' states): `branch`
	 * is the landed event's series (key: the branch), its latest
	 * version the commits, oldest first, each with commit_id, patch_id,
	 * author, subject, body and diff.  0 once they are handled (a
	 * commit that matches nothing is not an error); a negative PR_E*
	 * holds the source's cursor, so the next pass hands the same
	 * commits again: handling them twice must change nothing.
	 */
	int (*landed)(struct pr_instance *inst, const struct pr_series *branch);
	/*
	 * The reply relay (engine/bridge.h), for a sink on a forge: post
	 * the comment r->comment, relayed from the other side of a series
	 * (a reply on the list), on the pull request the series came from
	 * or went to, and give in *posted (malloc'ed) the id of what was
	 * written as the forge's own source names its comments
	 * (pr_event.id), so that it never comes back.  0 once posted
	 * (also when there is no pull request to post on: *posted NULL);
	 * a negative PR_E* is tried again at the next event.
	 */
	int (*relay_comment)(struct pr_instance *inst, const struct pr_relay *r,
			     char **posted);
	/*
	 * A series this sink took whole changed state at its origin:
	 * `state` "superseded", "landed" or "withdrawn", `why` a sentence
	 * ("landed in main as 1234abcd").  The forge sinks close the pull
	 * request with a comment.  0 when done or when there is nothing to
	 * close.
	 */
	int (*series_state)(struct pr_instance *inst, const struct pr_relay *r,
			    const char *state, const char *why);
	/*
	 * A route's `report-to` (engine/report_fanout.h): show the report
	 * p in this connector's own form (a commit status, a vote, a
	 * check per patch) where the series is on its side.  1 when it
	 * was posted, 0 when the series is not there (nothing posted,
	 * nothing to retry), a negative PR_E* when posting failed.  The
	 * engine posts a (node, series, version, context) once per
	 * verdict: deduplication is not the connector's business.
	 */
	int (*report)(struct pr_instance *inst, const struct pr_report_post *p);
};

enum pr_plugin_kind {
	PR_PLUGIN_CHECK = 0,
	PR_PLUGIN_ROUTE,
	PR_PLUGIN_TRANSFORM,
};

struct pr_plugin_type {
	int abi;
	const char *name;
	const char *summary;
	enum pr_plugin_kind kind;
	const struct pr_option *options;
	size_t ctx_size;
	/* As a connector's open() and close(): no side effects. */
	int (*open)(struct pr_instance *inst);
	/*
	 * Look at the newest version of `s`, add report entries (and, for
	 * route and transform plugins, recipients or trailers).  Returns 0
	 * whatever the verdict; negative only when the step could not run.
	 */
	int (*run)(struct pr_instance *inst, struct pr_series *s,
		   struct pr_version *v, struct pr_report *report);
	void (*close)(struct pr_instance *inst);
	/* The MAINTAINERS section names version v touches, appended to out; for routes' include-/exclude-subsystem. */
	int (*sections)(struct pr_instance *inst, const struct pr_version *v,
			struct pr_strlist *out);
	/*
	 * "key=value" settings an instance made outside a config file (a
	 * `patchrelay check --step`) takes after the table's defaults and
	 * before its own, where no section states limits the type is useless
	 * without; NULL-terminated, NULL: none.
	 */
	const char *const *step_defaults;
};

struct pr_registry {
	const struct pr_connector_type *const *connectors;
	size_t nr_connectors;
	const struct pr_plugin_type *const *plugins;
	size_t nr_plugins;
	/*
	 * The source types that take webhooks (a source of one may have a
	 * `webhook-secret`), NULL-terminated; NULL: none.
	 */
	const char *const *hook_types;
};

const struct pr_connector_type *
pr_registry_connector(const struct pr_registry *r, const char *name);
const struct pr_plugin_type *pr_registry_plugin(const struct pr_registry *r,
						const char *name);

#endif
