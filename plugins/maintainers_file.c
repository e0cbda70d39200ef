#define PCRE2_CODE_UNIT_WIDTH 8
#include "base/pr.h"

#include <errno.h>
#include <pcre2.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "maintainers.h"
#include "maintainers_file.h"

/* MAINTAINERS and .mailmap read into the tables of maintainers_file.h. */

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
	[RX_SIGNATURE] =
		"^[ \\t]*(Signed-off-by:|Reviewed-by:|Acked-by:).*\\@.*$",
	[RX_AUTHOR] = "^GitAuthor: (.*)",
	[RX_CHIEFS] = "(?i)(Linus Torvalds)",
	[RX_SIGNER] = "\\s*.*:\\s*(.+)\\s*",
};

pcre2_code *pr_maint_rx_compile(const char *src, size_t len, uint32_t flags,
				bool jit)
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

bool pr_maint_rx_match(pcre2_code *re, const char *s, size_t len,
		       pcre2_match_data *md)
{
	if (!re)
		return false;
	return pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, md, NULL) >= 0;
}

/* Group g of the last match as a new string ("" when unset). */
char *pr_maint_rx_group(pcre2_match_data *md, const char *s, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

	if (ov[2 * g] == PCRE2_UNSET)
		return pr_strdup("");
	return pr_memdup(s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

bool pr_maint_perl_space(int c)
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
	if (!pr_maint_rx_match(pr_maint_rx(m, RX_QUOTE), name, n, md))
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

void pr_maint_parse_email(const struct pr_maint *m, pcre2_match_data *md,
			  const char *s, char **name, char **addr)
{
	size_t n = strlen(s);

	if (pr_maint_rx_match(pr_maint_rx(m, RX_PARSE1), s, n, md)) {
		*name = pr_maint_rx_group(md, s, 1);
		*addr = pr_maint_rx_group(md, s, 2);
	} else if (pr_maint_rx_match(pr_maint_rx(m, RX_PARSE2), s, n, md)) {
		*name = pr_strdup("");
		*addr = pr_maint_rx_group(md, s, 1);
	} else if (pr_maint_rx_match(pr_maint_rx(m, RX_PARSE3), s, n, md)) {
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
char *pr_maint_format_email(const struct pr_maint *m, pcre2_match_data *md,
			    const char *name, const char *addr)
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

static const int rx_failed_marker;
#define RX_FAILED ((pcre2_code *)(uintptr_t)&rx_failed_marker)

/*
 * *slot, or src compiled into it on first use (a race compiles twice and
 * keeps the first); NULL when src does not compile.
 */
static pcre2_code *compile_once(pcre2_code **slot, const char *src, size_t len,
				uint32_t flags, bool jit)
{
	pcre2_code *re = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *expect;

	if (re)
		return re == RX_FAILED ? NULL : re;
	re = pr_maint_rx_compile(src, len, flags, jit);
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

pcre2_code *pr_maint_rx(const struct pr_maint *m, int k)
{
	/* the fixed regexes are compiled on first use: a one-shot route
	 * needs few of them */
	return compile_once((pcre2_code **)&m->rx[k], rx_src[k],
			    PCRE2_ZERO_TERMINATED, 0, m->jit);
}

static void free_rx(pcre2_code *re)
{
	if (re != RX_FAILED)
		pcre2_code_free(re);
}

/* The tables being parsed, before they are handed to a struct pr_maint. */
struct mapbuild {
	struct mapent *v;
	size_t nr, alloc;
};

struct build {
	struct pr_maint *m;
	pcre2_match_data *md;
	struct tv *tv;
	size_t ntv, alloc_tv;
	struct pr_buf strings;
	struct mapbuild names, addrs;
};

static uint32_t add_string(struct build *b, const char *s)
{
	uint32_t off = (uint32_t)b->strings.len;

	pr_buf_add(&b->strings, s, strlen(s) + 1);
	return off;
}

static void map_set(struct build *b, struct mapbuild *map, const char *key,
		    const char *val)
{
	PR_ALLOC_GROW(map->v, map->nr + 1, map->alloc);
	map->v[map->nr].key = add_string(b, key);
	map->v[map->nr].val = add_string(b, val);
	map->nr++;
}

/* Sorted by key by map_finish: a binary search. */
static const char *map_get(const struct pr_maint *m, const struct mapent *v,
			   size_t nr, const char *key)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->strings + v[mid].key, key);

		if (!c)
			return m->strings + v[mid].val;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct mapsort {
	const char *key;
	struct mapent e;
	size_t pos;
};

static int cmp_mapsort(const void *a, const void *b)
{
	const struct mapsort *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sort a map by key; of entries with one key, the last one read wins. */
static void map_finish(struct build *b, struct mapbuild *map)
{
	struct mapsort *t = pr_calloc(map->nr ? map->nr : 1, sizeof(*t));
	size_t i, j = 0;

	for (i = 0; i < map->nr; i++) {
		t[i].key = b->strings.ptr + map->v[i].key;
		t[i].e = map->v[i];
		t[i].pos = i;
	}
	qsort(t, map->nr, sizeof(*t), cmp_mapsort);
	for (i = 0; i < map->nr; i++)
		if (i + 1 == map->nr || strcmp(t[i].key, t[i + 1].key))
			map->v[j++] = t[i].e;
	map->nr = j;
	free(t);
}

static void mailmap_line(struct build *bd, const char *s)
{
	struct pr_maint *m = bd->m;
	pcre2_match_data *md = bd->md;
	size_t n = strlen(s);
	char *g[5] = { NULL };
	char *rn = NULL, *ra = NULL, *wn = NULL, *wa = NULL, *t = NULL;
	int i;

	if (pr_maint_rx_match(pr_maint_rx(m, RX_MM1), s, n, md)) {
		g[1] = pr_maint_rx_group(md, s, 1);
		g[2] = pr_maint_rx_group(md, s, 2);
		trim(g[1]);
		{
			struct pr_buf b = PR_BUF_INIT;

			pr_buf_addf(&b, "%s <%s>", g[1], g[2]);
			pr_maint_parse_email(m, md, b.ptr, &rn, &ra);
			pr_buf_release(&b);
		}
		map_set(bd, &bd->names, ra, rn);
	} else if (pr_maint_rx_match(pr_maint_rx(m, RX_MM2), s, n, md)) {
		g[1] = pr_maint_rx_group(md, s, 1);
		g[2] = pr_maint_rx_group(md, s, 2);
		map_set(bd, &bd->addrs, g[2], g[1]);
	} else if (pr_maint_rx_match(pr_maint_rx(m, RX_MM3), s, n, md)) {
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
		map_set(bd, &bd->names, g[3], rn);
		map_set(bd, &bd->addrs, g[3], ra);
	} else if (pr_maint_rx_match(pr_maint_rx(m, RX_MM4), s, n, md)) {
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
		map_set(bd, &bd->names, t, rn);
		map_set(bd, &bd->addrs, t, ra);
		free(t);
	}
	for (i = 0; i < 5; i++)
		free(g[i]);
	free(rn);
	free(ra);
	free(wn);
	free(wa);
}

/* .mailmap's text (changed in place) into the build's maps. */
static void parse_mailmap(struct build *b, char *text)
{
	char *p, *nl;

	for (p = text; *p; p = nl ? nl + 1 : p + strlen(p)) {
		char *hash;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		trim(p);
		if (*p)
			mailmap_line(b, p);
		if (!nl)
			break;
	}
}

char *pr_maint_mailmap_email(const struct pr_maint *m, pcre2_match_data *md,
			     const char *line)
{
	char *name, *addr, *email, *out;
	const char *rn, *ra, *v;

	pr_maint_parse_email(m, md, line, &name, &addr);
	email = pr_maint_format_email(m, md, name, addr);
	rn = name;
	ra = addr;
	if (map_get(m, m->names, m->nnames, email) ||
	    map_get(m, m->addrs, m->naddrs, email)) {
		if ((v = map_get(m, m->names, m->nnames, email)))
			rn = v;
		if ((v = map_get(m, m->addrs, m->naddrs, email)))
			ra = v;
	} else {
		if ((v = map_get(m, m->names, m->nnames, addr)))
			rn = v;
		if ((v = map_get(m, m->addrs, m->naddrs, addr)))
			ra = v;
	}
	out = pr_maint_format_email(m, md, rn, ra);
	free(name);
	free(addr);
	free(email);
	return out;
}

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

static void file_entry(struct tv *t, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t n = 0, plen, nslash = 0;
	unsigned seen = 0, c, dir;

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
	t->flags = 0;
	if (!(seen & FE_STOP))
		t->flags |= TV_LITERAL;
	if (n && s[n - 1] == '/')
		t->flags |= TV_SLASH_END;
	/* a '/' is added on first use when the value names a directory */
	dir = (t->flags & TV_SLASH_END)	  ? DIR_YES
	      : (seen & FE_CHANGED) || !n ? DIR_NO
					  : DIR_UNKNOWN;
	t->flags |= (uint8_t)(dir << TV_DIR_SHIFT);
	t->prefix_len = (uint32_t)plen;
}

/*
 * Whether F:/X: value i is a directory pattern (written with a trailing
 * '/', or naming a directory of the tree, when get_maintainer.pl adds
 * one); the stat runs once, on first use, and is kept (a race only runs
 * it twice, with the same answer).
 */
bool pr_maint_tv_isdir(const struct pr_maint *m, size_t i)
{
	unsigned d0 = (m->tv[i].flags >> TV_DIR_SHIFT) & 3;
	unsigned char *slot = &m->rt[i].dir;
	unsigned char d = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	struct pr_buf path = PR_BUF_INIT;
	struct stat st;

	if (d0 != DIR_UNKNOWN)
		return d0 == DIR_YES;
	if (d)
		return d == 1 + DIR_YES;
	pr_buf_addf(&path, "%s/%s", m->tree, pr_maint_tv_value(m, i));
	d = 1 +
	    (!stat(path.ptr, &st) && S_ISDIR(st.st_mode) ? DIR_YES : DIR_NO);
	pr_buf_release(&path);
	__atomic_store_n(slot, d, __ATOMIC_RELEASE);
	return d == 1 + DIR_YES;
}

/* Slashes of the value as get_maintainer.pl matches it. */
size_t pr_maint_tv_nslash(const struct pr_maint *m, size_t i)
{
	return (size_t)m->tv[i].nslash +
	       (!(m->tv[i].flags & TV_SLASH_END) && pr_maint_tv_isdir(m, i));
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

/* The regex of value i (K: patch form when `patch`), compiled on first use. */
pcre2_code *pr_maint_tv_re(const struct pr_maint *m, size_t i, bool patch)
{
	const struct tv *t = &m->tv[i];
	pcre2_code **slot = patch ? &m->rt[i].re_patch : &m->rt[i].re;
	pcre2_code *re = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	const char *v = pr_maint_tv_value(m, i);
	struct pr_buf b = PR_BUF_INIT;
	uint32_t flags = 0;
	bool jit = false;

	if (re)
		return re == RX_FAILED ? NULL : re;
	switch (t->type) {
	case 'F':
	case 'X':
		convert_file_pattern(&b, v);
		if (!(t->flags & TV_SLASH_END) && pr_maint_tv_isdir(m, i))
			pr_buf_addch(&b, '/');
		break;
	case 'N':
	case 'K':
		if (patch)
			pr_buf_addf(&b, "^[+-].*%s", v);
		else
			pr_buf_adds(&b, v);
		flags = PCRE2_EXTENDED;
		jit = m->jit;
		break;
	default:
		/* no regex: an empty source would match everything */
		pr_buf_adds(&b, "(*FAIL)");
		break;
	}
	re = compile_once(slot, b.ptr, b.len, flags, jit);
	pr_buf_release(&b);
	return re;
}

static bool blank_or_comment(const char *s)
{
	while (pr_maint_perl_space((unsigned char)*s))
		s++;
	return !*s || *s == '#';
}

/* The bucket of component comp[0..len), or NULL. */
const struct fx_bucket *pr_maint_fx_find(const struct pr_maint *m,
					 const char *comp, size_t len)
{
	size_t i;

	for (i = 0; i < m->nfx; i++)
		if (m->fx[i].len == len &&
		    !memcmp(m->text + m->fx[i].comp, comp, len))
			return &m->fx[i];
	return NULL;
}

/*
 * After parsing: sections and the F:/X:, N: and K: indexes, each list in
 * MAINTAINERS order, into m's tables.
 */
static void build_index(struct pr_maint *m, struct tv *tv, size_t ntv)
{
	struct fx_bucket *fx = NULL;
	uint32_t *bucket = pr_calloc(ntv ? ntv : 1, sizeof(*bucket));
	uint32_t *fx_tvi, *fx_any = NULL, *nk = NULL, *kw = NULL, *fill;
	size_t nfx = 0, afx = 0, nany = 0, aany = 0, nn = 0, an = 0;
	size_t nkw = 0, ak = 0, nfxt = 0, i, start = 0, last = SIZE_MAX;

	for (i = 0; i < ntv; i++) {
		struct tv *t = &tv[i];
		const char *v = m->text + t->value, *slash;
		size_t len;

		bucket[i] = UINT32_MAX;
		/* find_starting_index, in one pass: the last untyped line */
		if (!t->type) {
			start = i;
			continue;
		}
		t->start = (uint32_t)start;
		if (i == 0 || !tv[i - 1].type)
			m->nsections++;
		if (t->type == 'N') {
			PR_ALLOC_GROW(nk, nn + 1, an);
			nk[nn++] = (uint32_t)i;
		} else if (t->type == 'K') {
			PR_ALLOC_GROW(kw, nkw + 1, ak);
			kw[nkw++] = (uint32_t)i;
		}
		if (t->type != 'F' && t->type != 'X')
			continue;
		slash = memchr(v, '/', t->prefix_len);
		if (!slash) {
			PR_ALLOC_GROW(fx_any, nany + 1, aany);
			fx_any[nany++] = (uint32_t)i;
			continue;
		}
		len = (size_t)(slash - v);
		/* neighbours mostly share a component: try the last first */
		if (last == SIZE_MAX || fx[last].len != len ||
		    memcmp(m->text + fx[last].comp, v, len)) {
			for (last = 0; last < nfx; last++)
				if (fx[last].len == len &&
				    !memcmp(m->text + fx[last].comp, v, len))
					break;
		}
		if (last == nfx) {
			PR_ALLOC_GROW(fx, nfx + 1, afx);
			memset(&fx[nfx], 0, sizeof(*fx));
			fx[nfx].comp = t->value;
			fx[nfx].len = (uint32_t)len;
			nfx++;
		}
		fx[last].nr++;
		bucket[i] = (uint32_t)last;
		nfxt++;
	}
	/* each bucket's entries, one array, in MAINTAINERS order */
	fx_tvi = pr_calloc(nfxt ? nfxt : 1, sizeof(*fx_tvi));
	fill = pr_calloc(nfx ? nfx : 1, sizeof(*fill));
	for (i = 0, start = 0; i < nfx; i++) {
		fx[i].first = (uint32_t)start;
		fill[i] = (uint32_t)start;
		start += fx[i].nr;
	}
	for (i = 0; i < ntv; i++)
		if (bucket[i] != UINT32_MAX)
			fx_tvi[fill[bucket[i]]++] = (uint32_t)i;
	m->fx = fx;
	m->nfx = nfx;
	m->fx_tvi = fx_tvi;
	m->nfx_tvi = nfxt;
	m->fx_any = fx_any;
	m->nfx_any = nany;
	m->nk = nk;
	m->nn = nn;
	m->kw = kw;
	m->nkw = nkw;
	free(fill);
	free(bucket);
}

void pr_maint_init_runtime(struct pr_maint *m, const char *tree)
{
	m->tree = pr_strdup(tree ? tree : ".");
	m->rt = pr_calloc(m->ntv ? m->ntv : 1, sizeof(*m->rt));
}

/* MAINTAINERS' text (NULs put at line ends) into m's tv table. */
static void parse_maintainers(struct build *b)
{
	struct pr_maint *m = b->m;
	char *text = (char *)m->text, *end = text + m->text_len - 1;
	char *p, *nl;

	/*
	 * One entry a line at most; the kernel's lines average over 30
	 * bytes, so len / 24 entries rarely grow, with no pass counting
	 * lines.  Pages never written are never touched.
	 */
	b->alloc_tv = m->text_len / 24 + 16;
	b->tv = pr_reallocarray(NULL, b->alloc_tv, sizeof(*b->tv));
	for (p = text; p < end; p = nl + 1) {
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
			t.value = (uint32_t)(v - text);
			if (t.type == 'F' || t.type == 'X')
				file_entry(&t, v);
		} else if (!blank_or_comment(p)) {
			t.value = (uint32_t)(p - text);
		} else {
			continue;
		}
		PR_ALLOC_GROW(b->tv, b->ntv + 1, b->alloc_tv);
		b->tv[b->ntv++] = t;
	}
}

int pr_maint_parse(struct pr_maint **out, struct pr_maint_src *src,
		   const char *path, const char *tree)
{
	struct pr_maint *m = pr_calloc(1, sizeof(*m));
	struct build b = { 0 };
	struct pr_buf text = PR_BUF_INIT, mm = PR_BUF_INIT;
	struct pr_buf mpath = PR_BUF_INIT;
	bool stable = true, mstable = true;
	int err;

	*out = NULL;
	memset(src, 0, sizeof(*src));
	if (!tree)
		tree = ".";
	b.m = m;
	b.md = pcre2_match_data_create(OVEC, NULL);
	pr_buf_init(&b.strings, 0);
	err = pr_maint_id_read(&text, &src->maint, path, &stable);
	if (err) {
		if (err > 0)
			err = pr_error(PR_ENOENT, "cannot open '%s': %s", path,
				       strerror(ENOENT));
		err = pr_error_wrap(err, "maintainers file '%s'", path);
		goto done;
	}
	m->text = pr_buf_detach(&text, &m->text_len);
	m->text_len++; /* the NUL: the last line ends there */
	parse_maintainers(&b);
	m->tv = b.tv;
	m->ntv = b.ntv;
	b.tv = NULL;
	build_index(m, (struct tv *)m->tv, m->ntv);
	pr_buf_addf(&mpath, "%s/.mailmap", tree);
	err = pr_maint_id_read(&mm, &src->mailmap, mpath.ptr, &mstable);
	if (err < 0) {
		/* as get_maintainer.pl: an unreadable .mailmap maps nothing */
		pr_error_clear();
		mstable = false;
	} else if (!err) {
		parse_mailmap(&b, mm.ptr);
	}
	map_finish(&b, &b.names);
	map_finish(&b, &b.addrs);
	m->names = b.names.v;
	m->nnames = b.names.nr;
	m->addrs = b.addrs.v;
	m->naddrs = b.addrs.nr;
	b.names.v = b.addrs.v = NULL;
	m->strings = pr_buf_detach(&b.strings, &m->strings_len);
	m->strings_len++;
	src->stable = stable && mstable;
	pr_maint_init_runtime(m, tree);
	*out = m;
	m = NULL;
	err = 0;
done:
	pcre2_match_data_free(b.md);
	free(b.tv);
	free(b.names.v);
	free(b.addrs.v);
	pr_buf_release(&b.strings);
	pr_buf_release(&text);
	pr_buf_release(&mm);
	pr_buf_release(&mpath);
	pr_maint_free(m);
	return err;
}

int pr_maint_load(struct pr_maint **out, const char *path, const char *tree)
{
	struct pr_maint_src src;

	return pr_maint_parse(out, &src, path, tree);
}

int pr_maint_open(struct pr_maint **out, const char *path, const char *tree,
		  const char *cache_dir)
{
	struct pr_maint_src src;
	int err;

	if (cache_dir && !pr_maint_index_open(out, path, tree, cache_dir))
		return 0;
	if ((err = pr_maint_parse(out, &src, path, tree)))
		return err;
	if (cache_dir && src.stable)
		pr_maint_index_save(*out, path, tree, cache_dir, &src);
	return 0;
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
	for (i = 0; m->rt && i < m->ntv; i++) {
		if (m->rt[i].re)
			free_rx(m->rt[i].re);
		if (m->rt[i].re_patch)
			free_rx(m->rt[i].re_patch);
	}
	for (i = 0; i < PR_ARRAY_SIZE(m->rx); i++)
		if (m->rx[i])
			free_rx(m->rx[i]);
	if (m->map) {
		munmap(m->map, m->map_len);
	} else if (m->image) {
		free(m->image);
	} else {
		/* the parse's own tables */
		free((void *)m->text);
		free((void *)m->tv);
		free((void *)m->fx);
		free((void *)m->fx_tvi);
		free((void *)m->fx_any);
		free((void *)m->nk);
		free((void *)m->kw);
		free((void *)m->names);
		free((void *)m->addrs);
		free((void *)m->strings);
	}
	free(m->rt);
	free(m->tree);
	free(m);
}

size_t pr_maint_nsections(const struct pr_maint *m)
{
	return m->nsections;
}
