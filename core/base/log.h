#ifndef PR_LOG_H
#define PR_LOG_H

#include <stdbool.h>

/*
 * Logging to stderr, one line per call, with the instance prefix
 * ("[github:net-gh] poll failed: ...").  The level is process-wide and set
 * once by cli/ (from `core.log-level` or -v); it is the one mutable global
 * outside the error slot, and it is only written before work starts.
 *
 * Secrets never reach a log line: callers log secret options through
 * their redacted form.
 *
 * The format is process-wide too, set with the level: text (the line
 * above) or JSON for log shippers, one object a line,
 *
 *	{"time":"2026-01-31T12:00:00.123Z","level":"warn",
 *	 "instance":"github:net-gh","message":"still failing (2 times): ..."}
 *
 * ("instance" absent when there is no prefix), its strings always valid
 * JSON whatever the message's bytes (base/json.h).  A line is one write
 * to stderr, so lines of several threads never mix.
 */

enum pr_log_level {
	PR_LOG_ERROR = 0,
	PR_LOG_WARN = 1,
	PR_LOG_INFO = 2,
	PR_LOG_DEBUG = 3,
};

enum pr_log_format {
	PR_LOG_TEXT = 0,
	PR_LOG_JSON = 1,
};

void pr_log_set_level(enum pr_log_level level);
void pr_log_set_format(enum pr_log_format format);
/* "text" or "json"; returns 0 or PR_EINVAL. */
int pr_log_format_parse(enum pr_log_format *out, const char *name);
enum pr_log_level pr_log_get_level(void);
/* "error", "warn", "info", "debug"; returns 0 or PR_EINVAL. */
int pr_log_level_parse(enum pr_log_level *out, const char *name);

void pr_log(enum pr_log_level level, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define pr_log_error(prefix, ...) pr_log(PR_LOG_ERROR, prefix, __VA_ARGS__)
#define pr_log_warn(prefix, ...) pr_log(PR_LOG_WARN, prefix, __VA_ARGS__)
#define pr_log_info(prefix, ...) pr_log(PR_LOG_INFO, prefix, __VA_ARGS__)
#define pr_log_debug(prefix, ...) pr_log(PR_LOG_DEBUG, prefix, __VA_ARGS__)

/* True when PATCHRELAY_TRACE names `topic` (comma-separated, or "all"). */
bool pr_trace_enabled(const char *topic);

#endif
