#ifndef PR_CONNECTORS_H
#define PR_CONNECTORS_H

#include "engine/registry.h"

/*
 * The built-in connector types, one const definition per file of this
 * folder, listed in cli/registry.c.  Each type's context struct is declared
 * here so that the code filling in poll/deliver and the config loader agree
 * on where each option is stored; the option tables point into them with
 * offsetof().  Strings in a context are owned by it and freed by the config
 * loader (pr_cfg_options_release), never by the connector.
 */

/* mbox source (a folder of mbox files) and mbox sink (one file). */
struct pr_mbox_ctx {
	char *path;
	int64_t wait; /* source: connectors/mailsrc.h's */
	struct pr_strlist trusted;
};

/*
 * maildir sink and source; the source's wait (milliseconds) and trusted
 * senders are connectors/mailsrc.h's.
 */
struct pr_maildir_ctx {
	char *path;
	int64_t wait;
	struct pr_strlist trusted;
};

/*
 * git source and sink; cover_letter is "auto", "always" or "never"; user,
 * password (a secret) and ssh_key are offered to a remote that asks, and
 * known_hosts (NULL: ~/.ssh/known_hosts) holds the ssh host keys taken.
 */
struct pr_git_ctx {
	char *url;
	char *branch;
	char *base;
	char *watch;
	char *cover_letter;
	char *committer; /* sink: "Name <addr>", NULL: as git picks it */
	char *user;
	char *password;
	char *ssh_key;
	char *known_hosts;
	int64_t timeout; /* milliseconds without a byte moving */
	char *ca_file;
};

/*
 * smtp sink; starttls is "required", "optional" or "never"; rate is
 * messages per minute (0: no limit); timeout in milliseconds; from is
 * "addr" or "Name <addr>" (the envelope sender is addr).
 */
struct pr_smtp_ctx {
	char *url;
	char *from;
	char *starttls;
	char *user;
	char *password;
	char *ca_file;
	int64_t rate;
	int64_t max_recipients;
	int64_t timeout;
	/* deliver: fixed recipients and the archive link template (%m) */
	struct pr_strlist to;
	struct pr_strlist cc;
	char *archive_url;
};

extern const struct pr_connector_type pr_connector_git;
extern const struct pr_connector_type pr_connector_maildir;
extern const struct pr_connector_type pr_connector_mbox;
extern const struct pr_connector_type pr_connector_smtp;

/*
 * sources piece: the imap and public-inbox sources (connectors/imap.c,
 * connectors/public_inbox.c); wait and trusted are connectors/mailsrc.h's,
 * timeout is in milliseconds.  imap: url is imap:// or imaps://host[:port]
 * with an optional /MAILBOX path, mailbox the mailbox when the url has no
 * path, search an IMAP SEARCH filter, starttls as the smtp sink's (on
 * imap:// only).  public-inbox: url is the inbox's
 * address (https://lore.kernel.org/netdev/).
 */
struct pr_imap_ctx {
	char *url;
	char *user;
	char *password;
	char *mailbox;
	char *search;
	char *ca_file;
	char *starttls;
	int64_t timeout;
	int64_t wait;
	struct pr_strlist trusted;
};

struct pr_public_inbox_ctx {
	char *url;
	char *ca_file;
	int64_t timeout;
	int64_t max_pages; /* 0: no limit */
	int64_t wait;
	struct pr_strlist trusted;
};

extern const struct pr_connector_type pr_connector_imap;
extern const struct pr_connector_type pr_connector_public_inbox;

#endif
/* gitlab source, sink and feedback: its context is a pr_forge_ctx. */
#include "forge.h"

extern const struct pr_connector_type pr_connector_gitlab;

/*
 * github source, sink and feedback: its context is a pr_forge_ctx.
 * Its own guard: this block sits after the file's #endif.
 */
#ifndef PR_CONNECTORS_GITHUB_H
#define PR_CONNECTORS_GITHUB_H
#include "forge.h"

extern const struct pr_connector_type pr_connector_github;
#endif
