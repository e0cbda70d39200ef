#include "base/pr.h"
#include "git/gitcfg.h"

#include <ctype.h>
#include <errno.h>

/* git refuses a GIT_CONFIG_COUNT over INT_MAX */
#define COUNT_MAX 2147483647UL

static bool is_key_char(int c)
{
	return isalnum(c) || c == '-';
}

/*
 * key made canonical as git_config_parse_key() makes it, into a new
 * string: "section[.subsection].name" with the section and the name
 * checked and lowercased, the subsection left as it is (no newline).
 */
static int canonical_key(char **out, const char *key)
{
	const char *last_dot = strrchr(key, '.');
	size_t i, base;
	bool dot = false;
	char *k;

	*out = NULL;
	if (!*key)
		return pr_error(PR_EINVAL, "config key '': empty");
	if (!last_dot || last_dot == key)
		return pr_error(PR_EINVAL, "config key '%s': no section", key);
	if (!last_dot[1])
		return pr_error(PR_EINVAL, "config key '%s': no variable name",
				key);
	base = (size_t)(last_dot - key);
	k = pr_strdup(key);
	for (i = 0; k[i]; i++) {
		unsigned char c = (unsigned char)k[i];

		if (c == '.')
			dot = true;
		if (!dot || i > base) {
			if (!is_key_char(c) || (i == base + 1 && !isalpha(c)))
				goto bad;
			k[i] = (char)tolower(c);
		} else if (c == '\n') {
			goto bad;
		}
	}
	*out = k;
	return 0;
bad:
	free(k);
	return pr_error(PR_EINVAL, "config key '%s': invalid", key);
}

int pr_gitcfg_add(struct pr_gitcfg *cfg, const char *key, const char *value)
{
	char *k;
	int err;

	if ((err = canonical_key(&k, key)))
		return err;
	PR_ALLOC_GROW(cfg->items, cfg->nr + 1, cfg->alloc);
	cfg->items[cfg->nr].key = k;
	cfg->items[cfg->nr].value = value ? pr_strdup(value) : NULL;
	cfg->nr++;
	return 0;
}

/*
 * One single-quoted word at *p, as quote.c's sq_dequote_step() reads it:
 * the quoted text, where '\'' and '\!' between two quoted parts stand
 * for a quote and a '!'.  *p is left on the first character after the
 * word.  Returns -1 when *p does not start a well-formed word.
 */
static int sq_word(struct pr_buf *out, const char **p)
{
	const char *s = *p;

	if (*s != '\'')
		return -1;
	for (s++;;) {
		if (!*s)
			return -1;
		if (*s != '\'') {
			if (pr_buf_addch(out, *s++))
				return -1;
			continue;
		}
		/* out of the quotes: an escaped ' or ! resumes them */
		if (s[1] == '\\' && (s[2] == '\'' || s[2] == '!') &&
		    s[3] == '\'') {
			if (pr_buf_addch(out, s[2]))
				return -1;
			s += 4;
			continue;
		}
		*p = s + 1;
		return 0;
	}
}

/* an old-style 'key=value' word: the key trimmed, "key" alone no value */
static int add_old_style(struct pr_gitcfg *cfg, const char *word)
{
	const char *eq = strchr(word, '='), *value = NULL;
	const char *start = word, *end = eq ? eq : word + strlen(word);
	char *key;
	int err;

	if (eq)
		value = eq + 1;
	while (start < end && isspace((unsigned char)*start))
		start++;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if (start == end)
		return pr_error(PR_EINVAL,
				"GIT_CONFIG_PARAMETERS: bogus parameter '%s'",
				word);
	key = pr_strndup(start, (size_t)(end - start));
	err = pr_gitcfg_add(cfg, key, value);
	free(key);
	return err;
}

