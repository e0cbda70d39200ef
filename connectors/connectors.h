#ifndef PR_CONNECTORS_H
#define PR_CONNECTORS_H

#include "registry.h"

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
};

/* maildir sink. */
struct pr_maildir_ctx {
	char *path;
};

/* git source and sink; cover_letter is "auto", "always" or "never". */
struct pr_git_ctx {
	char *url;
	char *branch;
	char *base;
	char *watch;
	char *cover_letter;
};

extern const struct pr_connector_type pr_connector_git;
extern const struct pr_connector_type pr_connector_maildir;
extern const struct pr_connector_type pr_connector_mbox;

#endif
