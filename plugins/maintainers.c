#define PCRE2_CODE_UNIT_WIDTH 8
#include "base/pr.h"

#include <pcre2.h>
#include <sys/stat.h>

#include "maintainers.h"

/*
 * A port of the parts of scripts/get_maintainer.pl (6.1) that run for
 * `--no-git --no-git-fallback`.  Where Perl applies a regex, this applies
 * the same regex through PCRE2 so that corner cases agree; the names of the
 * helpers follow the Perl subs they mimic.
 */

#define MAINT_BYTES (64 * PR_MIB)
#define OVEC 16

/*
 * One element of get_maintainer's @typevalue.  Values point into the
 * loaded text of MAINTAINERS unless a directory's '/' was added (owned);
 * F:/X: values stay as written and are converted when first compiled.
 * Regexes are compiled on first use and published with an atomic
 * compare-and-swap, so that a loaded struct pr_maint stays shareable
 * between threads; RX_FAILED marks a value that does not compile.
 */
enum {
	DIR_NO = 0,
	DIR_YES,
	DIR_UNKNOWN
};

struct tv {
	char type; /* 'A'..'Z', or 0 for a section header or other line */
	bool owned; /* value was allocated */
	bool literal; /* F/X: "^value" is a plain prefix test */
	bool slash_end; /* F/X: value as written ends in '/' */
	unsigned char dir; /* F/X: DIR_NO, DIR_YES, DIR_UNKNOWN (stat on use) */
	/*
	 * F/X: the literal bytes every match starts with are value's first
	 * prefix_len.  32 bits are enough (MAINTAINERS is capped at
	 * MAINT_BYTES) and keep this at 48 bytes: one per line of the file.
	 */
	uint32_t prefix_len;
	uint32_t nslash; /* F/X: slashes in value as written */
	uint32_t start; /* typed: find_starting_index of its section */
	char *value; /* the value (F/X: as written), or the whole line */
	pcre2_code *re; /* F/X: ^value; N: value/x; K: value/x */
	pcre2_code *re_patch; /* K only: ^[+-].*value/x */
};

/* The F:/X: entries whose literal prefix starts with one path component. */
struct fx_bucket {
	const char *comp; /* "drivers": the prefix up to its first '/' */
	size_t len;
	size_t *tvi; /* in MAINTAINERS order */
	size_t nr, alloc;
};

struct mapent {
	char *key;
	char *val;
};

struct pr_maint {
	struct tv *tv;
	size_t ntv, alloc_tv;
	size_t nsections;
	struct mapent *names, *addrs; /* .mailmap; later entries win */
	size_t nnames, alloc_names, naddrs, alloc_addrs;
	char *tree;
	char *text; /* MAINTAINERS, NUL at each line end; values point in */
	struct fx_bucket *fx; /* F/X with a '/' in the prefix */
	size_t nfx, alloc_fx;
	size_t *fx_any; /* F/X whose prefix has no '/': tried on every file */
	size_t nfx_any;
	size_t *nk, *kw; /* the N: and K: entries, in order */
	size_t nn, nkw;
	bool jit; /* JIT-compile N:/K: patterns when first used */
	pcre2_code *rx[20];
};

enum {
	RX_TYPE, /* ^([A-Z]):\s*(.*) */
	RX_PARSE1,
	RX_PARSE2,
	RX_PARSE3,
	RX_QUOTE,
	RX_MM1,
	RX_MM2,
	RX_MM3,
	RX_MM4,
	RX_MODE,
	RX_RENAME,
	RX_DIFFGIT,
	RX_FIXES,
	RX_PLUS,
	RX_MINUS,
	RX_HUNK,
	RX_FILE_ADDR,
	RX_FILE_CLEAN,
	RX_FILE_SPLIT,
};

static const char *const rx_src[] = {
	[RX_TYPE] = "^([A-Z]):\\s*(.*)",
	[RX_PARSE1] = "^([^<]+)<(.+\\@.*)>.*$",
	[RX_PARSE2] = "^\\s*<(.+\\@\\S*)>.*$",
	[RX_PARSE3] = "^(.+\\@\\S*).*$",
	[RX_QUOTE] = "[^\\w \\-]",
	[RX_MM1] = "^([^<]+)<([^>]+)>$",
	[RX_MM2] = "^<([^>]+)>\\s*<([^>]+)>$",
	[RX_MM3] = "^(.+)<([^>]+)>\\s*<([^>]+)>$",
	[RX_MM4] = "^(.+)<([^>]+)>\\s*(.+)\\s*<([^>]+)>$",
	[RX_MODE] = "^ mode change [0-7]+ => [0-7]+ (\\S+)\\s*$",
	[RX_RENAME] = "^rename (?:from|to) (\\S+)\\s*$",
	[RX_DIFFGIT] = "^diff --git a\\/(\\S+) b\\/(\\S+)\\s*$",
	[RX_FIXES] = "^Fixes:\\s+([0-9a-fA-F]{6,40})",
	[RX_PLUS] = "^\\+\\+\\+\\s+(\\S+)",
	[RX_MINUS] = "^---\\s+(\\S+)",
	[RX_HUNK] = "^\\@\\@ -(\\d+),(\\d+)",
	/*
	 * get_maintainer.pl's source has "À-ÿ" in UTF-8 without `use utf8`,
	 * so its class holds the bytes \xC3, \x80-\xC3 and \xBF.
	 */
	/* parenthesised: one literal split over lines, not a missing comma */
	[RX_FILE_ADDR] =
		("[A-Za-z\\x80-\\xC3\\\"\\' \\,\\.\\+-]*\\s*[\\,]*\\s*"
		 "[\\(\\<\\{]{0,1}[A-Za-z0-9_\\.\\+-]+\\@[A-Za-z0-9\\.-]+"
		 "\\.[A-Za-z0-9]+[\\)\\>\\}]{0,1}"),
	[RX_FILE_CLEAN] =
		("[\\(\\<\\{]{0,1}([A-Za-z0-9_\\.\\+-]+\\@[A-Za-z0-9\\.-]+)"
		 "[\\)\\>\\}]{0,1}"),
	[RX_FILE_SPLIT] = "[^A-Za-z\\x80-\\xC3\\'\\,\\.\\+-]",
};

static pcre2_code *pr_maint_rx_compile(const char *src, size_t len,
				       uint32_t flags, bool jit)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *re;

	re = pcre2_compile((PCRE2_SPTR)src, len, flags, &err, &off, NULL);
	/*
	 * JIT only the fixed patterns: JIT-compiling the ~25000 MAINTAINERS
	 * patterns costs more than one-shot matching saves.
	 */
	if (re && jit)
		pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	return re;
}

static bool pr_maint_rx_match(pcre2_code *re, const char *s, size_t len,
			      pcre2_match_data *md)
{
	if (!re)
		return false;
	return pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, md, NULL) >= 0;
}

