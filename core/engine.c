#include "pr.h"

#include <git2.h>

#include "delivery.h"
#include "engine.h"

int pr_engine_delivery_key(struct pr_buf *out,
			   const struct pr_engine_version *v, const char *sink)
{
	struct pr_buf text = PR_BUF_INIT;
	char hex[41];
	git_oid oid;
	int err;

	/* NUL-separated so that no two inputs run together */
	if ((err = pr_buf_addf(&text, "%s%c%s%c%d%c%s%c%s", v->origin, 0,
			       v->key, 0, v->number, 0, v->fingerprint, 0,
			       sink)))
		goto done;
	git_libgit2_init();
	if (git_odb_hash(&oid, text.ptr, text.len, GIT_OBJECT_BLOB) < 0) {
		err = pr_error(PR_EINTERNAL, "delivery key of '%s': %s", v->key,
			       git_error_last()->message);
	} else {
		git_oid_tostr(hex, sizeof(hex), &oid);
		err = pr_buf_addf(out, "%.20s-v%d", hex, v->number);
	}
	git_libgit2_shutdown();
done:
	pr_buf_release(&text);
	return err;
}

int pr_engine_deliver(struct pr_engine_stats *stats, struct pr_store *st,
		      const struct pr_engine_version *v,
		      struct pr_instance *inst,
		      const struct pr_connector_type *type,
		      const char *const *mails, const size_t *lens, size_t nr)
{
	struct pr_buf key = PR_BUF_INIT;
	struct pr_deliver_result res = { PR_DELIVER_OK, 0, NULL };
	int64_t id = 0;
	size_t i;
	int err, pending;

	memset(stats, 0, sizeof(*stats));
	stats->status = PR_DELIVER_OK;
	if (!type->deliver) {
		err = pr_error(PR_EUNSUPPORTED,
			       "sink '%s': type '%s' cannot deliver",
			       inst->name, type->name);
		goto done;
	}
	if ((err = pr_engine_delivery_key(&key, v, inst->name)) ||
	    (err = pr_store_delivery_open(&id, st, v->series_id, v->number,
					  inst->name, nr)))
		goto done;
	for (i = 0; i < nr; i++) {
		struct pr_delivery d = { key.ptr, i, nr, mails[i], lens[i] };

		err = pr_store_delivery_status(st, id, i);
		if (err < 0)
			goto done;
		if (err == PR_STORE_SENT) {
			err = 0;
			stats->skipped++;
			continue;
		}
		if ((err = pr_store_delivery_attempt(st, id, i, NULL)))
			goto done;
		free(res.reason);
		res.reason = NULL;
		res.status = PR_DELIVER_RETRY;
		err = type->deliver(inst, &d, &res);
		stats->status = res.status;
		if (err) {
			struct pr_buf msg = PR_BUF_INIT;

			/* keep the sink's message across the store call */
			pr_buf_adds(&msg, pr_error_message());
			pr_store_delivery_note(st, id, i, msg.ptr);
			pr_error(err, "%s", msg.ptr);
			pr_buf_release(&msg);
			stats->status = PR_DELIVER_RETRY;
			goto done;
		}
		if (res.status != PR_DELIVER_OK) {
			/* the attempt was counted above; note why */
			err = pr_store_delivery_note(
				st, id, i, res.reason ? res.reason : "retry");
			goto done;
		}
		if ((err = pr_store_delivery_mark_sent(st, id, i)))
			goto done;
		stats->sent++;
	}
done:
	if (err >= 0 && id) {
		pending = pr_store_delivery_pending(st, id);
		if (pending < 0)
			err = pending;
		else
			stats->pending = (size_t)pending;
	}
	free(res.reason);
	pr_buf_release(&key);
	return err;
}
