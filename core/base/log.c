#include "base/pr.h"

static enum pr_log_level log_level = PR_LOG_INFO;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

void pr_log_set_level(enum pr_log_level level)
{
	log_level = level;
}

enum pr_log_level pr_log_get_level(void)
{
	return log_level;
}

int pr_log_level_parse(enum pr_log_level *out, const char *name)
{
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(level_names); i++) {
		if (!strcmp(name, level_names[i])) {
			*out = (enum pr_log_level)i;
			return 0;
		}
	}
	if (!strcmp(name, "warning")) {
		*out = PR_LOG_WARN;
		return 0;
	}
	return pr_error(PR_EINVAL,
			"unknown log level '%s' (error, warn, info, debug)",
			name);
}

void pr_log(enum pr_log_level level, const char *prefix, const char *fmt, ...)
{
	struct pr_buf line = PR_BUF_INIT;
	va_list ap;

	if (level > log_level)
		return;
	pr_buf_adds(&line, "patchrelay: ");
	if (level == PR_LOG_ERROR)
		pr_buf_adds(&line, "error: ");
	else if (level == PR_LOG_WARN)
		pr_buf_adds(&line, "warning: ");
	if (prefix && *prefix)
		pr_buf_addf(&line, "[%s] ", prefix);
	va_start(ap, fmt);
	pr_buf_vaddf(&line, fmt, ap);
	va_end(ap);
	pr_buf_addch(&line, '\n');
	fwrite(line.ptr, 1, line.len, stderr);
	pr_buf_release(&line);
}

bool pr_trace_enabled(const char *topic)
{
	const char *env = getenv("PATCHRELAY_TRACE");
	size_t n = strlen(topic);

	while (env && *env) {
		const char *end = strchr(env, ',');
		size_t len = end ? (size_t)(end - env) : strlen(env);

		if ((len == n && !strncmp(env, topic, n)) ||
		    (len == 3 && !strncmp(env, "all", 3)))
			return true;
		env = end ? end + 1 : NULL;
	}
	return false;
}
