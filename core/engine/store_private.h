#ifndef PR_STORE_PRIVATE_H
#define PR_STORE_PRIVATE_H

#include "engine/sql.h"

/*
 * The store's one connection, shared by the files of the store (store.c,
 * store_view.c) and nothing else: callers see only store.h and
 * store_view.h.
 */
struct pr_store {
	struct pr_sql sql;
};

#endif
