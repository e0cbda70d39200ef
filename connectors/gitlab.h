#ifndef PR_GITLAB_H
#define PR_GITLAB_H

#include "forge_rest.h"

/* GitLab REST v4 as forge_rest.c's table (gitlab.c: its invariants). */
extern const struct pr_forge_rest pr_gitlab_rest;

#endif
