#ifndef PR_GITHUB_H
#define PR_GITHUB_H

#include "forge_rest.h"

/* GitHub REST v3 as forge_rest.c's table (github.c: its invariants). */
extern const struct pr_forge_rest pr_github_rest;

#endif
