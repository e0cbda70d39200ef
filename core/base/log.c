#include "base/pr.h"

#include <time.h>

#include "base/json.h"

static enum pr_log_level log_level = PR_LOG_INFO;
static enum pr_log_format log_format = PR_LOG_TEXT;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

void pr_log_set_level(enum pr_log_level level)
{
	log_level = level;
}

void pr_log_set_format(enum pr_log_format format)
{
	log_format = format;
}

int pr_log_format_parse(enum pr_log_format *out, const char *name)
{
	if (!strcmp(name, "text"))
		*out = PR_LOG_TEXT;
	else if (!strcmp(name, "json"))
		*out = PR_LOG_JSON;
	else
		return pr_error(PR_EINVAL,
				"unknown log format '%s' (text, json)", name);
	return 0;
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

/* One JSON object: the time (UTC, milliseconds), level, instance, message. */
static void json_line(struct pr_buf *line, enum pr_log_level level,
		      const char *prefix, const struct pr_buf *msg)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	pr_buf_addf(line, "{\"time\":\"%s.%03ldZ\",\"level\":\"%s\",", when,
		    ts.tv_nsec / 1000000L, level_names[level]);
	if (prefix && *prefix) {
		pr_buf_adds(line, "\"instance\":");
		pr_json_quotes(line, prefix);
		pr_buf_addch(line, ',');
	}
	pr_buf_adds(line, "\"message\":");
	pr_json_quote(line, msg->ptr, msg->len);
	pr_buf_adds(line, "}\n");
}

void pr_log(enum pr_log_level level, const char *prefix, const char *fmt, ...)
{
	struct pr_buf line = PR_BUF_INIT;
	va_list ap;

	if (level > log_level)
		return;
	if (log_format == PR_LOG_JSON) {
		struct pr_buf msg = PR_BUF_INIT;

		va_start(ap, fmt);
		pr_buf_vaddf(&msg, fmt, ap);
		va_end(ap);
		json_line(&line, level, prefix, &msg);
		pr_buf_release(&msg);
		fwrite(line.ptr, 1, line.len, stderr);
		pr_buf_release(&line);
		return;
	}
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
