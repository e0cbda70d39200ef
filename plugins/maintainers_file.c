#define PCRE2_CODE_UNIT_WIDTH 8
#include "base/pr.h"

#include <pcre2.h>
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

void pr_maint_parse_email(const struct pr_maint *m, pcre2_match_data *md,
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

char *pr_maint_mailmap_email(const struct pr_maint *m, pcre2_match_data *md,
			     const char *line)
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
bool pr_maint_tv_isdir(const struct pr_maint *m, struct tv *t)
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
size_t pr_maint_tv_nslash(const struct pr_maint *m, struct tv *t)
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
pcre2_code *pr_maint_tv_re(const struct pr_maint *m, struct tv *t, bool patch)
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

/* The bucket of component comp[0..len), or NULL. */
struct fx_bucket *pr_maint_fx_find(const struct pr_maint *m, const char *comp,
				   size_t len)
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
