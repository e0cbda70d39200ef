#ifndef PR_CFG_H
#define PR_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "base/buf.h"
#include "engine/registry.h"

/*
 * Option values: parsing the config text of one key by its pr_option type
 * (core/engine/registry.h) into an instance context, printing it back, and freeing
 * what the context owns.  The file itself is read by core/engine/graph.c.
 *
 * - Every parser refuses the whole value or takes it: no trailing garbage,
 *   no overflow, no negative size or duration.  On error *out is untouched.
 * - Messages name only the value ("bad size '2Q'"); the caller prefixes the
 *   file and the key.
 * - A secret's value is read at parse time from "file:PATH" (the file's
 *   contents without trailing whitespace) or "env:NAME"; it is stored in the
 *   context and never printed: pr_cfg_format_option gives "<redacted>".
 * - A context filled by pr_cfg_set_option is released with
 *   pr_cfg_options_release, which frees its strings and lists and leaves
 *   the context zeroed; it does not free the context itself.
 */

/* git's booleans: true/yes/on/1, false/no/off/0, any case. */
int pr_cfg_parse_bool(bool *out, const char *s);
/* A decimal integer, optionally signed. */
int pr_cfg_parse_int(int64_t *out, const char *s);
/* Bytes with an optional k/M/G suffix (powers of 1024, any case). */
int pr_cfg_parse_size(uint64_t *out, const char *s);
/* Milliseconds from "250ms", "30s", "5m", "2h", "1d"; a bare number is s. */
int pr_cfg_parse_duration(int64_t *out, const char *s);
/*
 * A listen address (core.http): "HOST:PORT", HOST an IPv4 address, an
 * IPv6 one in brackets or "localhost" (127.0.0.1), PORT 0..65535 (0: a
 * free port); a bare "PORT" is 127.0.0.1:PORT.  Nothing is looked up, and
 * all interfaces only when written so: "0.0.0.0:8025", "[::]:8025".
 */
int pr_cfg_parse_listen(struct sockaddr_storage *out, socklen_t *len,
			const char *s);
/* Read a secret from "file:PATH" or "env:NAME"; *out is malloc'ed. */
int pr_cfg_read_secret(char **out, const char *spec);

/*
 * Parse `value` by opt->type and store it in ctx at opt->offset.  A list
 * appends; any other type replaces an earlier value (the last one wins, as
 * in git).
 */
int pr_cfg_set_option(void *ctx, const struct pr_option *opt,
		      const char *value);
/* Append the value stored in ctx as config text; secrets as <redacted>. */
int pr_cfg_format_option(struct pr_buf *out, const void *ctx,
			 const struct pr_option *opt);
/* True when ctx holds a value for opt (a string set, a list not empty). */
bool pr_cfg_option_is_set(const void *ctx, const struct pr_option *opt);
/* The option of `key` in a table, NULL when none. */
const struct pr_option *pr_cfg_find_option(const struct pr_option *opts,
					   const char *key);
/* "string", "path", "bool", "integer", "size", "duration", ... */
const char *pr_cfg_type_name(enum pr_opt_type type);
void pr_cfg_options_release(void *ctx, const struct pr_option *opts);

#endif
