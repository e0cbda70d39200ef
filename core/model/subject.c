#include "base/pr.h"

#include <ctype.h>

#include "model/subject.h"

/* Reply markers, compared case-insensitively ("Aw:" is German Outlook). */
static const char *const reply_prefixes[] = { "re:", "aw:" };
/* Markers skipped before a bracket group but not counted as replies. */
static const char *const skip_prefixes[] = { "re:", "aw:", "fwd:", "fw:" };

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The length of the marker s starts with, 0 when none. */
static size_t starts_marker(const char *s, const char *const *list, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		size_t n = strlen(list[i]);

		if (!strncasecmp(s, list[i], n))
			return n;
	}
	return 0;
}

bool pr_subject_is_reply(const char *subject)
{
	if (!subject)
		return false;
	subject = skip_space(subject);
	return starts_marker(subject, reply_prefixes,
			     PR_ARRAY_SIZE(reply_prefixes)) != 0;
}

/* Parse all of w[0..n) as a decimal number of at most 6 digits, else -1. */
static int parse_num(const char *w, size_t n)
{
	int v = 0;
	size_t i;

	if (n == 0 || n > 6)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)w[i]))
			return -1;
		v = v * 10 + (w[i] - '0');
	}
	return v;
}

/* "v3" or "V3": the version, else -1. */
static int parse_version(const char *w, size_t n)
{
	if (n < 2 || (w[0] != 'v' && w[0] != 'V'))
		return -1;
	return parse_num(w + 1, n - 1);
}

/* "2/7": index and total, else false. */
static bool parse_fraction(const char *w, size_t n, int *index, int *total)
{
	const char *slash = memchr(w, '/', n);
	int a, b;

	if (!slash)
		return false;
	a = parse_num(w, slash - w);
	b = parse_num(slash + 1, n - (slash + 1 - w));
	if (a < 0 || b < 0)
		return false;
	*index = a;
	*total = b;
	return true;
}

static bool word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && !strncasecmp(w, s, n);
}

struct words {
	const char *w[64];
	size_t n[64];
	size_t nr;
};

/* Split g[0..len) on spaces, tabs and commas ("[net,v2,1/2]"). */
static void split_words(struct words *ws, const char *g, size_t len)
{
	size_t i = 0;

	ws->nr = 0;
	while (i < len && ws->nr < PR_ARRAY_SIZE(ws->w)) {
		size_t start;

		while (i < len && (g[i] == ' ' || g[i] == '\t' || g[i] == ','))
			i++;
		start = i;
		while (i < len && g[i] != ' ' && g[i] != '\t' && g[i] != ',')
			i++;
		if (i > start) {
			ws->w[ws->nr] = g + start;
			ws->n[ws->nr] = i - start;
			ws->nr++;
		}
	}
}

static void parse_group(struct pr_subject_prefix *out, const char *g,
			size_t len)
{
	struct words ws;
	size_t i;
	int v;

	split_words(&ws, g, len);
	for (i = 0; i < ws.nr; i++) {
		const char *w = ws.w[i];
		size_t n = ws.n[i];
		int a, b;

		if (word_is(w, n, "PATCH") || word_is(w, n, "RESEND") ||
		    word_is(w, n, "of") || word_is(w, n, "GIT") ||
		    word_is(w, n, "PULL"))
			continue;
		if (word_is(w, n, "RFC")) {
			out->rfc = true;
			continue;
		}
		/* "PATCHv2", "RFCv2" */
		if (n > 5 && !strncasecmp(w, "PATCH", 5) &&
		    (v = parse_version(w + 5, n - 5)) >= 0) {
			out->version = v > 0 ? v : 1;
			continue;
		}
		if (n > 3 && !strncasecmp(w, "RFC", 3) &&
		    (v = parse_version(w + 3, n - 3)) >= 0) {
			out->rfc = true;
			out->version = v > 0 ? v : 1;
			continue;
		}
		if ((v = parse_version(w, n)) >= 0) {
			out->version = v > 0 ? v : 1;
			continue;
		}
		if (parse_fraction(w, n, &a, &b)) {
			out->index = a;
			out->total = b;
			continue;
		}
		/* "1 of 2" (Mercurial's patchbomb) */
		if ((a = parse_num(w, n)) >= 0) {
			if (i + 2 < ws.nr &&
			    word_is(ws.w[i + 1], ws.n[i + 1], "of") &&
			    (b = parse_num(ws.w[i + 2], ws.n[i + 2])) >= 0) {
				out->index = a;
				out->total = b;
				i += 2;
			}
			continue;
		}
		/* The first other word is the list tag; later ones are noise. */
		if (!out->list && (isalnum((unsigned char)w[0]) || w[0] == '-'))
			out->list = pr_strndup(w, n);
	}
}

int pr_subject_parse_prefix(struct pr_subject_prefix *out, const char *subject)
{
	const char *s = subject ? subject : "";
	size_t n;

	memset(out, 0, sizeof(*out));
	out->version = 1;
	for (;;) {
		const char *end;

		s = skip_space(s);
		n = starts_marker(s, skip_prefixes,
				  PR_ARRAY_SIZE(skip_prefixes));
		if (n) {
			s += n;
			continue;
		}
		if (*s != '[')
			break;
		end = strchr(s + 1, ']');
		if (!end)
			break;
		parse_group(out, s + 1, end - (s + 1));
		s = end + 1;
	}
	return 0;
}
