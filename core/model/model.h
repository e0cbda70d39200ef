#ifndef PR_MODEL_H
#define PR_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The patch-series model (DESIGN.md section 1).  Whatever a series came from
 * (a pull request, a Gerrit change, a mailing list, a git branch) it is held
 * in these structures; whatever it goes to is rendered from them.
 *
 * Ownership: every char * is owned by the structure holding it and freed by
 * its _release/_free; NULL means "absent", "" means "present and empty".
 * Lists are plain arrays with nr/alloc, grown with PR_ALLOC_GROW.
 * A sink never modifies a series; plugins add recipients, trailers and
 * report entries.
 */

struct pr_ident {
	char *name; /* "" when the mail gave only an address */
	char *email;
};

void pr_ident_set(struct pr_ident *id, const char *name, const char *email);
void pr_ident_release(struct pr_ident *id);

struct pr_trailer {
	char *key; /* as written: "Signed-off-by" */
	char *value; /* trimmed: "A U Thor <a@example.org>" */
};

struct pr_trailer_list {
	struct pr_trailer *items;
	size_t nr, alloc;
};

void pr_trailer_list_add(struct pr_trailer_list *l, const char *key,
			 const char *value);
/* True when a trailer with the same key (case-insensitive) and value exists. */
bool pr_trailer_list_has(const struct pr_trailer_list *l, const char *key,
			 const char *value);
void pr_trailer_list_release(struct pr_trailer_list *l);

/* The bracket prefix of a subject: "[RFC PATCH net-next v3 2/7]". */
struct pr_subject_prefix {
	char *list; /* "net-next", NULL when none */
	bool rfc;
	int version; /* 1 when not given */
	int index; /* 0 when not numbered (and for a cover letter) */
	int total; /* 0 when not numbered */
};

void pr_subject_prefix_release(struct pr_subject_prefix *p);

struct pr_patch {
	struct pr_ident author;
	char *date; /* author date as RFC 2822 text ("Thu, 3 Dec 2026 ...") */
	int64_t time; /* the same, seconds since the epoch (0 if unknown) */
	int tz_minutes; /* its UTC offset in minutes */
	char *subject; /* the summary line, cleaned as git mailinfo does */
	char *subject_raw; /* the Subject: header, decoded, unfolded */
	struct pr_subject_prefix prefix;
	char *body; /* the commit message after the summary (trailers included) */
	struct pr_trailer_list trailers;
	char *diff; /* unified diff text, as git mailinfo writes the patch */
	char *diffstat; /* git's --stat text, NULL until computed */
	char patch_id[41]; /* git patch-id --stable, "" until computed */
	char pw_hash[41]; /* Patchwork hash, "" until computed */
	char commit_id[41]; /* when it came from git, else "" */
	char *message_id; /* without angle brackets; NULL when not from mail */
	char *in_reply_to;
	char **references;
	size_t nr_references, alloc_references;
	/* the From: header's address (the author may be an in-body From:);
	 * NULL when not from mail */
	char *sender;
};

struct pr_patch *pr_patch_new(void);
void pr_patch_release(struct pr_patch *p);
void pr_patch_free(struct pr_patch *p);

/* A cover letter: subject (without prefix) and body; absent for a lone patch. */
struct pr_cover {
	char *subject;
	char *body;
	char *message_id;
	/* --stat --summary of base..tip as the cover shows it; NULL: none */
	char *stat;
};

void pr_cover_release(struct pr_cover *c);

struct pr_version {
	int number; /* 1..N */
	struct pr_cover *cover;
	struct pr_patch **patches;
	size_t nr, alloc;
	char base_commit[41]; /* "" when unknown */
	char *target_branch;
	char *range_diff; /* against the previous version, NULL for v1 */
};

struct pr_version *pr_version_new(int number);
/* Takes ownership of p. */
void pr_version_add_patch(struct pr_version *v, struct pr_patch *p);
void pr_version_free(struct pr_version *v);