/* Group g of the last match as a new string ("" when unset). */
static char *pr_maint_rx_group(pcre2_match_data *md, const char *s, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

	if (ov[2 * g] == PCRE2_UNSET)
		return pr_strdup("");
	return pr_memdup(s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

static bool pr_maint_perl_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

/* s/^\s+|\s+$//g in place */
static void trim(char *s)
{
	size_t a = 0, n = strlen(s);

	while (a < n && pr_maint_perl_space((unsigned char)s[a]))
		a++;
	while (n > a && pr_maint_perl_space((unsigned char)s[n - 1]))
		n--;
	memmove(s, s + a, n - a);
	s[n - a] = '\0';
}

/* s/^\"|\"$//g in place */
static void strip_quotes(char *s)
{
	size_t n = strlen(s), i;

	if (n && s[0] == '"') {
		/* a byte loop: gcc -fsanitize misjudges memmove bounds here */
		for (i = 0; i < n; i++)
			s[i] = s[i + 1];
		n--;
	}
	if (n && s[n - 1] == '"')
		s[n - 1] = '\0';
}

/* The name part of parse_email and format_email: trim, strip, quote. */
static char *clean_name(const struct pr_maint *m, pcre2_match_data *md,
			char *name)
{
	struct pr_buf b = PR_BUF_INIT;
	size_t i, n;

	trim(name);
	strip_quotes(name);
	n = strlen(name);
	if (!pr_maint_rx_match(m->rx[RX_QUOTE], name, n, md))
		return name;
	/* s/(?<!\\)"/\\"/g; then wrap in quotes */
	pr_buf_addch(&b, '"');
	for (i = 0; i < n; i++) {
		if (name[i] == '"' && (i == 0 || name[i - 1] != '\\'))
			pr_buf_addch(&b, '\\');
		pr_buf_addch(&b, name[i]);
	}
	pr_buf_addch(&b, '"');
	free(name);
	return pr_buf_detach(&b, NULL);
}

static void pr_maint_parse_email(const struct pr_maint *m, pcre2_match_data *md,
				 const char *s, char **name, char **addr)
{
	size_t n = strlen(s);

	if (pr_maint_rx_match(m->rx[RX_PARSE1], s, n, md)) {
		*name = pr_maint_rx_group(md, s, 1);
		*addr = pr_maint_rx_group(md, s, 2);
	} else if (pr_maint_rx_match(m->rx[RX_PARSE2], s, n, md)) {
		*name = pr_strdup("");
		*addr = pr_maint_rx_group(md, s, 1);
	} else if (pr_maint_rx_match(m->rx[RX_PARSE3], s, n, md)) {
		*name = pr_strdup("");
		*addr = pr_maint_rx_group(md, s, 1);
	} else {
		*name = pr_strdup("");
		*addr = pr_strdup("");
	}
	*name = clean_name(m, md, *name);
	trim(*addr);
}

/* format_email($name, $address, 1); name and address are not changed. */
static char *pr_maint_format_email(const struct pr_maint *m,
				   pcre2_match_data *md, const char *name,
				   const char *addr)
{
	char *n = clean_name(m, md, pr_strdup(name));
	char *a = pr_strdup(addr);
	struct pr_buf b = PR_BUF_INIT;

	trim(a);
	if (!*n)
		pr_buf_adds(&b, a);
	else
		pr_buf_addf(&b, "%s <%s>", n, a);
	free(n);
	free(a);
	return pr_buf_detach(&b, NULL);
}

static void map_set(struct mapent **v, size_t *nr, size_t *alloc,
		    const char *key, const char *val)
{
	PR_ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[*nr].key = pr_strdup(key);
	(*v)[*nr].val = pr_strdup(val);
	(*nr)++;
}

/* Sorted by key by map_finish: a binary search. */
static const char *map_get(const struct mapent *v, size_t nr, const char *key)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid].key, key);

		if (!c)
			return v[mid].val;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct mapsort {
	struct mapent e;
	size_t pos;
};

