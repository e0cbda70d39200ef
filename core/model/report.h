#ifndef PR_REPORT_H
#define PR_REPORT_H

#include <stddef.h>

/*
 * A report: what a route's steps said about one version of a series.  Each
 * entry is one finding of one step (a plugin instance), for the whole series
 * (patch == -1) or one patch (0-based index), with a verdict and a one-line
 * human-readable message that says what is wrong and how to fix it; `detail`
 * holds longer text such as a tool's output.  The report's verdict is the
 * worst of its entries.  Feedback posts it back to where the series came
 * from; renderers (text, JSON, Markdown, mail) live beside it.
 */

enum pr_verdict {
	PR_VERDICT_SKIP = 0, /* the step does not apply */
	PR_VERDICT_PASS = 1,
	PR_VERDICT_WARN = 2,
	PR_VERDICT_FAIL = 3,
};

const char *pr_verdict_name(enum pr_verdict v);

struct pr_report_entry {
	char *step; /* instance name: "size" */
	char *rule; /* rule id within the step: "max-files", may be "" */
	enum pr_verdict verdict;
	int patch; /* -1: the series; else the patch index */
	char *message; /* one line */
	char *detail; /* NULL or longer text */
};

struct pr_report {
	struct pr_report_entry *items;
	size_t nr, alloc;
};

#define PR_REPORT_INIT     \
	{                  \
		NULL, 0, 0 \
	}

void pr_report_add(struct pr_report *r, const char *step, const char *rule,
		   enum pr_verdict verdict, int patch, const char *detail,
		   const char *fmt, ...) __attribute__((format(printf, 7, 8)));
enum pr_verdict pr_report_verdict(const struct pr_report *r);
void pr_report_release(struct pr_report *r);

#endif
