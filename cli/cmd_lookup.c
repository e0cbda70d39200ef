#include "base/pr.h"

#include <jansson.h>

#include "commands.h"
#include "engine/idmap.h"
#include "engine/store.h"

static void usage(void)
{
	fprintf(stderr, "usage: patchrelay lookup [-c FILE | --state PATH] "
			"[--json] ID\n");
}

/* What one series prints: its ids, collected before printing. */
struct found {
	json_t *ids; /* [{kind, value, note}] */
};

static int collect(const char *kind, const char *value, const char *note,
		   void *payload)
{
	struct found *f = payload;
	json_t *o = json_pack("{s:s, s:s}", "kind", kind, "value", value);

	if (!o)
		return pr_error(PR_EINTERNAL, "lookup: cannot build json");
	json_object_set_new(o, "note", note ? json_string(note) : json_null());
	json_array_append_new(f->ids, o);
	return 0;
}

/* One series as JSON: source, key, versions and every id. */
static int series_json(json_t **out, struct pr_store *st, int64_t id)
{
	struct pr_buf origin = PR_BUF_INIT, key = PR_BUF_INIT;
	struct found f = { json_array() };
	int err, versions;

	*out = NULL;
	if ((err = pr_idmap_series(&origin, &key, st, id)) ||
	    (err = pr_idmap_foreach(st, id, collect, &f)))
		goto done;
	versions = pr_store_version_count(st, id);
	if (versions < 0) {
		err = versions;
		goto done;
	}
	*out = json_pack("{s:s, s:s, s:i, s:O}", "source", origin.ptr, "key",
			 key.ptr, "versions", versions, "ids", f.ids);
	if (!*out)
		err = pr_error(PR_EINTERNAL, "lookup: cannot build json");
done:
	json_decref(f.ids);
	pr_buf_release(&origin);
	pr_buf_release(&key);
	return err;
}

static void print_series(const json_t *s)
{
	const json_t *ids = json_object_get(s, "ids"), *o;
	size_t i;

	printf("series %s %s (%lld version%s)\n",
	       json_string_value(json_object_get(s, "source")),
	       json_string_value(json_object_get(s, "key")),
	       (long long)json_integer_value(json_object_get(s, "versions")),
	       json_integer_value(json_object_get(s, "versions")) == 1 ? ""
								       : "s");
	json_array_foreach(ids, i, o)
	{
		const char *note =
			json_string_value(json_object_get(o, "note"));

		printf("  %-12s %s%s%s\n",
		       json_string_value(json_object_get(o, "kind")),
		       json_string_value(json_object_get(o, "value")),
		       note ? "  " : "", note ? note : "");
	}
}

/* The series any candidate of `id` names, each once, in *out. */
static int find_all(json_t *out, struct pr_store *st, const char *id)
{
	struct pr_strlist cand = { 0 };
	int64_t *ids = NULL, *seen = NULL;
	size_t nr = 0, nr_seen = 0, alloc = 0, i, j, k;
	int err;

	if ((err = pr_idmap_candidates(&cand, id)))
		goto done;
	for (i = 0; i < cand.nr && !err; i++) {
		free(ids);
		ids = NULL;
		if ((err = pr_idmap_find(&ids, &nr, st, cand.items[i])))
			break;
		for (j = 0; j < nr && !err; j++) {
			json_t *s = NULL;

			for (k = 0; k < nr_seen && seen[k] != ids[j]; k++)
				;
			if (k < nr_seen)
				continue;
			PR_ALLOC_GROW(seen, nr_seen + 1, alloc);
			seen[nr_seen++] = ids[j];
			if (!(err = series_json(&s, st, ids[j])))
				json_array_append_new(out, s);
		}
	}
done:
	free(ids);
	free(seen);
	pr_strlist_release(&cand);
	return err;
}

/*
 * patchrelay lookup [-c FILE | --state PATH] [--json] ID: every series an
 * id names (a Message-ID, a PR URL, owner/repo#12, a Change-Id, a
 * Patchwork URL, a branch, a series key) with all the ids the identity
 * map holds for it.  Exit 0 when found, 1 when no series has the id.
 */
int cmd_lookup(int argc, char **argv)
{
	struct pr_store *st = NULL;
	const char *file = NULL, *state = NULL, *id = NULL;
	json_t *found = json_array(), *top = NULL, *s;
	bool json = false;
	size_t i;
	int a, ret;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--json")) {
			json = true;
		} else if (!strcmp(argv[a], "-c") && a + 1 < argc) {
			file = argv[++a];
		} else if (!strcmp(argv[a], "--state") && a + 1 < argc) {
			state = argv[++a];
		} else if (argv[a][0] != '-' && !id) {
			id = argv[a];
		} else {
			usage();
			ret = PR_EXIT_USAGE;
			goto done;
		}
	}
	if (!id || (file && state)) {
		usage();
		ret = PR_EXIT_USAGE;
		goto done;
	}
	if ((ret = pr_cli_open_store(&st, file, state)))
		goto done;
	if (find_all(found, st, id) < 0) {
		pr_cli_error(NULL);
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	if (json) {
		top = json_pack("{s:s, s:O}", "id", id, "series", found);
		if ((ret = pr_cli_print_json(top)))
			goto done;
	} else {
		json_array_foreach(found, i, s)
		{
			if (i)
				printf("\n");
			print_series(s);
		}
	}
	if (!json_array_size(found)) {
		fprintf(stderr, "patchrelay: no series has the id '%s'\n", id);
		ret = PR_EXIT_VERDICT;
	}
done:
	json_decref(top);
	json_decref(found);
	pr_store_free(st);
	return ret;
}