static int cmp_mapsort(const void *a, const void *b)
{
	const struct mapsort *x = a, *y = b;
	int c = strcmp(x->e.key, y->e.key);

	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sort a map by key; of entries with one key, the last one read wins. */
static void map_finish(struct mapent *v, size_t *nr)
{
	struct mapsort *t = pr_calloc(*nr ? *nr : 1, sizeof(*t));
	size_t i, j = 0;

	for (i = 0; i < *nr; i++) {
		t[i].e = v[i];
		t[i].pos = i;
	}
	qsort(t, *nr, sizeof(*t), cmp_mapsort);
	for (i = 0; i < *nr; i++) {
		if (i + 1 < *nr && !strcmp(t[i].e.key, t[i + 1].e.key)) {
			free(t[i].e.key);
			free(t[i].e.val);
			continue;
		}
		v[j++] = t[i].e;
	}
	*nr = j;
	free(t);
}

static void mailmap_line(struct pr_maint *m, pcre2_match_data *md,
			 const char *s)
{
	size_t n = strlen(s);
	char *g[5] = { NULL };
	char *rn = NULL, *ra = NULL, *wn = NULL, *wa = NULL, *t = NULL;
	int i;

	if (pr_maint_rx_match(m->rx[RX_MM1], s, n, md)) {
		g[1] = pr_maint_rx_group(md, s, 1);
		g[2] = pr_maint_rx_group(md, s, 2);
		trim(g[1]);
		{
			struct pr_buf b = PR_BUF_INIT;

			pr_buf_addf(&b, "%s <%s>", g[1], g[2]);
			pr_maint_parse_email(m, md, b.ptr, &rn, &ra);
			pr_buf_release(&b);
		}
		map_set(&m->names, &m->nnames, &m->alloc_names, ra, rn);
	} else if (pr_maint_rx_match(m->rx[RX_MM2], s, n, md)) {
		g[1] = pr_maint_rx_group(md, s, 1);
		g[2] = pr_maint_rx_group(md, s, 2);
		map_set(&m->addrs, &m->naddrs, &m->alloc_addrs, g[2], g[1]);
	} else if (pr_maint_rx_match(m->rx[RX_MM3], s, n, md)) {
		struct pr_buf b = PR_BUF_INIT;

		for (i = 1; i <= 3; i++)
			g[i] = pr_maint_rx_group(md, s, i);
		/* Perl's s/\s+$// only trims trailing space here */
		n = strlen(g[1]);
		while (n && pr_maint_perl_space((unsigned char)g[1][n - 1]))
			g[1][--n] = '\0';
		pr_buf_addf(&b, "%s <%s>", g[1], g[2]);
		pr_maint_parse_email(m, md, b.ptr, &rn, &ra);
		pr_buf_release(&b);
		map_set(&m->names, &m->nnames, &m->alloc_names, g[3], rn);
		map_set(&m->addrs, &m->naddrs, &m->alloc_addrs, g[3], ra);
	} else if (pr_maint_rx_match(m->rx[RX_MM4], s, n, md)) {
		struct pr_buf b = PR_BUF_INIT;

		for (i = 1; i <= 4; i++)
			g[i] = pr_maint_rx_group(md, s, i);
		n = strlen(g[1]);
		while (n && pr_maint_perl_space((unsigned char)g[1][n - 1]))
			g[1][--n] = '\0';
		pr_buf_addf(&b, "%s <%s>", g[1], g[2]);
		pr_maint_parse_email(m, md, b.ptr, &rn, &ra);
		pr_buf_reset(&b);
		n = strlen(g[3]);
		while (n && pr_maint_perl_space((unsigned char)g[3][n - 1]))
			g[3][--n] = '\0';
		pr_buf_addf(&b, "%s <%s>", g[3], g[4]);
		pr_maint_parse_email(m, md, b.ptr, &wn, &wa);
		pr_buf_release(&b);
		t = pr_maint_format_email(m, md, wn, wa);
		map_set(&m->names, &m->nnames, &m->alloc_names, t, rn);
		map_set(&m->addrs, &m->naddrs, &m->alloc_addrs, t, ra);
		free(t);
	}
	for (i = 0; i < 5; i++)
		free(g[i]);
	free(rn);
	free(ra);
	free(wn);
	free(wa);
}

static void read_mailmap(struct pr_maint *m, pcre2_match_data *md,
			 const char *tree)
{
	struct pr_buf path = PR_BUF_INIT, text = PR_BUF_INIT;
	char *p, *nl;

	pr_buf_addf(&path, "%s/.mailmap", tree);
	if (pr_buf_read_file(&text, path.ptr) < 0) {
		pr_error_clear();
		goto done;
	}
	for (p = text.ptr; *p; p = nl ? nl + 1 : p + strlen(p)) {
		char *hash;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		trim(p);
		if (*p)
			mailmap_line(m, md, p);
		if (!nl)
			break;
	}
done:
	pr_buf_release(&path);
	pr_buf_release(&text);
}

static size_t count_slashes(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

static const int rx_failed_marker;
#define RX_FAILED ((pcre2_code *)(uintptr_t)&rx_failed_marker)

static bool perl_space_not_nl(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * An F:/X: value, in one pass over it as written: its slashes, and the
 * literal bytes every match of the converted pattern begins with, which are
 * the value's own first bytes (get_maintainer.pl converts '.' -> '\.',
 * '*' -> '.*', '?' -> '.'): a converted '.' is literal; '*' and '?' become
 * '.', which ends the prefix, as does any other regex byte ('+' and '{'
 * make the byte before them optional too).  get_maintainer.pl's
 * `-d $value` runs on the converted value, which names no directory when
 * the conversion changed it: only the other values are stat()ed.
 */
/* Byte classes of an F:/X: value, for file_entry. */
enum {
	FE_SLASH = 1, /* '/' */
	FE_CHANGED = 2, /* get_maintainer.pl's conversion rewrites it */
	FE_STOP = 4, /* a regex byte: ends the literal prefix */
	FE_BACK = 8, /* '+', '{': also make the byte before optional */
};

static const unsigned char fe_class[256] = {
	['/'] = FE_SLASH,
	['.'] = FE_CHANGED,
	['*'] = FE_CHANGED | FE_STOP,
	['?'] = FE_CHANGED | FE_STOP,
	['\\'] = FE_STOP,
	['^'] = FE_STOP,
	['$'] = FE_STOP,
	['|'] = FE_STOP,
	['('] = FE_STOP,
	[')'] = FE_STOP,
	['['] = FE_STOP,
	[']'] = FE_STOP,
	['}'] = FE_STOP,
	['+'] = FE_STOP | FE_BACK,
	['{'] = FE_STOP | FE_BACK,
};

static void file_entry(struct tv *t)
{
	const unsigned char *s = (const unsigned char *)t->value;
	size_t n = 0, plen, nslash = 0;
	unsigned seen = 0, c;

	/* locals, not t's fields: stores through t could alias s */
	for (; s[n] && !((c = fe_class[s[n]]) & FE_STOP); n++) {
		nslash += c & FE_SLASH;
		seen |= c;
	}
	plen = n;
	if (s[n]) {
		if ((fe_class[s[n]] & FE_BACK) && plen)
			plen--;
		for (; s[n]; n++) {
			c = fe_class[s[n]];
			nslash += c & FE_SLASH;
			seen |= c;
		}
	}
	t->nslash = (uint32_t)nslash;
	t->literal = !(seen & FE_STOP);
	t->slash_end = n && s[n - 1] == '/';
	/* a '/' is added on first use when the value names a directory */
	t->dir = t->slash_end		     ? DIR_YES
		 : (seen & FE_CHANGED) || !n ? DIR_NO
					     : DIR_UNKNOWN;
	t->prefix_len = (uint32_t)plen;
}

/*
 * Whether F:/X: value t is a directory pattern (written with a trailing
 * '/', or naming a directory of the tree, when get_maintainer.pl adds
 * one); the stat runs once, on first use, and is kept (a race only runs
 * it twice, with the same answer).
 */
static bool pr_maint_tv_isdir(const struct pr_maint *m, struct tv *t)
{
	unsigned char d = __atomic_load_n(&t->dir, __ATOMIC_ACQUIRE);
	struct pr_buf path = PR_BUF_INIT;
	struct stat st;

	if (d != DIR_UNKNOWN)
		return d == DIR_YES;
	pr_buf_addf(&path, "%s/%s", m->tree, t->value);
	d = !stat(path.ptr, &st) && S_ISDIR(st.st_mode) ? DIR_YES : DIR_NO;
	pr_buf_release(&path);
	__atomic_store_n(&t->dir, d, __ATOMIC_RELEASE);
	return d == DIR_YES;
}

/* Slashes of the value as get_maintainer.pl matches it. */
static size_t pr_maint_tv_nslash(const struct pr_maint *m, struct tv *t)
{
	return (size_t)t->nslash + (!t->slash_end && pr_maint_tv_isdir(m, t));
}

/* "^" and the F:/X: value as get_maintainer.pl converts it. */
static void convert_file_pattern(struct pr_buf *b, const char *s)
{
	pr_buf_addch(b, '^');
	for (; *s; s++) {
		if (*s == '.')
			pr_buf_adds(b, "\\.");
		else if (*s == '*')
			pr_buf_adds(b, ".*");
		else if (*s == '?')
			pr_buf_addch(b, '.');
		else
			pr_buf_addch(b, *s);
	}
}

/* The regex of t (K: patch form when `patch`), compiled on first use. */
static pcre2_code *pr_maint_tv_re(const struct pr_maint *m, struct tv *t,
				  bool patch)
{
	pcre2_code **slot = patch ? &t->re_patch : &t->re;
	pcre2_code *re = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *expect;
	struct pr_buf b = PR_BUF_INIT;

	if (re)
		return re == RX_FAILED ? NULL : re;
	switch (t->type) {
	case 'F':
	case 'X':
		convert_file_pattern(&b, t->value);
		if (!t->slash_end && pr_maint_tv_isdir(m, t))
			pr_buf_addch(&b, '/');
		re = pr_maint_rx_compile(b.ptr, b.len, 0, false);
		break;
	case 'N':
	case 'K':
		if (patch)
			pr_buf_addf(&b, "^[+-].*%s", t->value);
		else
			pr_buf_adds(&b, t->value);
		re = pr_maint_rx_compile(b.ptr, b.len, PCRE2_EXTENDED, m->jit);
		break;
	default:
		break;
	}
	pr_buf_release(&b);
	if (!re)
		re = RX_FAILED;
	expect = NULL;
	if (!__atomic_compare_exchange_n(slot, &expect, re, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* another thread was first: use its copy */
		if (re != RX_FAILED)
			pcre2_code_free(re);
		re = expect;
	}
	return re == RX_FAILED ? NULL : re;
}

static bool blank_or_comment(const char *s)
{
	while (pr_maint_perl_space((unsigned char)*s))
		s++;
	return !*s || *s == '#';
}

static size_t find_starting_index(const struct pr_maint *m, size_t i);

/* The bucket of component comp[0..len), or NULL. */
static struct fx_bucket *pr_maint_fx_find(const struct pr_maint *m,
					  const char *comp, size_t len)
{
	size_t i;

	for (i = 0; i < m->nfx; i++)
		if (m->fx[i].len == len && !memcmp(m->fx[i].comp, comp, len))
			return &m->fx[i];
	return NULL;
}

/* After parsing: sections and the F:/X:, N: and K: indexes. */
static void build_index(struct pr_maint *m)
{
	size_t i, aany = 0, an = 0, ak = 0, start = 0;
	struct fx_bucket *last = NULL;

	for (i = 0; i < m->ntv; i++) {
		struct tv *t = &m->tv[i];
		const char *slash;
		size_t len;

		/* find_starting_index, in one pass: the last untyped line */
		if (!t->type) {
			start = i;
			continue;
		}
		t->start = (uint32_t)start;
		if (i == 0 || !m->tv[i - 1].type)
			m->nsections++;
		if (t->type == 'N') {
			PR_ALLOC_GROW(m->nk, m->nn + 1, an);
			m->nk[m->nn++] = i;
		} else if (t->type == 'K') {
			PR_ALLOC_GROW(m->kw, m->nkw + 1, ak);
			m->kw[m->nkw++] = i;
		}
		if (t->type != 'F' && t->type != 'X')
			continue;
		slash = memchr(t->value, '/', t->prefix_len);
		if (!slash) {
			PR_ALLOC_GROW(m->fx_any, m->nfx_any + 1, aany);
			m->fx_any[m->nfx_any++] = i;
			continue;
		}
		len = (size_t)(slash - t->value);
		/* neighbours mostly share a component: try the last first */
		if (!last || last->len != len ||
		    memcmp(last->comp, t->value, len))
			last = pr_maint_fx_find(m, t->value, len);
		if (!last) {
			PR_ALLOC_GROW(m->fx, m->nfx + 1, m->alloc_fx);
			last = &m->fx[m->nfx++];
			memset(last, 0, sizeof(*last));
			last->comp = t->value;
			last->len = len;
		}
		PR_ALLOC_GROW(last->tvi, last->nr + 1, last->alloc);
		last->tvi[last->nr++] = i;
	}
}

int pr_maint_load(struct pr_maint **out, const char *path, const char *tree)
{
	struct pr_maint *m = pr_calloc(1, sizeof(*m));
	struct pr_buf text = PR_BUF_INIT;
	pcre2_match_data *md = pcre2_match_data_create(OVEC, NULL);
	char *p, *nl, *end;
	size_t i, len;
	int err;

	*out = NULL;
	if (!tree)
		tree = ".";
	m->tree = pr_strdup(tree);
	for (i = 0; i < PR_ARRAY_SIZE(rx_src); i++) {
		m->rx[i] = pr_maint_rx_compile(rx_src[i], PCRE2_ZERO_TERMINATED,
					       0, true);
		if (!m->rx[i]) {
			err = pr_error(PR_EINTERNAL,
				       "regex %zu does not compile", i);
			goto done;
		}
	}
	pr_buf_init(&text, MAINT_BYTES);
	err = pr_buf_read_file(&text, path);
	if (err < 0) {
		err = pr_error_wrap(err, "maintainers file '%s'", path);
		goto done;
	}
	m->text = pr_buf_detach(&text, &len);
	end = m->text + len;
	/*
	 * One entry a line at most; the kernel's lines average over 30
	 * bytes, so len / 24 entries rarely grow, with no pass counting
	 * lines.  Pages never written are never touched.
	 */
	m->alloc_tv = len / 24 + 16;
	m->tv = pr_reallocarray(NULL, m->alloc_tv, sizeof(*m->tv));
	for (p = m->text; p < end; p = nl + 1) {
		struct tv t = { 0 };

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		*nl = '\0';
		/* m/^([A-Z]):\s*(.*)/ on a line without its newline */
		if (p[0] >= 'A' && p[0] <= 'Z' && p[1] == ':') {
			char *v = p + 2;

			while (perl_space_not_nl((unsigned char)*v))
				v++;
			t.type = p[0];
			t.value = v;
			if (t.type == 'F' || t.type == 'X')
				file_entry(&t);
		} else if (!blank_or_comment(p)) {
			t.value = p;
		} else {
			continue;
		}
		PR_ALLOC_GROW(m->tv, m->ntv + 1, m->alloc_tv);
		m->tv[m->ntv++] = t;
	}
	build_index(m);
	read_mailmap(m, md, tree);
	map_finish(m->names, &m->nnames);
	map_finish(m->addrs, &m->naddrs);
	*out = m;
	m = NULL;
	err = 0;
done:
	pcre2_match_data_free(md);
	pr_buf_release(&text);
	pr_maint_free(m);
	return err;
}

void pr_maint_set_jit(struct pr_maint *m, bool jit)
{
	m->jit = jit;
}

void pr_maint_free(struct pr_maint *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->ntv; i++) {
		if (m->tv[i].owned)
			free(m->tv[i].value);
		if (m->tv[i].re != RX_FAILED)
			pcre2_code_free(m->tv[i].re);
		if (m->tv[i].re_patch != RX_FAILED)
			pcre2_code_free(m->tv[i].re_patch);
	}
	free(m->tv);
	free(m->tree);
	free(m->text);
	for (i = 0; i < m->nfx; i++)
		free(m->fx[i].tvi);
	free(m->fx);
	free(m->fx_any);
	free(m->nk);
	free(m->kw);
	for (i = 0; i < m->nnames; i++) {
		free(m->names[i].key);
		free(m->names[i].val);
	}
	for (i = 0; i < m->naddrs; i++) {
		free(m->addrs[i].key);
		free(m->addrs[i].val);
	}
	free(m->names);
	free(m->addrs);
	for (i = 0; i < PR_ARRAY_SIZE(m->rx); i++)
		pcre2_code_free(m->rx[i]);
	free(m);
}

size_t pr_maint_nsections(const struct pr_maint *m)
{
	return m->nsections;
}

void pr_maint_opts_init(struct pr_maint_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->maintainers = true;
	o->reviewers = true;
	o->lists = true;
	o->rolestats = true;
	o->keywords = true;
}

/* ---- routing ---- */

struct strv {
	char **v;
	size_t nr, alloc;
};

static void strv_push(struct strv *s, char *str)
{
	PR_ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr++] = str;
}

static void strv_release(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static bool strv_has(const struct strv *s, const char *str)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i], str))
			return true;
	return false;
}

