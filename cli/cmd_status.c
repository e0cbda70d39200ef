#include "base/pr.h"

#include <jansson.h>

#include "commands.h"
#include "engine/store.h"

/* Where the state lives when neither -c nor --state says (the demo's). */

static void usage(void)
{
	fprintf(stderr,
		"usage: patchrelay status [-c FILE | --state PATH] [--json]\n");
}

static int print_row(const struct pr_store_row *r, void *payload)
{
	struct pr_buf series = PR_BUF_INIT, sent = PR_BUF_INIT;
	int err;

	PR_UNUSED(payload);
	if ((err = pr_buf_addf(&series, "%s:%s", r->origin, r->key)))
		goto done;
	if (r->sink &&
	    (err = pr_buf_addf(&sent, "%d/%d", r->sent, r->nr_messages)))
		goto done;
	/* a refusal for good is not a pending mail: say which it is */
	if (r->sink && r->rejected &&
	    (err = pr_buf_addf(&sent, " rejected:%d", r->rejected)))
		goto done;
	if (r->sink)
		printf("%-32s %8d  %-16s v%-6d %-9s %8d  %s\n", series.ptr,
		       r->nr_versions, r->sink, r->version, sent.ptr,
		       r->attempts, r->last_error ? r->last_error : "-");
	else
		printf("%-32s %8d  %-16s %-7s %-9s %8s  %s\n", series.ptr,
		       r->nr_versions, "-", "-", "-", "-", "-");
done:
	pr_buf_release(&series);
	pr_buf_release(&sent);
	return err;
}

static int json_row(const struct pr_store_row *r, void *payload)
{
	json_t *rows = payload;
	json_t *o = json_pack("{s:s, s:s, s:i}", "origin", r->origin, "key",
			      r->key, "versions", r->nr_versions);

	if (!o)
		return pr_error(PR_EINTERNAL, "status: cannot build json");
	if (r->sink) {
		json_object_set_new(o, "sink", json_string(r->sink));
		json_object_set_new(o, "version", json_integer(r->version));
		json_object_set_new(o, "messages",
				    json_integer(r->nr_messages));
		json_object_set_new(o, "sent", json_integer(r->sent));
		json_object_set_new(o, "rejected", json_integer(r->rejected));
		json_object_set_new(o, "attempts", json_integer(r->attempts));
		json_object_set_new(o, "last_error",
				    r->last_error ? json_string(r->last_error)
						  : json_null());
	} else {
		json_object_set_new(o, "sink", json_null());
	}
	json_array_append_new(rows, o);
	return 0;
}

static int print_landed(const struct pr_store_landed *l, void *payload)
{
	struct pr_buf series = PR_BUF_INIT;
	bool *first = payload;
	int err;

	if ((err = pr_buf_addf(&series, "%s:%s", l->origin, l->key)))
		goto done;
	/* a second table, only when something landed */
	if (*first)
		printf("\n%-32s %-7s %-16s %s\n", "LANDED", "VERSION", "BRANCH",
		       "COMMIT");
	*first = false;
	printf("%-32s v%-6d %-16s %s\n", series.ptr, l->number, l->branch,
	       l->commit);
done:
	pr_buf_release(&series);
	return err;
}

static int json_landed(const struct pr_store_landed *l, void *payload)
{
	json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:s}", "origin", l->origin,
			      "key", l->key, "version", l->number, "branch",
			      l->branch, "commit", l->commit);

	if (!o)
		return pr_error(PR_EINTERNAL, "status: cannot build json");
	json_array_append_new(payload, o);
	return 0;
}

/*
 * patchrelay status [-c FILE | --state PATH] [--json]: series, versions and
 * deliveries of the state store, as a table or as JSON, and the versions
 * that landed on a watched branch (a second table, or "landed").
 */
int cmd_status(int argc, char **argv)
{
	struct pr_store *st = NULL;
	const char *file = NULL, *state = NULL;
	json_t *rows = NULL, *top = NULL, *landed = NULL;
	bool json = false, first = true;
	char *text = NULL;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			file = argv[++i];
		} else if (!strcmp(argv[i], "--state") && i + 1 < argc) {
			state = argv[++i];
		} else {
			usage();
			return PR_EXIT_USAGE;
		}
	}
	if (file && state) {
		usage();
		return PR_EXIT_USAGE;
	}
	if ((ret = pr_cli_open_store(&st, file, state)))
		goto done;
	if (json) {
		rows = json_array();
		landed = json_array();
		if (pr_store_foreach_row(st, json_row, rows) < 0 ||
		    pr_store_foreach_landed(st, json_landed, landed) < 0) {
			pr_cli_error(NULL);
			ret = PR_EXIT_RUNTIME;
			goto done;
		}
		top = json_pack("{s:s, s:O, s:O}", "state", pr_store_path(st),
				"deliveries", rows, "landed", landed);
		text = top ? json_dumps(top, JSON_INDENT(2)) : NULL;
		if (!text) {
			fprintf(stderr,
				"patchrelay: error: cannot print json\n");
			ret = PR_EXIT_RUNTIME;
			goto done;
		}
		printf("%s\n", text);
		goto done;
	}
	printf("%-32s %8s  %-16s %-7s %-9s %8s  %s\n", "SERIES", "VERSIONS",
	       "SINK", "VERSION", "SENT", "ATTEMPTS", "LAST ERROR");
	if (pr_store_foreach_row(st, print_row, NULL) < 0 ||
	    pr_store_foreach_landed(st, print_landed, &first) < 0) {
		pr_cli_error(NULL);
		ret = PR_EXIT_RUNTIME;
	}
done:
	free(text);
	json_decref(top);
	json_decref(rows);
	json_decref(landed);
	pr_store_free(st);
	return ret;
}