enum pr_recipient_role {
	PR_RCPT_TO = 0,
	PR_RCPT_CC = 1,
};

struct pr_recipient {
	char *name; /* may be "" */
	char *email;
	enum pr_recipient_role role;
	char *reason; /* "maintainer:NETWORKING DRIVERS", "cc: in PR body" */
};

struct pr_recipient_list {
	struct pr_recipient *items;
	size_t nr, alloc;
};

/*
 * Add a recipient; an address already present (compared case-insensitively)
 * is not added twice: its reason is extended and a To wins over a Cc.
 * Returns true when a new entry was added.
 */
bool pr_recipient_list_add(struct pr_recipient_list *l, const char *name,
			   const char *email, enum pr_recipient_role role,
			   const char *reason);
const struct pr_recipient *
pr_recipient_list_find(const struct pr_recipient_list *l, const char *email);
void pr_recipient_list_release(struct pr_recipient_list *l);

enum pr_series_state {
	PR_SERIES_NEW = 0,
	PR_SERIES_SENT,
	PR_SERIES_REFUSED,
	PR_SERIES_ACCEPTED,
	PR_SERIES_SUPERSEDED,
	PR_SERIES_CLOSED,
};

const char *pr_series_state_name(enum pr_series_state s);

struct pr_series {
	char *origin_connector; /* instance name: "net-gh" */
	char *origin_key; /* "example/net#12", a change-id, a Message-ID */
	struct pr_ident submitter;
	char *url; /* PR URL, NULL when none */
	char *archive_url; /* NULL when none */
	struct pr_version **versions;
	size_t nr, alloc;
	struct pr_recipient_list recipients;
	enum pr_series_state state;
};

struct pr_series *pr_series_new(const char *origin_connector,
				const char *origin_key);
/* Takes ownership of v. */
void pr_series_add_version(struct pr_series *s, struct pr_version *v);
/* The newest version, or NULL. */
struct pr_version *pr_series_latest(const struct pr_series *s);
void pr_series_free(struct pr_series *s);

enum pr_event_kind {
	PR_EVENT_SERIES = 0, /* a new series (its first version) */
	PR_EVENT_VERSION, /* a new version of a known series */
	PR_EVENT_COMMENT, /* a comment or review, maybe with trailers */
	PR_EVENT_STATE, /* merged, closed, accepted, abandoned, landed */
};

/*
 * Where a comment is, for the reply relay (core/engine/bridge.h): where
 * it can be read, and for a comment on a line the file and line (of the
 * new side) it is on and the lines it answers when the forge gives them
 * (GitHub's diff_hunk).
 */
struct pr_comment_ref {
	char *url; /* an archive link, a comment URL; NULL: none */
	char *path; /* NULL: not on a line */
	int64_t line; /* 0: not on a line */
	char *quote; /* NULL: none given */
};

struct pr_event {
	enum pr_event_kind kind;
	struct pr_series *series; /* owned; for a comment, the series answered */
	struct pr_ident author; /* of a comment */
	char *body; /* of a comment */
	struct pr_trailer_list trailers; /* given by a comment */
	char *state; /* for PR_EVENT_STATE: "merged", "landed", ... */
	char *cursor; /* where the source stands after this event */
	bool preview;
	/*
	 * A comment that crosses a bridge (core/engine/bridge.h): `id` its
	 * id at its origin (a Message-ID for a mail, "github-comment:7",
	 * a Gerrit message id), so that it crosses once and what patchrelay
	 * wrote never comes back; NULL: it stays where it is.  `mirror`: it
	 * was written on a forge and goes to the route's mail sinks as a
	 * reply under the mail it is about (a Gerrit review names that mail
	 * by the commit it is on: the series' latest version holds that one
	 * patch, its commit_id set); else it is a mail and goes to the
	 * route's sinks on a forge as a comment.
	 */
	bool mirror;
	char *id;
	struct pr_comment_ref ref;
};

void pr_event_release(struct pr_event *e);

#endif