struct entry {
	char *email;
	char *role;
	enum pr_maint_kind kind;
	size_t section; /* tv index of the section header; SIZE_MAX: none */
};

struct route {
	const struct pr_maint *m;
	const struct pr_maint_opts *o;
	pcre2_match_data *md;
	struct strv files;
	size_t *ktvi;
	size_t nktvi, alloc_ktvi;
	size_t *cand; /* match_file's candidate entries */
	size_t ncand, alloc_cand;
	struct entry *to, *lists;
	size_t nto, alloc_to, nlists, alloc_lists;
	struct strv hash_name, hash_addr, hash_list;
	struct strv dd_name, dd_addr; /* keys; values in dd_val */
	struct strv dd_vname, dd_vaddr;
	struct strv subsystem, status;
	struct strv file_emails;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Perl's sort_and_uniq on @files */
static void sort_uniq_files(struct strv *f)
{
	size_t i, j = 0;

	if (!f->nr)
		return;
	qsort(f->v, f->nr, sizeof(*f->v), cmp_str);
	for (i = 1; i < f->nr; i++) {
		if (!strcmp(f->v[i], f->v[j]))
			free(f->v[i]);
		else
			f->v[++j] = f->v[i];
	}
	f->nr = j + 1;
}

/* @keyword_tvi is sorted as strings: "100" < "99". */
static int cmp_tvi_str(const void *a, const void *b)
{
	char x[32], y[32];

	snprintf(x, sizeof(x), "%zu", *(const size_t *)a);
	snprintf(y, sizeof(y), "%zu", *(const size_t *)b);
	return strcmp(x, y);
}

static void add_keyword_matches(struct route *r, const char *line, size_t len,
				bool in_patch)
{
	const struct pr_maint *m = r->m;
	size_t i;

	for (i = 0; i < m->nkw; i++) {
		struct tv *t = (struct tv *)&m->tv[m->kw[i]];

		if (pr_maint_rx_match(pr_maint_tv_re(m, t, in_patch), line, len,
				      r->md)) {
			PR_ALLOC_GROW(r->ktvi, r->nktvi + 1, r->alloc_ktvi);
			r->ktvi[r->nktvi++] = m->kw[i];
		}
	}
}

static void read_patch(struct route *r, const struct pr_buf *patch)
{
	const struct pr_maint *m = r->m;
	pcre2_match_data *md = r->md;
	const char *p = patch->ptr, *end = patch->ptr + patch->len;
	bool in_patch = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		/* each line as Perl reads it: with its newline */
		if (pr_maint_rx_match(m->rx[RX_MODE], p, len, md) ||
		    pr_maint_rx_match(m->rx[RX_RENAME], p, len, md)) {
			strv_push(&r->files, pr_maint_rx_group(md, p, 1));
		} else if (pr_maint_rx_match(m->rx[RX_DIFFGIT], p, len, md)) {
			strv_push(&r->files, pr_maint_rx_group(md, p, 1));
			strv_push(&r->files, pr_maint_rx_group(md, p, 2));
		} else if (pr_maint_rx_match(m->rx[RX_FIXES], p, len, md)) {
			/* commit signers need git history: not used */
		} else if (pr_maint_rx_match(m->rx[RX_PLUS], p, len, md) ||
			   pr_maint_rx_match(m->rx[RX_MINUS], p, len, md)) {
			char *f = pr_maint_rx_group(md, p, 1);
			char *slash = strchr(f, '/');

			/* s@^[^/]*\/@@ */
			if (slash)
				memmove(f, slash + 1, strlen(slash + 1) + 1);
			strv_push(&r->files, f);
			in_patch = true;
		} else if (pr_maint_rx_match(m->rx[RX_HUNK], p, len, md)) {
			/* ranges serve only git blame */
		} else if (r->o->keywords) {
			add_keyword_matches(r, p, len, in_patch);
		}
		p += len;
	}
	sort_uniq_files(&r->files);
}

