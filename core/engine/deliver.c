/*
 * Delivery with the store (deliver.h): a delivery's rows, the sink's
 * answers to each mail, and what a crash in the middle of one leaves.
 */
#include "base/pr.h"

#include "base/sha1.h"

#include "engine/bridge.h"
#include "engine/deliver.h"
#include "engine/delivery.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "mail/mail.h"

int pr_engine_delivery_key(struct pr_buf *out,
			   const struct pr_engine_version *v, const char *sink)
{
	struct pr_buf text = PR_BUF_INIT;
	char hex[41];
	int err;

	/* NUL-separated so that no two inputs run together */
	if ((err = pr_buf_addf(&text, "%s%c%s%c%d%c%s%c%s", v->origin, 0,
			       v->key, 0, v->number, 0, v->fingerprint, 0,
			       sink)))
		goto done;
	pr_sha1_git_blob_hex(hex, text.ptr, text.len);
	err = pr_buf_addf(out, "%.20s-v%d", hex, v->number);
done:
	pr_buf_release(&text);
	return err;
}

/* Append the Message-ID of a rendered mail, without its angle brackets. */
static int mail_message_id(struct pr_buf *out, const char *mail, size_t len)
{
	struct pr_mail_headers h = PR_MAIL_HEADERS_INIT;
	const char *mid, *end;
	size_t body;
	int err;

	if ((err = pr_mail_headers_parse(&h, mail, len, &body)))
		goto done;
	mid = pr_mail_headers_get(&h, "message-id");
	if (mid) {
		mid += strspn(mid, " <");
		end = mid + strcspn(mid, "> ");
		err = pr_buf_add(out, mid, (size_t)(end - mid));
	}
done:
	pr_mail_headers_release(&h);
	return err;
}

/*
 * A sink refused message i for good: it and every later message of the
 * delivery are rejected (the rest of a thread whose part is missing is
 * no use), and the report says so.
 */
static int reject_rest(struct pr_engine_stats *stats, struct pr_store *st,
		       int64_t id, const char *sink, size_t i, size_t nr,
		       const char *reason, struct pr_report *report)
{
	struct pr_buf why = PR_BUF_INIT;
	size_t j;
	int err;

	if ((err = pr_store_delivery_mark_rejected(st, id, i, reason)))
		goto done;
	stats->rejected++;
	if ((err = pr_buf_addf(&why,
			       "not sent: message %zu/%zu was rejected: %s",
			       i + 1, nr, reason)))
		goto done;
	for (j = i + 1; j < nr; j++) {
		err = pr_store_delivery_status(st, id, j);
		if (err < 0)
			goto done;
		if (err != PR_STORE_PENDING) {
			err = 0;
			continue;
		}
		if ((err = pr_store_delivery_mark_rejected(st, id, j, why.ptr)))
			goto done;
		stats->rejected++;
	}
	pr_log_error(sink, "rejected message %zu/%zu: %s", i + 1, nr, reason);
	if (report)
		pr_report_add(report, "deliver", "rejected", PR_VERDICT_FAIL,
			      -1, NULL, "sink %s rejected message %zu/%zu: %s",
			      sink, i + 1, nr, reason);
done:
	pr_buf_release(&why);
	return err;
}

/*
 * Say so when the last attempt of message i was cut short (the process
 * ended during it): the sink may have it already, and it goes again, the
 * same mail with the same Message-ID (or the same push).
 */
static int said_cut_short(struct pr_store *st, int64_t id, size_t i, size_t nr,
			  const struct pr_instance *inst, const char *mid)
{
	int cut = pr_store_delivery_cut_short(st, id, i);

	if (cut < 0)
		return cut;
	if (cut && *mid)
		pr_log_warn(inst->prefix,
			    "message %zu/%zu <%s>: the last attempt was cut "
			    "short (the process ended during it), so it may "
			    "have been delivered: sending it again, with the "
			    "same Message-ID",
			    i + 1, nr, mid);
	else if (cut)
		pr_log_warn(inst->prefix,
			    "the last attempt of this delivery was cut short "
			    "(the process ended during it), so it may have "
			    "been done: doing it again");
	return 0;
}