int pr_gitcfg_parse_parameters(struct pr_gitcfg *cfg, const char *text)
{
	struct pr_buf key = PR_BUF_INIT, value = PR_BUF_INIT;
	const char *p = text;
	size_t keep = cfg->nr;
	int err = 0;

	while (*p) {
		pr_buf_reset(&key);
		if (sq_word(&key, &p))
			goto bogus;
		if (!*p || isspace((unsigned char)*p)) {
			err = add_old_style(cfg, key.ptr);
		} else if (*p == '=') {
			p++;
			pr_buf_reset(&value);
			if (*p == '\'') {
				if (sq_word(&value, &p) ||
				    (*p && !isspace((unsigned char)*p)))
					goto bogus;
				err = pr_gitcfg_add(cfg, key.ptr, value.ptr);
			} else if (!*p || isspace((unsigned char)*p)) {
				/* 'key'= is a key with no value */
				err = pr_gitcfg_add(cfg, key.ptr, NULL);
			} else {
				goto bogus;
			}
		} else {
			goto bogus;
		}
		if (err)
			goto done;
		while (isspace((unsigned char)*p))
			p++;
	}
	goto done;
bogus:
	err = pr_error(PR_EINVAL,
		       "GIT_CONFIG_PARAMETERS: bogus format at offset %zu",
		       (size_t)(p - text));
done:
	if (err) {
		/* leave cfg as it was before the call */
		while (cfg->nr > keep) {
			cfg->nr--;
			free(cfg->items[cfg->nr].key);
			free(cfg->items[cfg->nr].value);
		}
	}
	pr_buf_release(&key);
	pr_buf_release(&value);
	return err;
}

/* the GIT_CONFIG_COUNT pairs, as git 2.39 reads them */
static int read_count(struct pr_gitcfg *cfg)
{
	struct pr_buf name = PR_BUF_INIT;
	const char *env = getenv("GIT_CONFIG_COUNT"), *key, *value;
	unsigned long count, i;
	char *end;
	int err = 0;

	if (!env)
		return 0;
	errno = 0;
	count = strtoul(env, &end, 10);
	if (*end)
		return pr_error(PR_EINVAL, "GIT_CONFIG_COUNT '%s': bogus count",
				env);
	/* "-1" wraps around in strtoul: git says "too many" too */
	if (errno == ERANGE || count > COUNT_MAX)
		return pr_error(PR_EINVAL,
				"GIT_CONFIG_COUNT '%s': too many entries", env);
	for (i = 0; i < count && !err; i++) {
		pr_buf_reset(&name);
		pr_buf_addf(&name, "GIT_CONFIG_KEY_%lu", i);
		if (!(key = getenv(name.ptr))) {
			err = pr_error(PR_EINVAL, "config key %s: missing",
				       name.ptr);
			break;
		}
		pr_buf_reset(&name);
		pr_buf_addf(&name, "GIT_CONFIG_VALUE_%lu", i);
		if (!(value = getenv(name.ptr))) {
			err = pr_error(PR_EINVAL, "config value %s: missing",
				       name.ptr);
			break;
		}
		if ((err = pr_gitcfg_add(cfg, key, value)))
			err = pr_error_wrap(err, "GIT_CONFIG_KEY_%lu", i);
	}
	pr_buf_release(&name);
	return err;
}

int pr_gitcfg_read_env(struct pr_gitcfg *cfg)
{
	const char *env;
	size_t keep = cfg->nr;
	int err;

	err = read_count(cfg);
	if (!err && (env = getenv("GIT_CONFIG_PARAMETERS")))
		err = pr_gitcfg_parse_parameters(cfg, env);
	if (err) {
		while (cfg->nr > keep) {
			cfg->nr--;
			free(cfg->items[cfg->nr].key);
			free(cfg->items[cfg->nr].value);
		}
	}
	return err;
}

bool pr_gitcfg_get(const struct pr_gitcfg *cfg, const char *key,
		   const char **value)
{
	size_t i;

	for (i = cfg->nr; i > 0; i--) {
		if (!strcmp(cfg->items[i - 1].key, key)) {
			*value = cfg->items[i - 1].value;
			return true;
		}
	}
	*value = NULL;
	return false;
}

int pr_gitcfg_bool(const char *value)
{
	char *end;
	long n;

	if (!value)
		return 1;
	if (!*value || !strcasecmp(value, "false") ||
	    !strcasecmp(value, "no") || !strcasecmp(value, "off"))
		return 0;
	if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
	    !strcasecmp(value, "on"))
		return 1;
	errno = 0;
	n = strtol(value, &end, 10);
	if (end == value || *end || errno)
		return -1;
	return n != 0;
}

void pr_gitcfg_release(struct pr_gitcfg *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nr; i++) {
		free(cfg->items[i].key);
		free(cfg->items[i].value);
	}
	free(cfg->items);
	cfg->items = NULL;
	cfg->nr = cfg->alloc = 0;
}