static bool file_match_pattern(struct route *r, const char *file, size_t flen,
			       size_t fslash, struct tv *t)
{
	if (flen < t->prefix_len || memcmp(file, t->value, t->prefix_len))
		return false;
	if (t->literal) {
		/* "^value" is a prefix test; "^value/" for a directory */
		if (!t->slash_end && pr_maint_tv_isdir(r->m, t) &&
		    (flen == t->prefix_len || file[t->prefix_len] != '/'))
			return false;
	} else if (!pr_maint_rx_match(pr_maint_tv_re(r->m, t, false), file,
				      flen, r->md)) {
		return false;
	}
	return pr_maint_tv_isdir(r->m, t) ||
	       fslash == pr_maint_tv_nslash(r->m, t);
}

static size_t find_starting_index(const struct pr_maint *m, size_t i)
{
	while (i > 0) {
		if (!m->tv[i].type)
			break;
		i--;
	}
	return i;
}

static size_t find_ending_index(const struct pr_maint *m, size_t i)
{
	while (i < m->ntv && m->tv[i].type)
		i++;
	return i;
}

/* The header, as "%.47s..." when longer than 50 bytes. */
static char *subsystem_name(const struct pr_maint *m, size_t i)
{
	const char *s = m->tv[find_starting_index(m, i)].value;
	size_t n = strlen(s);
	char *out;

	if (n <= 50)
		return pr_strdup(s);
	n = 47;
	while (n && pr_maint_perl_space((unsigned char)s[n - 1]))
		n--;
	out = pr_malloc(n + 4);
	memcpy(out, s, n);
	memcpy(out + n, "...", 4);
	return out;
}

static char *maintainer_role(const struct pr_maint *m, size_t i)
{
	size_t start = find_starting_index(m, i), end = find_ending_index(m, i);
	const char *role = "unknown";
	char *lc, *sub, *out;
	struct pr_buf b = PR_BUF_INIT;
	size_t j;

	for (j = start + 1; j < end; j++)
		if (m->tv[j].type == 'S')
			role = m->tv[j].value;
	lc = pr_strdup(role);
	for (j = 0; lc[j]; j++)
		if (lc[j] >= 'A' && lc[j] <= 'Z')
			lc[j] = (char)(lc[j] - 'A' + 'a');
	if (!strcmp(lc, "supported"))
		role = "supporter";
	else if (!strcmp(lc, "maintained"))
		role = "maintainer";
	else if (!strcmp(lc, "odd fixes"))
		role = "odd fixer";
	else if (!strcmp(lc, "orphan"))
		role = "orphan minder";
	else if (!strcmp(lc, "obsolete"))
		role = "obsolete minder";
	else if (!strcmp(lc, "buried alive in reporters"))
		role = "chief penguin";
	else
		role = lc;
	sub = subsystem_name(m, i);
	pr_buf_addf(&b, "%s:%s", role, sub);
	free(sub);
	free(lc);
	out = pr_buf_detach(&b, NULL);
	return out;
}

static char *lower(const char *s)
{
	char *l = pr_strdup(s);
	size_t i;

	for (i = 0; l[i]; i++)
		if (l[i] >= 'A' && l[i] <= 'Z')
			l[i] = (char)(l[i] - 'A' + 'a');
	return l;
}

static void push_email_address(struct route *r, const char *line,
			       const char *role, enum pr_maint_kind kind,
			       size_t section)
{
	char *name, *addr, *lname, *laddr;

	pr_maint_parse_email(r->m, r->md, line, &name, &addr);
	if (!*addr)
		goto done;
	lname = lower(name);
	laddr = lower(addr);
	/* email_inuse */
	if ((*name && strv_has(&r->hash_name, lname)) ||
	    strv_has(&r->hash_addr, laddr)) {
		free(lname);
		free(laddr);
		goto done;
	}
	PR_ALLOC_GROW(r->to, r->nto + 1, r->alloc_to);
	r->to[r->nto].email = pr_maint_format_email(r->m, r->md, name, addr);
	r->to[r->nto].role = pr_strdup(role);
	r->to[r->nto].kind = kind;
	r->to[r->nto].section = section;
	r->nto++;
	if (*name)
		strv_push(&r->hash_name, lname);
	else
		free(lname);
	strv_push(&r->hash_addr, laddr);
done:
	free(name);
	free(addr);
}

static void push_list(struct route *r, const char *addr, const char *kind,
		      const char *role, size_t section)
{
	struct pr_buf b = PR_BUF_INIT;

	pr_buf_addf(&b, "%s list%s", kind, role);
	PR_ALLOC_GROW(r->lists, r->nlists + 1, r->alloc_lists);
	r->lists[r->nlists].email = pr_strdup(addr);
	r->lists[r->nlists].role = pr_buf_detach(&b, NULL);
	r->lists[r->nlists].kind = PR_MAINT_LIST;
	r->lists[r->nlists].section = section;
	r->nlists++;
	strv_push(&r->hash_list, lower(addr));
}

static void add_list(struct route *r, size_t i)
{
	const char *v = r->m->tv[i].value;
	char *sub = subsystem_name(r->m, i);
	char *addr, *extra, *laddr;
	struct pr_buf role = PR_BUF_INIT;
	const char *sp;

	if (strcmp(sub, "THE REST"))
		pr_buf_addf(&role, ":%s", sub);
	/* m/([^\s]+)\s+(.*)$/: the first word, and what follows the space */
	for (sp = v; *sp && !pr_maint_perl_space((unsigned char)*sp); sp++)
		;
	if (*sp && sp > v) {
		const char *rest = sp;

		while (*rest && pr_maint_perl_space((unsigned char)*rest))
			rest++;
		addr = pr_memdup(v, (size_t)(sp - v));
		extra = pr_strdup(rest);
	} else {
		/* no match: the value stays whole, even a leading blank */
		addr = pr_strdup(v);
		extra = pr_strdup("");
	}
	laddr = lower(addr);
	if (strstr(extra, "subscribers-only")) {
		/* --no-s: subscriber lists are not mailed */
	} else if (r->o->lists && !strv_has(&r->hash_list, laddr)) {
		if (strstr(extra, "moderated"))
			push_list(r, addr, "moderated", role.ptr,
				  find_starting_index(r->m, i));
		else
			push_list(r, addr, "open", role.ptr,
				  find_starting_index(r->m, i));
	}
	free(laddr);
	free(addr);
	free(extra);
	free(sub);
	pr_buf_release(&role);
}