int pr_engine_deliver_mails(struct pr_engine_stats *stats, struct pr_store *st,
			    const struct pr_engine_version *v, const char *sink,
			    struct pr_instance *inst,
			    const struct pr_connector_type *type,
			    const char *const *mails, const size_t *lens,
			    size_t nr, struct pr_report *report,
			    const struct pr_version_delivery *vd)
{
	struct pr_buf key = PR_BUF_INIT, mid = PR_BUF_INIT;
	struct pr_deliver_result res = { PR_DELIVER_OK, 0, NULL };
	int64_t id = 0;
	size_t i;
	int err, pending;

	memset(stats, 0, sizeof(*stats));
	stats->status = PR_DELIVER_OK;
	if (vd ? !type->deliver_version : !type->deliver) {
		err = pr_error(PR_EUNSUPPORTED,
			       "sink '%s': type '%s' cannot deliver",
			       inst->name, type->name);
		goto done;
	}
	if ((err = pr_engine_delivery_key(&key, v, sink)) ||
	    (err = pr_store_delivery_open(&id, st, v->series_id, v->number,
					  sink, nr)))
		goto done;
	for (i = 0; i < nr; i++) {
		struct pr_delivery d = { key.ptr, i, nr, vd ? NULL : mails[i],
					 vd ? 0 : lens[i] };

		err = pr_store_delivery_status(st, id, i);
		if (err < 0)
			goto done;
		if (err == PR_STORE_SENT) {
			err = 0;
			stats->skipped++;
			continue;
		}
		if (err == PR_STORE_REJECTED) {
			/* told when it happened; never tried again */
			err = 0;
			stats->skipped++;
			stats->status = PR_DELIVER_REJECTED;
			continue;
		}
		/* read before the attempt: after the sink's yes, only the write */
		pr_buf_reset(&mid);
		if (!vd && (err = mail_message_id(&mid, mails[i], lens[i])))
			goto done;
		/* the attempt, and all before it, durable before the sink */
		if ((err = said_cut_short(st, id, i, nr, inst, mid.ptr)) ||
		    (err = pr_store_delivery_attempt(st, id, i, NULL)) ||
		    (err = pr_store_sync(st)))
			goto done;
		free(res.reason);
		res.reason = NULL;
		res.status = PR_DELIVER_RETRY;
		if (vd)
			err = type->deliver_version(inst, vd, &res);
		else
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
		if (res.status == PR_DELIVER_REJECTED) {
			err = reject_rest(stats, st, id, sink, i, nr,
					  res.reason ? res.reason : "rejected",
					  report);
			goto done;
		}
		if (res.status != PR_DELIVER_OK) {
			/* the attempt was counted above; note why */
			err = pr_store_delivery_note(
				st, id, i, res.reason ? res.reason : "retry");
			goto done;
		}
		if ((err = pr_store_delivery_mark_sent_as(
			     st, id, i, mid.len ? mid.ptr : NULL)) ||
		    (!vd &&
		     (err = pr_bridge_record_sent(st, v->series_id, v->number,
						  mails[i], lens[i]))))
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
	pr_buf_release(&mid);
	return err;
}

int pr_engine_deliver(struct pr_engine_stats *stats, struct pr_store *st,
		      const struct pr_engine_version *v,
		      struct pr_instance *inst,
		      const struct pr_connector_type *type,
		      const char *const *mails, const size_t *lens, size_t nr)
{
	return pr_engine_deliver_mails(stats, st, v, inst->name, inst, type,
				       mails, lens, nr, NULL, NULL);
}

int pr_engine_deliver_as(struct pr_engine_stats *stats, struct pr_store *st,
			 const struct pr_engine_version *v,
			 const char *sink_key, struct pr_instance *inst,
			 const struct pr_connector_type *type,
			 const char *const *mails, const size_t *lens,
			 size_t nr)
{
	return pr_engine_deliver_mails(stats, st, v, sink_key, inst, type,
				       mails, lens, nr, NULL, NULL);
}
