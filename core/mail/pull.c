#include "base/pr.h"

#include <ctype.h>

#include "mail/pull.h"

/* One line of the body, without its "\n" or "\r\n". */
struct line {
	const char *p;
	size_t n;
};

/* Next line starting at *pos; false at the end of the body. */
static bool next_line(struct line *l, const char *body, size_t len, size_t *pos)
{
	const char *nl;

	if (*pos >= len)
		return false;
	l->p = body + *pos;
	nl = memchr(l->p, '\n', len - *pos);
	l->n = nl ? (size_t)(nl - l->p) : len - *pos;
	*pos += l->n + (nl ? 1 : 0);
	if (l->n && l->p[l->n - 1] == '\r')
		l->n--;
	return true;
}

/* A NUL counts as a blank, so that no word holds one. */
static bool is_blank(char c)
{
	return c == '\0' || isspace((unsigned char)c);
}

static void trim(struct line *l)
{
	while (l->n && is_blank(l->p[0])) {
		l->p++;
		l->n--;
	}
	while (l->n && is_blank(l->p[l->n - 1]))
		l->n--;
}

static bool contains_ci(const struct line *l, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; i + k <= l->n; i++)
		if (!strncasecmp(l->p + i, needle, k))
			return true;
	return false;
}

/* Split l into its first word and the rest (both trimmed). */
static void first_word(struct line *word, struct line *rest,
		       const struct line *l)
{
	size_t i = 0;

	while (i < l->n && !is_blank(l->p[i]))
		i++;
	word->p = l->p;
	word->n = i;
	rest->p = l->p + i;
	rest->n = l->n - i;
	trim(rest);
}

/* Quoted text (a reply quoting a pull request) is not a pull request. */
static bool next_unquoted(struct line *l, const char *body, size_t len,
			  size_t *pos)
{
	while (next_line(l, body, len, pos))
		if (!l->n || l->p[0] != '>')
			return true;
	return false;
}

/* The sha of "for you to fetch changes up to <sha>:", or NULL. */
static char *fetch_up_to(const char *body, size_t len)
{
	static const char marker[] = "for you to fetch changes up to ";
	struct line l;
	size_t pos = 0, i, k = sizeof(marker) - 1;

	while (next_unquoted(&l, body, len, &pos)) {
		for (i = 0; i + k <= l.n; i++) {
			size_t s, e;

			if (strncasecmp(l.p + i, marker, k))
				continue;
			s = e = i + k;
			while (e < l.n && isxdigit((unsigned char)l.p[e]))
				e++;
			if (e - s >= 7)
				return pr_strndup(l.p + s, e - s);
		}
	}
	return NULL;
}

int pr_pull_detect(char **url, char **ref, const char *body, size_t len)
{
	struct line l, word, rest;
	size_t pos = 0;
	bool found = false;

	*url = NULL;
	*ref = NULL;
	while (next_unquoted(&l, body, len, &pos)) {
		if (contains_ci(&l, "are available in the git repository at")) {
			found = true;
			break;
		}
	}
	if (!found)
		return 0;
	do {
		if (!next_unquoted(&l, body, len, &pos))
			return 0;
		trim(&l);
	} while (!l.n);
	first_word(&word, &rest, &l);
	*url = pr_strndup(word.p, word.n);
	if (rest.n) {
		first_word(&word, &rest, &rest);
		*ref = pr_strndup(word.p, word.n);
	} else if (next_unquoted(&l, body, len, &pos)) {
		/* a mailer wrapped "URL ref": the ref is alone on the next line */
		trim(&l);
		first_word(&word, &rest, &l);
		if (word.n && !rest.n && word.p[word.n - 1] != ':')
			*ref = pr_strndup(word.p, word.n);
	}
	if (!*ref)
		*ref = fetch_up_to(body, len);
	return 1;
}