static void add_categories(struct route *r, size_t idx)
{
	const struct pr_maint *m = r->m;
	size_t start = find_starting_index(m, idx);
	size_t end = find_ending_index(m, idx);
	size_t i;

	strv_push(&r->subsystem, pr_strdup(m->tv[start].value));
	for (i = start + 1; i < end; i++) {
		const struct tv *t = &m->tv[i];

		if (t->type == 'L') {
			add_list(r, i);
		} else if (t->type == 'M' && r->o->maintainers) {
			char *role = maintainer_role(m, i);

			push_email_address(r, t->value, role,
					   PR_MAINT_MAINTAINER, start);
			free(role);
		} else if (t->type == 'R' && r->o->reviewers) {
			char *sub = subsystem_name(m, i);
			struct pr_buf role = PR_BUF_INIT;

			pr_buf_addf(&role, "reviewer:%s", sub);
			push_email_address(r, t->value, role.ptr,
					   PR_MAINT_REVIEWER, start);
			pr_buf_release(&role);
			free(sub);
		} else if (t->type == 'S') {
			strv_push(&r->status, pr_strdup(t->value));
		}
	}
}

/* Perl's clean_file_emails for one candidate found in a file. */
static char *clean_file_email(struct route *r, const char *cand)
{
	const struct pr_maint *m = r->m;
	pcre2_match_data *md = r->md;
	struct pr_buf e = PR_BUF_INIT;
	struct strv nw = { 0 };
	char *name, *addr, *out;
	const char *s = cand;
	size_t n = strlen(cand), off = 0, len;

	/* s/[(<{]?(ADDR)[)>}]?/<$1>/g */
	while (off <= n && pcre2_match(m->rx[RX_FILE_CLEAN], (PCRE2_SPTR)s, n,
				       off, 0, md, NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

		pr_buf_add(&e, s + off, ov[0] - off);
		pr_buf_addch(&e, '<');
		pr_buf_add(&e, s + ov[2], ov[3] - ov[2]);
		pr_buf_addch(&e, '>');
		off = ov[1];
	}
	if (off < n)
		pr_buf_add(&e, s + off, n - off);
	pr_maint_parse_email(m, md, e.ptr, &name, &addr);
	pr_buf_release(&e);
	if (!strcmp(name, "\"[,\\.]\""))
		name[0] = '\0';
	/* split(/[^A-Za-z...]/, $name), trailing empty fields dropped */
	len = strlen(name);
	off = 0;
	while (pcre2_match(m->rx[RX_FILE_SPLIT], (PCRE2_SPTR)name, len, off, 0,
			   md, NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

		strv_push(&nw, pr_memdup(name + off, ov[0] - off));
		off = ov[1];
	}
	strv_push(&nw, pr_memdup(name + off, len - off));
	while (nw.nr && !*nw.v[nw.nr - 1]) {
		free(nw.v[nw.nr - 1]);
		nw.nr--;
	}
	if (nw.nr > 2) {
		const char *first = nw.v[nw.nr - 3], *middle = nw.v[nw.nr - 2];
		const char *last = nw.v[nw.nr - 1];
		size_t fl = strlen(first), ml = strlen(middle);
		struct pr_buf b = PR_BUF_INIT;
		bool alpha = fl == 1 && ((first[0] >= 'A' && first[0] <= 'Z') ||
					 (first[0] >= 'a' && first[0] <= 'z'));

		if (alpha || (fl == 2 && first[1] == '.') || ml == 1 ||
		    (ml == 2 && middle[1] == '.'))
			pr_buf_addf(&b, "%s %s %s", first, middle, last);
		else
			pr_buf_addf(&b, "%s %s", middle, last);
		free(name);
		name = pr_buf_detach(&b, NULL);
	}
	len = strlen(name);
	if (len && (name[len - 1] == ',' || name[len - 1] == '.')) {
		name[--len] = '\0';
	} else if (len >= 2 && name[len - 1] == '"' &&
		   (name[len - 2] == ',' || name[len - 2] == '.')) {
		name[len - 2] = '"';
		name[--len] = '\0';
	}
	if (len && (name[0] == ',' || name[0] == '.')) {
		memmove(name, name + 1, len);
	} else if (len >= 2 && name[0] == '"' &&
		   (name[1] == ',' || name[1] == '.')) {
		memmove(name + 1, name + 2, len - 1);
	}
	out = pr_maint_format_email(m, md, name, addr);
	free(name);
	free(addr);
	strv_release(&nw);
	return out;
}

/* get_maintainer.pl mails the addresses written in a patched .yaml file. */
static void maintainers_in_file(struct route *r, const char *file)
{
	const struct pr_maint *m = r->m;
	struct pr_buf path = PR_BUF_INIT, text = PR_BUF_INIT;
	size_t n = strlen(file), off = 0;
	struct stat st;

	if (n < 5 || strcmp(file + n - 5, ".yaml"))
		return;
	pr_buf_addf(&path, "%s/%s", m->tree, file);
	pr_buf_init(&text, PR_LIMIT_DIFF_BYTES);
	if (stat(path.ptr, &st) || !S_ISREG(st.st_mode) ||
	    pr_buf_read_file(&text, path.ptr) < 0) {
		pr_error_clear();
		goto done;
	}
	while (off < text.len &&
	       pcre2_match(m->rx[RX_FILE_ADDR], (PCRE2_SPTR)text.ptr, text.len,
			   off, 0, r->md, NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
		char *cand = pr_memdup(text.ptr + ov[0], ov[1] - ov[0]);
		size_t next = ov[1] > off ? ov[1] : off + 1;

		/* clean_file_email reuses the match data: ov is stale after */
		strv_push(&r->file_emails, clean_file_email(r, cand));
		free(cand);
		off = next;
	}
done:
	pr_buf_release(&path);
	pr_buf_release(&text);
}

/* add_role($email, 'in file') */
static void add_file_role(struct route *r, const char *email)
{
	char *name, *addr;
	size_t i;

	pr_maint_parse_email(r->m, r->md, email, &name, &addr);
	for (i = 0; i < r->nto; i++) {
		char *en, *ea;
		struct pr_buf b = PR_BUF_INIT;

		pr_maint_parse_email(r->m, r->md, r->to[i].email, &en, &ea);
		if ((!strcmp(name, en) || !strcmp(addr, ea)) &&
		    !strstr(r->to[i].role, "in file")) {
			if (*r->to[i].role)
				pr_buf_addf(&b, "%s,in file", r->to[i].role);
			else
				pr_buf_adds(&b, "in file");
			free(r->to[i].role);
			r->to[i].role = pr_buf_detach(&b, NULL);
		}
		free(en);
		free(ea);
	}
	free(name);
	free(addr);
}

struct hit {
	size_t tvi;
	long depth;
};

static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? 1 : -1;
	return x->tvi < y->tvi ? -1 : x->tvi > y->tvi;
}

/*
 * The F:/X: entries that can match `file` (their literal prefix shares its
 * first path component, or has no '/') and every N: entry, in MAINTAINERS
 * order: no other entry can match, so sections are judged on these alone.
 */
static void candidates(struct route *r, const char *file, size_t flen)
{
	const struct pr_maint *m = r->m;
	const char *slash = memchr(file, '/', flen);
	const struct fx_bucket *b =
		slash ? pr_maint_fx_find(m, file, (size_t)(slash - file))
		      : NULL;
	const size_t *l[3] = { b ? b->tvi : NULL, m->fx_any, m->nk };
	size_t nl[3] = { b ? b->nr : 0, m->nfx_any, m->nn }, at[3] = { 0 };

	/* three lists in MAINTAINERS order, merged */
	PR_ALLOC_GROW(r->cand, nl[0] + nl[1] + nl[2], r->alloc_cand);
	r->ncand = 0;
	for (;;) {
		size_t best = 3, k;

		for (k = 0; k < 3; k++)
			if (at[k] < nl[k] &&
			    (best == 3 || l[k][at[k]] < l[best][at[best]]))
				best = k;
		if (best == 3)
			break;
		r->cand[r->ncand++] = l[best][at[best]++];
	}
}

/*
 * The sections whose F:/N: entries match `file` and whose X: entries do not,
 * as one entry of each in *hits, deepest first; returns their number.
 */
static size_t file_hits(struct route *r, const char *file, struct hit **hits,
			size_t *alloc)
{
	const struct pr_maint *m = r->m;
	size_t nhits = 0, flen = strlen(file), fslash = count_slashes(file);
	size_t a, b, i;

	candidates(r, file, flen);
	for (a = 0; a < r->ncand; a = b) {
		size_t start = m->tv[r->cand[a]].start;
		bool exclude = false, hit = false;
		long depth = 0;

		for (b = a; b < r->ncand && m->tv[r->cand[b]].start == start;
		     b++)
			;
		for (i = a; i < b && !exclude; i++) {
			struct tv *t = (struct tv *)&m->tv[r->cand[i]];

			if (t->type == 'X' &&
			    file_match_pattern(r, file, flen, fslash, t))
				exclude = true;
		}
		for (i = a; i < b && !exclude; i++) {
			struct tv *t = (struct tv *)&m->tv[r->cand[i]];

			if (t->type == 'F' &&
			    file_match_pattern(r, file, flen, fslash, t)) {
				long pd = (long)pr_maint_tv_nslash(m, t);

				if (!pr_maint_tv_isdir(m, t))
					pd++;
				/* the converted value starts ".*" */
				if (t->value[0] == '*')
					pd = -1;
				depth = pd;
				hit = true;
			} else if (t->type == 'N' &&
				   pr_maint_rx_match(pr_maint_tv_re(m, t,
								    false),
						     file, flen, r->md)) {
				depth = 0;
				hit = true;
			}
		}
		if (hit) {
			PR_ALLOC_GROW(*hits, nhits + 1, *alloc);
			/* any entry of the section: add_categories finds it */
			(*hits)[nhits].tvi = r->cand[a];
			(*hits)[nhits].depth = depth;
			nhits++;
		}
	}
	/* deepest first; ties in MAINTAINERS order (Perl: hash order) */
	if (nhits)
		qsort(*hits, nhits, sizeof(**hits), cmp_hit);
	return nhits;
}

static void match_file(struct route *r, const char *file, struct hit **hits,
		       size_t *alloc)
{
	size_t nhits = file_hits(r, file, hits, alloc), i;

	for (i = 0; i < nhits; i++)
		add_categories(r, (*hits)[i].tvi);
	maintainers_in_file(r, file);
}

/* Perl's deduplicate_email, with mailmap_email on both ends. */
static char *pr_maint_mailmap_email(const struct pr_maint *m,
				    pcre2_match_data *md, const char *line)
{
	char *name, *addr, *email, *out;
	const char *rn, *ra, *v;

	pr_maint_parse_email(m, md, line, &name, &addr);
	email = pr_maint_format_email(m, md, name, addr);
	rn = name;
	ra = addr;
	if (map_get(m->names, m->nnames, email) ||
	    map_get(m->addrs, m->naddrs, email)) {
		if ((v = map_get(m->names, m->nnames, email)))
			rn = v;
		if ((v = map_get(m->addrs, m->naddrs, email)))
			ra = v;
	} else {
		if ((v = map_get(m->names, m->nnames, addr)))
			rn = v;
		if ((v = map_get(m->addrs, m->naddrs, addr)))
			ra = v;
	}
	out = pr_maint_format_email(m, md, rn, ra);
	free(name);
	free(addr);
	free(email);
	return out;
}

static char *deduplicate_email(struct route *r, const char *in)
{
	char *name, *addr, *email, *lname, *laddr, *out;
	size_t i;
	bool matched = false;

	pr_maint_parse_email(r->m, r->md, in, &name, &addr);
	email = pr_maint_format_email(r->m, r->md, name, addr);
	free(name);
	free(addr);
	out = pr_maint_mailmap_email(r->m, r->md, email);
	free(email);
	pr_maint_parse_email(r->m, r->md, out, &name, &addr);
	free(out);
	lname = lower(name);
	laddr = lower(addr);
	for (i = 0; *name && i < r->dd_name.nr; i++) {
		if (!strcmp(r->dd_name.v[i], lname)) {
			free(name);
			free(addr);
			name = pr_strdup(r->dd_vname.v[i]);
			addr = pr_strdup(r->dd_vaddr.v[i]);
			matched = true;
			break;
		}
	}
	for (i = 0; !matched && i < r->dd_addr.nr; i++) {
		if (!strcmp(r->dd_addr.v[i], laddr)) {
			free(name);
			free(addr);
			name = pr_strdup(r->dd_vname.v[i]);
			addr = pr_strdup(r->dd_vaddr.v[i]);
			matched = true;
		}
	}
	if (!matched) {
		/* both keys are set together, so index i pairs them */
		strv_push(&r->dd_name, lname);
		strv_push(&r->dd_addr, laddr);
		strv_push(&r->dd_vname, pr_strdup(name));
		strv_push(&r->dd_vaddr, pr_strdup(addr));
	} else {
		free(lname);
		free(laddr);
	}
	email = pr_maint_format_email(r->m, r->md, name, addr);
	out = pr_maint_mailmap_email(r->m, r->md, email);
	free(email);
	free(name);
	free(addr);
	return out;
}

static void output(struct pr_buf *out, const struct pr_maint_opts *o, char **v,
		   size_t n)
{
	bool multi = !o->separator || !strcmp(o->separator, ", ");
	size_t i;

	for (i = 0; i < n; i++) {
		if (multi) {
			pr_buf_addf(out, "%s\n", v[i]);
		} else {
			if (i)
				pr_buf_adds(out, o->separator);
			pr_buf_adds(out, v[i]);
		}
	}
	if (!multi)
		pr_buf_addch(out, '\n');
}

/* uniq: first occurrences, in order; the strings stay owned by s */
static void uniq(struct strv *s, struct strv *u)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strv_has(u, s->v[i]))
			strv_push(u, s->v[i]);
}

