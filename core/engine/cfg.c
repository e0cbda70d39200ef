#include "base/pr.h"
#include "engine/cfg.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>

int pr_cfg_parse_bool(bool *out, const char *s)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return pr_error(PR_EINVAL, "bad boolean '%s'", s);
}

/* Digits, then the rest in *end; refuses no digits and overflow. */
static int parse_number(int64_t *out, const char *s, const char **end)
{
	long long v;
	char *e;

	if (!isdigit((unsigned char)*s) &&
	    !((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))
		return PR_EINVAL;
	errno = 0;
	v = strtoll(s, &e, 10);
	if (errno == ERANGE)
		return PR_EINVAL;
	*out = v;
	*end = e;
	return 0;
}

int pr_cfg_parse_int(int64_t *out, const char *s)
{
	const char *end;
	int64_t v;

	if (parse_number(&v, s, &end) || *end)
		return pr_error(PR_EINVAL, "bad integer '%s'", s);
	*out = v;
	return 0;
}

int pr_cfg_parse_size(uint64_t *out, const char *s)
{
	const char *end;
	int64_t v;
	uint64_t mul = 1;

	if (*s == '-' || *s == '+' || parse_number(&v, s, &end))
		goto bad;
	if (*end) {
		switch (tolower((unsigned char)*end)) {
		case 'k':
			mul = 1024;
			break;
		case 'm':
			mul = 1024 * 1024;
			break;
		case 'g':
			mul = 1024 * 1024 * 1024;
			break;
		default:
			goto bad;
		}
		if (end[1])
			goto bad;
	}
	if ((uint64_t)v > UINT64_MAX / mul)
		goto bad;
	*out = (uint64_t)v * mul;
	return 0;
bad:
	return pr_error(PR_EINVAL, "bad size '%s'", s);
}

int pr_cfg_parse_duration(int64_t *out, const char *s)
{
	static const struct {
		const char *unit;
		int64_t ms;
	} units[] = {
		{ "ms", 1 },	{ "s", 1000 },	  { "", 1000 },
		{ "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
	};
	const char *end;
	int64_t v;
	size_t i;

	if (*s == '-' || *s == '+' || parse_number(&v, s, &end))
		goto bad;
	for (i = 0; i < PR_ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (v > INT64_MAX / units[i].ms)
			goto bad;
		*out = v * units[i].ms;
		return 0;
	}
bad:
	return pr_error(PR_EINVAL, "bad duration '%s'", s);
}

int pr_cfg_parse_listen(struct sockaddr_storage *out, socklen_t *len,
			const char *s)
{
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
	struct sockaddr_in *v4 = (struct sockaddr_in *)out;
	char host[INET6_ADDRSTRLEN + 1] = "127.0.0.1";
	const char *colon = strrchr(s, ':'), *port = s, *h = s, *end;
	bool bracketed = false;
	size_t n;
	int64_t p;

	memset(out, 0, sizeof(*out));
	if (colon) {
		port = colon + 1;
		n = (size_t)(colon - s);
		/* "[::1]:80": the brackets go, and only they may hold ':' */
		if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
			bracketed = true;
			h++;
			n -= 2;
		} else if (memchr(s, ':', n)) {
			goto bad;
		}
		if (!n || n >= sizeof(host))
			goto bad;
		memcpy(host, h, n);
		host[n] = '\0';
		if (!bracketed && !strcmp(host, "localhost"))
			memcpy(host, "127.0.0.1", sizeof("127.0.0.1"));
	}
	if (!*port || strlen(port) > 5 ||
	    strspn(port, "0123456789") != strlen(port) ||
	    parse_number(&p, port, &end) || p > 65535)
		goto bad;
	if (!bracketed && inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)p);
		*len = sizeof(*v4);
		return 0;
	}
	if (bracketed && inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*v6);
		return 0;
	}
bad:
	memset(out, 0, sizeof(*out));
	return pr_error(PR_EINVAL,
			"bad listen address '%s' (HOST:PORT, [IPv6]:PORT or "
			"PORT)",
			s);
}

int pr_cfg_read_secret(char **out, const char *spec)
{
	struct pr_buf b;
	const char *v;
	int err;

	if (!strncmp(spec, "env:", 4)) {
		v = getenv(spec + 4);
		if (!spec[4] || !v)
			return pr_error(PR_ENOENT,
					"secret environment variable '%s' "
					"is not set",
					spec + 4);
		*out = pr_strdup(v);
		return 0;
	}
	if (strncmp(spec, "file:", 5) || !spec[5])
		/* do not echo the value: it may be the secret itself */
		return pr_error(PR_EINVAL,
				"secret must be 'file:PATH' or 'env:NAME'");
	pr_buf_init(&b, PR_KIB * 64);
	err = pr_buf_read_file(&b, spec + 5);
	if (err < 0) {
		pr_buf_release(&b);
		return pr_error_wrap(err, "cannot read secret file '%s'",
				     spec + 5);
	}
	pr_buf_rtrim(&b);
	*out = pr_buf_detach(&b, NULL);
	return 0;
}

#define FIELD(ctx, opt, type) ((type *)((char *)(ctx) + (opt)->offset))
#define CFIELD(ctx, opt, type) \
	((const type *)((const char *)(ctx) + (opt)->offset))

static int set_string(char **slot, char *value)
{
	free(*slot);
	*slot = value;
	return 0;
}

