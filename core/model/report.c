#include "base/pr.h"
#include "model/report.h"

const char *pr_verdict_name(enum pr_verdict v)
{
	switch (v) {
	case PR_VERDICT_SKIP:
		return "skip";
	case PR_VERDICT_PASS:
		return "pass";
	case PR_VERDICT_WARN:
		return "warn";
	case PR_VERDICT_FAIL:
		return "fail";
	}
	return "unknown";
}

void pr_report_add(struct pr_report *r, const char *step, const char *rule,
		   enum pr_verdict verdict, int patch, const char *detail,
		   const char *fmt, ...)
{
	struct pr_report_entry *e;
	struct pr_buf msg = PR_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	pr_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	PR_ALLOC_GROW(r->items, r->nr + 1, r->alloc);
	e = &r->items[r->nr++];
	e->step = pr_strdup(step ? step : "");
	e->rule = pr_strdup(rule ? rule : "");
	e->verdict = verdict;
	e->patch = patch;
	e->message = pr_buf_detach(&msg, NULL);
	e->detail = detail ? pr_strdup(detail) : NULL;
}

enum pr_verdict pr_report_verdict(const struct pr_report *r)
{
	enum pr_verdict worst = PR_VERDICT_SKIP;
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->items[i].verdict > worst)
			worst = r->items[i].verdict;
	return worst;
}

void pr_report_release(struct pr_report *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		free(r->items[i].step);
		free(r->items[i].rule);
		free(r->items[i].message);
		free(r->items[i].detail);
	}
	free(r->items);
	r->items = NULL;
	r->nr = r->alloc = 0;
}