static void entries_free(struct entry *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(e[i].email);
		free(e[i].role);
	}
	free(e);
}

/*
 * Everything get_maintainer.pl does before merge_email: r->to and r->lists
 * hold the addresses in output order (before merging), r->subsystem and
 * r->status the sections and their S: values.
 */
static void route_compute(struct route *r, const struct pr_maint *m,
			  const struct pr_maint_opts *o,
			  const struct pr_buf *patches, size_t n)
{
	struct hit *hits = NULL;
	size_t alloc_hits = 0, i;
	pcre2_code *chief = NULL;
	const char *chief_src =
		"Linus Torvalds <torvalds@linux-foundation.org>";

	memset(r, 0, sizeof(*r));
	r->m = m;
	r->o = o;
	r->md = pcre2_match_data_create(OVEC, NULL);
	for (i = 0; i < n; i++)
		read_patch(r, &patches[i]);
	for (i = 0; i < r->files.nr; i++)
		match_file(r, r->files.v[i], &hits, &alloc_hits);
	free(hits);
	if (o->keywords) {
		size_t j = 0;

		if (r->nktvi)
			qsort(r->ktvi, r->nktvi, sizeof(*r->ktvi), cmp_tvi_str);
		for (i = 0; i < r->nktvi; i++) {
			if (i && r->ktvi[i] == r->ktvi[i - 1])
				continue;
			r->ktvi[j++] = r->ktvi[i];
		}
		for (i = 0; i < j; i++)
			add_categories(r, r->ktvi[i]);
	}
	for (i = 0; i < r->nto; i++) {
		char *e = deduplicate_email(r, r->to[i].email);

		free(r->to[i].email);
		r->to[i].email = e;
	}
	for (i = 0; i < r->nlists; i++) {
		char *e = deduplicate_email(r, r->lists[i].email);

		free(r->lists[i].email);
		r->lists[i].email = e;
	}
	/* the chief penguin is dropped unless asked for (a regex match) */
	chief = pr_maint_rx_compile(chief_src, PCRE2_ZERO_TERMINATED, 0, false);
	{
		size_t j = 0;

		for (i = 0; i < r->nto; i++) {
			if (pr_maint_rx_match(chief, r->to[i].email,
					      strlen(r->to[i].email), r->md)) {
				free(r->to[i].email);
				free(r->to[i].role);
				continue;
			}
			r->to[j++] = r->to[i];
		}
		r->nto = j;
	}
	pcre2_code_free(chief);
	for (i = 0; i < r->file_emails.nr; i++) {
		char *e = pr_maint_mailmap_email(r->m, r->md,
						 r->file_emails.v[i]);
		char *name, *addr, *tmp;

		pr_maint_parse_email(m, r->md, e, &name, &addr);
		tmp = pr_maint_format_email(m, r->md, name, addr);
		push_email_address(r, tmp, "", PR_MAINT_FILE, SIZE_MAX);
		add_file_role(r, tmp);
		free(tmp);
		free(name);
		free(addr);
		free(e);
	}
}

