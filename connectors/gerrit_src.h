#ifndef PR_CONNECTORS_GERRIT_SRC_H
#define PR_CONNECTORS_GERRIT_SRC_H

#include <git2.h>

#include "gerrit.h"

/*
 * What the two halves of the gerrit source share (private to
 * gerrit_src.c, the poll, triggers and cursor, and gerrit_series.c, the
 * grouping of changes into series and the building of a version).
 */

/* The cursor's state of one open change (docs/connectors/gerrit.md). */
struct pr_gerrit_chg {
	int64_t number;
	int ps; /* the patch set last sent or refused */
	char *m; /* the newest review message date read */
	struct pr_strlist mi; /* the ids of the messages of that date */
	char *k; /* the series key it was last part of */
	struct pr_strlist told; /* accounts told they may not trigger */
	bool seen; /* open in this catch-up (not stored) */
};

struct pr_gerrit_cursor {
	char *seen; /* "SESSION.N.EVENTS" of the last catch-up */
	int64_t at; /* wall time of the last catch-up */
	int64_t retry_at; /* a REST rate limit: nothing asked before */
	struct pr_gerrit_chg *chg;
	size_t nr, alloc;
};

/* The state of change `number`; a new empty one when create, else NULL. */
struct pr_gerrit_chg *pr_gerrit_cursor_chg(struct pr_gerrit_cursor *c,
					   int64_t number, bool create);

struct pr_gerrit_undo;

/* A review message to mirror to the list. */
struct pr_gerrit_mirror {
	const struct pr_gerrit_change *c;
	const struct pr_gerrit_message *m;
};

/* One series: changes of p->all, in series order. */
struct pr_gerrit_group {
	struct pr_gerrit_change **c;
	size_t nr, alloc;
	char *key;
	unsigned cmds; /* CMD_SUBMIT, CMD_PREVIEW: to be sent */
	struct pr_gerrit_undo *undo; /* while it is to be sent */
	struct pr_gerrit_mirror *mir; /* emitted after the sends */
	size_t nr_mir, alloc_mir;
};

/* One poll's working state. */
struct pr_gerrit_poll {
	struct pr_gerrit *g;
	struct pr_gerrit_cursor c;
	pr_event_fn emit;
	void *payload;
	bool stop; /* an emit failed or asked to stop */
	char *sent; /* the last cursor handed to emit, NULL: none yet */
	const struct pr_gerrit_change_list *all; /* one project's open ones */
	struct pr_gerrit_group *groups;
	size_t nr_groups, alloc_groups;
};

/*
 * Split p->all into p->groups by the series option: by topic, by
 * relation chain (changes linked by their current revisions' parents) or
 * one change each; each group in series order.
 */
int pr_gerrit_group_all(struct pr_gerrit_poll *p);
/* A chain's key: the one its changes had in the cursor, else its first's. */
int pr_gerrit_group_key(struct pr_gerrit_poll *p, struct pr_gerrit_group *gr);
/* Fetch the current patch sets of grs[0..nr) the cache lacks, at once. */
int pr_gerrit_group_fetch(struct pr_gerrit_poll *p,
			  const struct pr_gerrit_group *const *grs, size_t nr,
			  git_repository *repo, const char *project);
/*
 * The series of a group, fetched and built; *out NULL and why set when it
 * cannot be one (a merge, too many changes, patches that do not apply in
 * turn).
 */
int pr_gerrit_group_build(struct pr_series **out, struct pr_buf *why,
			  struct pr_gerrit_poll *p,
			  const struct pr_gerrit_group *gr);
/* "<rest-url>/c/PROJECT/+/N" */
int pr_gerrit_change_url(struct pr_buf *out, const struct pr_gerrit *g,
			 const struct pr_gerrit_change *c);

#endif