int pr_cfg_set_option(void *ctx, const struct pr_option *opt, const char *value)
{
	char *secret = NULL;
	size_t i;
	int err;

	switch (opt->type) {
	case PR_OPT_STRING:
	case PR_OPT_PATH:
		if (opt->type == PR_OPT_PATH && !*value)
			return pr_error(PR_EINVAL, "empty path");
		return set_string(FIELD(ctx, opt, char *), pr_strdup(value));
	case PR_OPT_ENUM:
		for (i = 0; opt->choices && opt->choices[i]; i++)
			if (!strcmp(opt->choices[i], value))
				return set_string(FIELD(ctx, opt, char *),
						  pr_strdup(value));
		return pr_error(PR_EINVAL, "bad value '%s'", value);
	case PR_OPT_SECRET:
		err = pr_cfg_read_secret(&secret, value);
		if (err < 0)
			return err;
		return set_string(FIELD(ctx, opt, char *), secret);
	case PR_OPT_BOOL:
		return pr_cfg_parse_bool(FIELD(ctx, opt, bool), value);
	case PR_OPT_INT:
		return pr_cfg_parse_int(FIELD(ctx, opt, int64_t), value);
	case PR_OPT_SIZE:
		return pr_cfg_parse_size(FIELD(ctx, opt, uint64_t), value);
	case PR_OPT_DURATION:
		return pr_cfg_parse_duration(FIELD(ctx, opt, int64_t), value);
	case PR_OPT_LIST:
		pr_strlist_add(FIELD(ctx, opt, struct pr_strlist), value);
		return 0;
	}
	return pr_error(PR_EINTERNAL, "option '%s' has no type", opt->key);
}

bool pr_cfg_option_is_set(const void *ctx, const struct pr_option *opt)
{
	switch (opt->type) {
	case PR_OPT_STRING:
	case PR_OPT_PATH:
	case PR_OPT_ENUM:
	case PR_OPT_SECRET:
		return *CFIELD(ctx, opt, char *) != NULL;
	case PR_OPT_LIST:
		return CFIELD(ctx, opt, struct pr_strlist)->nr > 0;
	default:
		/* scalars cannot tell "unset" from a zero; see the header */
		return true;
	}
}

int pr_cfg_format_option(struct pr_buf *out, const void *ctx,
			 const struct pr_option *opt)
{
	const struct pr_strlist *l;
	const char *s;
	size_t i;
	int err = 0;

	switch (opt->type) {
	case PR_OPT_STRING:
	case PR_OPT_PATH:
	case PR_OPT_ENUM:
		s = *CFIELD(ctx, opt, char *);
		return pr_buf_adds(out, s ? s : "");
	case PR_OPT_SECRET:
		return pr_buf_adds(out, "<redacted>");
	case PR_OPT_BOOL:
		return pr_buf_adds(out,
				   *CFIELD(ctx, opt, bool) ? "true" : "false");
	case PR_OPT_INT:
		return pr_buf_addf(out, "%lld",
				   (long long)*CFIELD(ctx, opt, int64_t));
	case PR_OPT_SIZE:
		return pr_buf_addf(out, "%llu",
				   (unsigned long long)*CFIELD(ctx, opt,
							       uint64_t));
	case PR_OPT_DURATION:
		return pr_buf_addf(out, "%lldms",
				   (long long)*CFIELD(ctx, opt, int64_t));
	case PR_OPT_LIST:
		l = CFIELD(ctx, opt, struct pr_strlist);
		for (i = 0; i < l->nr && !err; i++)
			err = pr_buf_addf(out, "%s%s", i ? ", " : "",
					  l->items[i]);
		return err;
	}
	return 0;
}

const struct pr_option *pr_cfg_find_option(const struct pr_option *opts,
					   const char *key)
{
	for (; opts && opts->key; opts++)
		if (!strcmp(opts->key, key))
			return opts;
	return NULL;
}

const char *pr_cfg_type_name(enum pr_opt_type type)
{
	static const char *const names[] = {
		[PR_OPT_STRING] = "string", [PR_OPT_PATH] = "path",
		[PR_OPT_BOOL] = "bool",	    [PR_OPT_INT] = "integer",
		[PR_OPT_SIZE] = "size",	    [PR_OPT_DURATION] = "duration",
		[PR_OPT_LIST] = "list",	    [PR_OPT_ENUM] = "enum",
		[PR_OPT_SECRET] = "secret",
	};

	if ((size_t)type >= PR_ARRAY_SIZE(names))
		return "?";
	return names[type];
}

void pr_cfg_options_release(void *ctx, const struct pr_option *opts)
{
	char **s;

	if (!ctx)
		return;
	for (; opts && opts->key; opts++) {
		switch (opts->type) {
		case PR_OPT_SECRET:
			s = FIELD(ctx, opts, char *);
			/* do not leave the secret in freed memory */
			if (*s)
				memset(*s, 0, strlen(*s));
			/* fall through */
		case PR_OPT_STRING:
		case PR_OPT_PATH:
		case PR_OPT_ENUM:
			s = FIELD(ctx, opts, char *);
			free(*s);
			*s = NULL;
			break;
		case PR_OPT_LIST:
			pr_strlist_release(FIELD(ctx, opts, struct pr_strlist));
			break;
		default:
			break;
		}
	}
}