static void route_release(struct route *r)
{
	pcre2_match_data_free(r->md);
	free(r->ktvi);
	free(r->cand);
	strv_release(&r->files);
	strv_release(&r->hash_name);
	strv_release(&r->hash_addr);
	strv_release(&r->hash_list);
	strv_release(&r->dd_name);
	strv_release(&r->dd_addr);
	strv_release(&r->dd_vname);
	strv_release(&r->dd_vaddr);
	strv_release(&r->subsystem);
	strv_release(&r->status);
	strv_release(&r->file_emails);
	entries_free(r->to, r->nto);
	entries_free(r->lists, r->nlists);
}

/*
 * merge_email: the entries of r->to then r->lists, an address string
 * seen before left out; calls fn for each one kept.
 */
static void merge_email(struct route *r,
			void (*fn)(const struct entry *e, void *payload),
			void *payload)
{
	struct strv saw = { 0 };
	struct entry *all[2] = { r->to, r->lists };
	size_t cnt[2] = { r->nto, r->nlists };
	size_t i, k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < cnt[k]; i++) {
			if (strv_has(&saw, all[k][i].email))
				continue;
			strv_push(&saw, pr_strdup(all[k][i].email));
			fn(&all[k][i], payload);
		}
	}
	strv_release(&saw);
}

struct lines_ctx {
	struct strv *lines;
	bool rolestats;
};

static void add_line(const struct entry *e, void *payload)
{
	struct lines_ctx *c = payload;
	struct pr_buf b = PR_BUF_INIT;

	if (c->rolestats)
		pr_buf_addf(&b, "%s (%s)", e->email, e->role);
	else
		pr_buf_adds(&b, e->email);
	strv_push(c->lines, pr_buf_detach(&b, NULL));
}

int pr_maint_route(struct pr_buf *out, const struct pr_maint *m,
		   const struct pr_maint_opts *o, const struct pr_buf *patches,
		   size_t n)
{
	struct route r;
	struct strv lines = { 0 }, u = { 0 };
	struct lines_ctx lc = { &lines, o->rolestats };

	route_compute(&r, m, o, patches, n);
	merge_email(&r, add_line, &lc);
	if (lines.nr)
		output(out, o, lines.v, lines.nr);
	if (o->status) {
		uniq(&r.status, &u);
		output(out, o, u.v, u.nr);
		free(u.v);
		memset(&u, 0, sizeof(u));
	}
	if (o->subsystem) {
		uniq(&r.subsystem, &u);
		output(out, o, u.v, u.nr);
		free(u.v);
		memset(&u, 0, sizeof(u));
	}
	strv_release(&lines);
	route_release(&r);
	return 0;
}

/* "Name <addr>" (the name maybe quoted as format_email quotes it) split. */
static void split_line(struct pr_maint_addr *a, const char *line)
{
	const char *lt = strrchr(line, '<');
	struct pr_buf name = PR_BUF_INIT;
	const char *s, *end;

	if (!lt || !strchr(lt, '>')) {
		a->name = pr_strdup("");
		a->email = pr_strdup(line);
		return;
	}
	a->email = pr_memdup(lt + 1, (size_t)(strchr(lt, '>') - lt - 1));
	end = lt;
	while (end > line && end[-1] == ' ')
		end--;
	s = line;
	if (end - s >= 2 && s[0] == '"' && end[-1] == '"') {
		/* undo clean_name's quoting: drop the quotes and \" escapes */
		for (s++, end--; s < end; s++) {
			if (s[0] == '\\' && s + 1 < end && s[1] == '"')
				s++;
			pr_buf_addch(&name, *s);
		}
	} else {
		pr_buf_add(&name, s, (size_t)(end - s));
	}
	a->name = pr_buf_detach(&name, NULL);
}

struct resolve_ctx {
	const struct pr_maint *m;
	struct pr_maint_result *out;
};

static void add_addr(const struct entry *e, void *payload)
{
	struct resolve_ctx *c = payload;
	struct pr_maint_result *res = c->out;
	struct pr_maint_addr *a;

	PR_ALLOC_GROW(res->items, res->nr + 1, res->alloc);
	a = &res->items[res->nr++];
	memset(a, 0, sizeof(*a));
	split_line(a, e->email);
	a->line = pr_strdup(e->email);
	a->role = pr_strdup(e->role);
	a->kind = e->kind;
	a->section = pr_strdup(
		e->section == SIZE_MAX ? "" : c->m->tv[e->section].value);
}

int pr_maint_resolve(struct pr_maint_result *out, const struct pr_maint *m,
		     const struct pr_maint_opts *o,
		     const struct pr_buf *patches, size_t n)
{
	struct route r;
	struct resolve_ctx c = { m, out };
	struct strv u = { 0 };
	size_t i;

	route_compute(&r, m, o, patches, n);
	merge_email(&r, add_addr, &c);
	uniq(&r.subsystem, &u);
	for (i = 0; i < u.nr; i++) {
		PR_ALLOC_GROW(out->sections, out->nsections + 1,
			      out->alloc_sections);
		out->sections[out->nsections++] = pr_strdup(u.v[i]);
	}
	free(u.v);
	route_release(&r);
	return 0;
}

void pr_maint_result_release(struct pr_maint_result *res)
{
	size_t i;

	for (i = 0; i < res->nr; i++) {
		free(res->items[i].name);
		free(res->items[i].email);
		free(res->items[i].line);
		free(res->items[i].role);
		free(res->items[i].section);
	}
	free(res->items);
	for (i = 0; i < res->nsections; i++)
		free(res->sections[i]);
	free(res->sections);
	memset(res, 0, sizeof(*res));
}

int pr_maint_file_sections(struct pr_maint_result *out,
			   const struct pr_maint *m, const char *const *files,
			   size_t n)
{
	struct route r;
	struct hit *hits = NULL;
	size_t alloc_hits = 0, i, k, nhits;
	bool *seen = pr_calloc(m->ntv ? m->ntv : 1, sizeof(*seen));

	memset(&r, 0, sizeof(r));
	r.m = m;
	r.md = pcre2_match_data_create(OVEC, NULL);
	for (i = 0; i < n; i++) {
		nhits = file_hits(&r, files[i], &hits, &alloc_hits);
		for (k = 0; k < nhits; k++) {
			size_t start = m->tv[hits[k].tvi].start;

			if (seen[start])
				continue;
			seen[start] = true;
			PR_ALLOC_GROW(out->sections, out->nsections + 1,
				      out->alloc_sections);
			out->sections[out->nsections++] =
				pr_strdup(m->tv[start].value);
		}
	}
	free(hits);
	free(seen);
	pcre2_match_data_free(r.md);
	free(r.cand);
	return 0;
}
