#define PCRE2_CODE_UNIT_WIDTH 8
#include "base/pr.h"

#include <pcre2.h>
#include <sys/stat.h>

#include "maintainers.h"
#include "maintainers_file.h"

/*
 * A port of the parts of scripts/get_maintainer.pl (6.1) that run for
 * `--no-git --no-git-fallback`.  Where Perl applies a regex, this applies
 * the same regex through PCRE2 so that corner cases agree; the names of the
 * helpers follow the Perl subs they mimic.
 *
 * This file is the matching: a patch's files and keywords to sections,
 * sections to addresses, in get_maintainer.pl's order.  Reading
 * MAINTAINERS and .mailmap is maintainers_file.c's.
 */

static size_t count_slashes(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

void pr_maint_opts_init(struct pr_maint_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->maintainers = true;
	o->reviewers = true;
	o->lists = true;
	o->rolestats = true;
	o->keywords = true;
	o->fixes = true;
}

bool pr_maint_git_present(const char *tree)
{
	struct pr_buf path = PR_BUF_INIT;
	struct stat st;
	bool yes;

	/* vcs_exists: -e ".git" in the script's cwd, the tree */
	pr_buf_addf(&path, "%s/.git", tree ? tree : ".");
	yes = !stat(path.ptr, &st);
	pr_buf_release(&path);
	return yes;
}

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
	uint32_t *cand; /* match_file's candidate entries */
	size_t ncand, alloc_cand;
	struct entry *to, *lists;
	size_t nto, alloc_to, nlists, alloc_lists;
	struct strv hash_name, hash_addr, hash_list;
	struct strv dd_name, dd_addr; /* keys; values in dd_val */
	struct strv dd_vname, dd_vaddr;
	struct strv subsystem, status;
	struct strv file_emails;
	struct strv fixes; /* the Fixes: commits, each once, in order */
	struct strv ignore; /* .get_maintainer.ignore, read when needed */
	bool ignore_read;
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
		if (pr_maint_rx_match(pr_maint_tv_re(m, m->kw[i], in_patch),
				      line, len, r->md)) {
			PR_ALLOC_GROW(r->ktvi, r->nktvi + 1, r->alloc_ktvi);
			r->ktvi[r->nktvi++] = m->kw[i];
		}
	}
}

/* line p[0..len) starts with lit */
static bool starts(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && !memcmp(p, lit, n);
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

		/*
		 * each line as Perl reads it: with its newline; a regex is
		 * tried only on a line with its literal start
		 */
		if ((starts(p, len, " mode change ") &&
		     pr_maint_rx_match(pr_maint_rx(m, RX_MODE), p, len, md)) ||
		    (starts(p, len, "rename ") &&
		     pr_maint_rx_match(pr_maint_rx(m, RX_RENAME), p, len,
				       md))) {
			strv_push(&r->files, pr_maint_rx_group(md, p, 1));
		} else if (starts(p, len, "diff --git a/") &&
			   pr_maint_rx_match(pr_maint_rx(m, RX_DIFFGIT), p, len,
					     md)) {
			strv_push(&r->files, pr_maint_rx_group(md, p, 1));
			strv_push(&r->files, pr_maint_rx_group(md, p, 2));
		} else if (starts(p, len, "Fixes:") &&
			   pr_maint_rx_match(pr_maint_rx(m, RX_FIXES), p, len,
					     md)) {
			char *rev = pr_maint_rx_group(md, p, 1);

			/* @fixes = uniq(@fixes) */
			if (r->o->fixes && !strv_has(&r->fixes, rev))
				strv_push(&r->fixes, rev);
			else
				free(rev);
		} else if ((starts(p, len, "+++") &&
			    pr_maint_rx_match(pr_maint_rx(m, RX_PLUS), p, len,
					      md)) ||
			   (starts(p, len, "---") &&
			    pr_maint_rx_match(pr_maint_rx(m, RX_MINUS), p, len,
					      md))) {
			char *f = pr_maint_rx_group(md, p, 1);
			char *slash = strchr(f, '/');

			/* s@^[^/]*\/@@ */
			if (slash)
				memmove(f, slash + 1, strlen(slash + 1) + 1);
			strv_push(&r->files, f);
			in_patch = true;
		} else if (starts(p, len, "@@ -") &&
			   pr_maint_rx_match(pr_maint_rx(m, RX_HUNK), p, len,
					     md)) {
			/* ranges serve only git blame */
		} else if (r->o->keywords) {
			add_keyword_matches(r, p, len, in_patch);
		}
		p += len;
	}
	sort_uniq_files(&r->files);
}

static bool file_match_pattern(struct route *r, const char *file, size_t flen,
			       size_t fslash, size_t i)
{
	const struct pr_maint *m = r->m;
	const struct tv *t = &m->tv[i];

	if (flen < t->prefix_len ||
	    memcmp(file, pr_maint_tv_value(m, i), t->prefix_len))
		return false;
	if (t->flags & TV_LITERAL) {
		/* "^value" is a prefix test; "^value/" for a directory */
		if (!(t->flags & TV_SLASH_END) && pr_maint_tv_isdir(m, i) &&
		    (flen == t->prefix_len || file[t->prefix_len] != '/'))
			return false;
	} else if (!pr_maint_rx_match(pr_maint_tv_re(m, i, false), file, flen,
				      r->md)) {
		return false;
	}
	return pr_maint_tv_isdir(m, i) || fslash == pr_maint_tv_nslash(m, i);
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
	const char *s = pr_maint_tv_value(m, find_starting_index(m, i));
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
			role = pr_maint_tv_value(m, j);
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
	const char *v = pr_maint_tv_value(r->m, i);
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

	strv_push(&r->subsystem, pr_strdup(pr_maint_tv_value(m, start)));
	for (i = start + 1; i < end; i++) {
		const struct tv *t = &m->tv[i];
		const char *value = pr_maint_tv_value(m, i);

		if (t->type == 'L') {
			add_list(r, i);
		} else if (t->type == 'M' && r->o->maintainers) {
			char *role = maintainer_role(m, i);

			push_email_address(r, value, role, PR_MAINT_MAINTAINER,
					   start);
			free(role);
		} else if (t->type == 'R' && r->o->reviewers) {
			char *sub = subsystem_name(m, i);
			struct pr_buf role = PR_BUF_INIT;

			pr_buf_addf(&role, "reviewer:%s", sub);
			push_email_address(r, value, role.ptr,
					   PR_MAINT_REVIEWER, start);
			pr_buf_release(&role);
			free(sub);
		} else if (t->type == 'S') {
			strv_push(&r->status, pr_strdup(value));
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
	while (off <= n &&
	       pcre2_match(pr_maint_rx(m, RX_FILE_CLEAN), (PCRE2_SPTR)s, n, off,
			   0, md, NULL) >= 0) {
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
	while (pcre2_match(pr_maint_rx(m, RX_FILE_SPLIT), (PCRE2_SPTR)name, len,
			   off, 0, md, NULL) >= 0) {
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
	       pcre2_match(pr_maint_rx(m, RX_FILE_ADDR), (PCRE2_SPTR)text.ptr,
			   text.len, off, 0, r->md, NULL) >= 0) {
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

/*
 * add_role($line, $role): every entry with the line's name or address
 * takes the role, unless its roles already match it (the script's
 * m/$role/; the roles given here hold no regex byte: a substring test).
 */
static void add_role(struct route *r, const char *line, const char *role)
{
	char *name, *addr;
	size_t i;

	pr_maint_parse_email(r->m, r->md, line, &name, &addr);
	for (i = 0; i < r->nto; i++) {
		char *en, *ea;
		struct pr_buf b = PR_BUF_INIT;

		pr_maint_parse_email(r->m, r->md, r->to[i].email, &en, &ea);
		if ((!strcmp(name, en) || !strcmp(addr, ea)) &&
		    !strstr(r->to[i].role, role)) {
			if (*r->to[i].role)
				pr_buf_addf(&b, "%s,%s", r->to[i].role, role);
			else
				pr_buf_adds(&b, role);
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
	const uint32_t *l[3] = { b ? m->fx_tvi + b->first : NULL, m->fx_any,
				 m->nk };
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
			size_t c = r->cand[i];

			if (m->tv[c].type == 'X' &&
			    file_match_pattern(r, file, flen, fslash, c))
				exclude = true;
		}
		for (i = a; i < b && !exclude; i++) {
			size_t c = r->cand[i];
			char type = m->tv[c].type;

			if (type == 'F' &&
			    file_match_pattern(r, file, flen, fslash, c)) {
				long pd = (long)pr_maint_tv_nslash(m, c);

				if (!pr_maint_tv_isdir(m, c))
					pd++;
				/* the converted value starts ".*" */
				if (pr_maint_tv_value(m, c)[0] == '*')
					pd = -1;
				depth = pd;
				hit = true;
			} else if (type == 'N' &&
				   pr_maint_rx_match(pr_maint_tv_re(m, c,
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

/*
 * --fixes: get_maintainer.pl's vcs_add_commit_signers, reading the commit
 * through o->commit instead of `git log`.
 */

/* Perl's \s-stripped lines of text, whitespace-only lines left out. */
static void split_stripped(struct strv *lines, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);

		/* the script strips ^\s* per line: blank lines go too */
		while (p < end && pr_maint_perl_space((unsigned char)*p))
			p++;
		if (p < end)
			strv_push(lines, pr_memdup(p, (size_t)(end - p)));
		p = nl ? nl + 1 : end;
	}
}

/* extract_formatted_signatures' s/\s*.*:\s*(.+)\s*\/$1/ on line. */
static char *signer_of(struct route *r, const char *line)
{
	size_t n = strlen(line);
	struct pr_buf b = PR_BUF_INIT;
	PCRE2_SIZE *ov;

	if (pcre2_match(pr_maint_rx(r->m, RX_SIGNER), (PCRE2_SPTR)line, n, 0, 0,
			r->md, NULL) < 0)
		return pr_strdup(line);
	ov = pcre2_get_ovector_pointer(r->md);
	pr_buf_add(&b, line, ov[0]);
	pr_buf_add(&b, line + ov[2], ov[3] - ov[2]);
	pr_buf_add(&b, line + ov[1], n - ov[1]);
	return pr_buf_detach(&b, NULL);
}

/*
 * get_maintainer.pl's make_rfc822re and rfc822_valid, for the entries of
 * .get_maintainer.ignore: an entry that is no RFC 822 address is not used.
 * Built only when an entry equals an address about to be added.
 */
static bool rfc822_valid(const char *s)
{
	const char *lwsp = "(?:(?:\\r\\n)?[ \\t])";
	const char *specials = "()<>@,;:\\\\\".\\[\\]";
	const char *controls = "\\000-\\037\\177";
	struct pr_buf atom = PR_BUF_INIT, qs = PR_BUF_INIT, dl = PR_BUF_INIT;
	struct pr_buf word = PR_BUF_INIT, domain = PR_BUF_INIT;
	struct pr_buf spec = PR_BUF_INIT, mailbox = PR_BUF_INIT;
	struct pr_buf re = PR_BUF_INIT, str = PR_BUF_INIT;
	pcre2_code *strip = NULL, *valid = NULL;
	pcre2_match_data *md = pcre2_match_data_create(OVEC, NULL);
	bool ok = false;

	pr_buf_addf(&dl, "\\[(?:[^\\[\\]\\r\\\\]|\\\\.)*\\]%s*", lwsp);
	pr_buf_addf(&qs, "\"(?:[^\\\"\\r\\\\]|\\\\.|%s)*\"%s*", lwsp, lwsp);
	pr_buf_addf(&atom, "[^%s %s]+(?:%s+|\\Z|(?=[\\[\"%s]))", specials,
		    controls, lwsp, specials);
	pr_buf_addf(&word, "(?:%s|%s)", atom.ptr, qs.ptr);
	pr_buf_addf(&domain, "(?:%s|%s)(?:\\.%s*(?:%s|%s))*", atom.ptr, dl.ptr,
		    lwsp, atom.ptr, dl.ptr);
	pr_buf_addf(&spec, "%s(?:\\.%s*%s)*\\@%s*%s", word.ptr, lwsp, word.ptr,
		    lwsp, domain.ptr);
	/* $addr_spec | $phrase $route_addr */
	pr_buf_addf(&mailbox,
		    "(?:%s|%s*\\<%s*(?:\\@%s(?:,\\@%s*%s)*:%s*)?%s\\>%s*)",
		    spec.ptr, word.ptr, lwsp, domain.ptr, lwsp, domain.ptr,
		    lwsp, spec.ptr, lwsp);
	/* ^ $lwsp* ($mailbox | $group) $ */
	pr_buf_addf(&re, "^%s*(?:%s|%s*:%s*(?:%s(?:,\\s*%s)*)?;\\s*)$", lwsp,
		    mailbox.ptr, word.ptr, lwsp, mailbox.ptr, mailbox.ptr);
	strip = pr_maint_rx_compile(
		"^((?:[^\"\\\\]|\\\\.)*(?:\"(?:[^\"\\\\]|\\\\.)*\"(?:[^\"\\\\]|"
		"\\\\.)*)*)\\((?:[^()\\\\]|\\\\.)*\\)",
		PCRE2_ZERO_TERMINATED, PCRE2_DOTALL, false);
	valid = pr_maint_rx_compile(re.ptr, re.len, PCRE2_DOTALL, false);
	if (!strip || !valid)
		goto done;
	/* rfc822_strip_comments: each comment becomes a space */
	pr_buf_adds(&str, s);
	while (pcre2_match(strip, (PCRE2_SPTR)str.ptr, str.len, 0, 0, md,
			   NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		struct pr_buf t = PR_BUF_INIT;

		pr_buf_add(&t, str.ptr + ov[2], ov[3] - ov[2]);
		pr_buf_addch(&t, ' ');
		pr_buf_add(&t, str.ptr + ov[1], str.len - ov[1]);
		pr_buf_release(&str);
		str = t;
	}
	ok = pcre2_match(valid, (PCRE2_SPTR)str.ptr, str.len, 0, 0, md, NULL) >=
	     0;
done:
	pcre2_code_free(strip);
	pcre2_code_free(valid);
	pcre2_match_data_free(md);
	pr_buf_release(&atom);
	pr_buf_release(&qs);
	pr_buf_release(&dl);
	pr_buf_release(&word);
	pr_buf_release(&domain);
	pr_buf_release(&spec);
	pr_buf_release(&mailbox);
	pr_buf_release(&re);
	pr_buf_release(&str);
	return ok;
}

/*
 * The lines of .get_maintainer.ignore where get_maintainer.pl's which_conf
 * finds it (".:$HOME:.scripts", "." being the tree), as it cleans them:
 * trimmed, cut at '#', blank ones left out.
 */
static void read_ignore(struct route *r)
{
	const char *home = getenv("HOME");
	struct pr_buf path = PR_BUF_INIT, text = PR_BUF_INIT;
	struct strv raw = { 0 };
	struct stat st;
	size_t i, k;

	r->ignore_read = true;
	for (k = 0; k < 3; k++) {
		pr_buf_reset(&path);
		if (k == 0)
			pr_buf_addf(&path, "%s/.get_maintainer.ignore",
				    r->m->tree);
		else if (k == 1)
			pr_buf_addf(&path, "%s/.get_maintainer.ignore",
				    home ? home : "");
		else
			pr_buf_addf(&path, "%s/.scripts/.get_maintainer.ignore",
				    r->m->tree);
		if (!stat(path.ptr, &st))
			break;
	}
	pr_buf_init(&text, PR_LIMIT_DIFF_BYTES);
	if (k == 3 || pr_buf_read_file(&text, path.ptr) < 0) {
		pr_error_clear();
		goto done;
	}
	split_stripped(&raw, text.ptr);
	for (i = 0; i < raw.nr; i++) {
		char *l = raw.v[i], *hash = strchr(l, '#');
		size_t n;

		if (hash)
			*hash = '\0';
		n = strlen(l);
		while (n && pr_maint_perl_space((unsigned char)l[n - 1]))
			n--;
		/* the script trims before it cuts: "a@b # c" keeps "a@b " */
		if (!hash)
			l[n] = '\0';
		if (n)
			strv_push(&r->ignore, pr_strdup(l));
	}
done:
	strv_release(&raw);
	pr_buf_release(&path);
	pr_buf_release(&text);
}

/* ignore_email_address: an entry equal to line that is an address. */
static bool ignored(struct route *r, const char *line)
{
	size_t i;

	if (!r->ignore_read)
		read_ignore(r);
	for (i = 0; i < r->ignore.nr; i++)
		if (!strcmp(r->ignore.v[i], line) && rfc822_valid(line))
			return true;
	return false;
}

struct signoff {
	const char *line;
	size_t count;
};

/* sort -rn of uniq -c over sorted lines: ties stay in string order. */
static int cmp_signoff(const void *a, const void *b)
{
	const struct signoff *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->line, y->line);
}

/*
 * vcs_assign($role, $divisor, @lines) with the script's defaults: at most
 * 5 signers (--git-max-maintainers), each with 1 signature or more and 5%
 * of the divisor or more, those in the ignore list skipped uncounted.
 */
static void vcs_assign(struct route *r, const char *role, size_t divisor,
		       const struct strv *lines)
{
	struct strv mapped = { 0 };
	struct signoff *u = NULL;
	size_t i, nu = 0, count = 0;

	for (i = 0; i < lines->nr; i++)
		strv_push(&mapped,
			  pr_maint_mailmap_email(r->m, r->md, lines->v[i]));
	if (!mapped.nr)
		goto done;
	qsort(mapped.v, mapped.nr, sizeof(*mapped.v), cmp_str);
	u = pr_calloc(mapped.nr, sizeof(*u));
	for (i = 0; i < mapped.nr; i++) {
		if (nu && !strcmp(u[nu - 1].line, mapped.v[i])) {
			u[nu - 1].count++;
			continue;
		}
		u[nu].line = mapped.v[i];
		u[nu++].count = 1;
	}
	qsort(u, nu, sizeof(*u), cmp_signoff);
	for (i = 0; i < nu; i++) {
		double percent = (double)u[i].count * 100 / (double)divisor;
		struct pr_buf b = PR_BUF_INIT;

		if (percent > 100)
			percent = 100;
		if (ignored(r, u[i].line))
			continue;
		if (++count > 5 || percent < 5)
			break;
		push_email_address(r, u[i].line, "", PR_MAINT_FIXES, SIZE_MAX);
		if (r->o->rolestats)
			pr_buf_addf(&b, "%s:%zu/%zu=%.0f%%", role, u[i].count,
				    divisor, percent);
		else
			pr_buf_adds(&b, role);
		add_role(r, u[i].line, b.ptr);
		pr_buf_release(&b);
	}
done:
	free(u);
	strv_release(&mapped);
}

/* vcs_add_commit_signers($rev, $role): vcs_find_signers, then assign. */
static void add_commit_signers(struct route *r, const char *rev,
			       const char *role)
{
	struct pr_buf author = PR_BUF_INIT, body = PR_BUF_INIT;
	struct pr_buf line = PR_BUF_INIT;
	struct strv lines = { 0 }, sigs = { 0 }, signers = { 0 };
	size_t i;

	if (!r->o->commit ||
	    r->o->commit(&author, &body, rev, r->o->commit_payload))
		goto done;
	/* the lines of `git log` that its patterns can match */
	pr_buf_addf(&line, "GitAuthor: %s", author.ptr);
	strv_push(&lines, pr_buf_detach(&line, NULL));
	split_stripped(&lines, body.ptr);
	for (i = 0; i < lines.nr; i++)
		if (pr_maint_rx_match(pr_maint_rx(r->m, RX_SIGNATURE),
				      lines.v[i], strlen(lines.v[i]), r->md))
			strv_push(&sigs, pr_strdup(lines.v[i]));
	if (!sigs.nr)
		goto done;
	/* the authors are deduplicated (and so remembered), not added */
	for (i = 0; i < lines.nr; i++) {
		char *e;

		if (!pr_maint_rx_match(pr_maint_rx(r->m, RX_AUTHOR), lines.v[i],
				       strlen(lines.v[i]), r->md))
			continue;
		e = signer_of(r, lines.v[i]);
		free(deduplicate_email(r, e));
		free(e);
	}
	for (i = 0; i < sigs.nr; i++) {
		char *e, *d;

		if (pr_maint_rx_match(pr_maint_rx(r->m, RX_CHIEFS), sigs.v[i],
				      strlen(sigs.v[i]), r->md))
			continue;
		e = signer_of(r, sigs.v[i]);
		d = deduplicate_email(r, e);
		free(e);
		/* vcs_add_commit_signers deduplicates them once more */
		strv_push(&signers, deduplicate_email(r, d));
		free(d);
	}
	vcs_assign(r, role, 1, &signers);
done:
	pr_buf_release(&author);
	pr_buf_release(&body);
	strv_release(&lines);
	strv_release(&sigs);
	strv_release(&signers);
}

/* The commits that Fixes: tags name: their signers are added. */
static void add_fixes(struct route *r)
{
	size_t i;

	for (i = 0; i < r->fixes.nr; i++)
		add_commit_signers(r, r->fixes.v[i], "blamed_fixes");
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
		add_role(r, tmp, "in file");
		free(tmp);
		free(name);
		free(addr);
		free(e);
	}
	add_fixes(r);
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
	strv_release(&r->fixes);
	strv_release(&r->ignore);
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
	a->section = pr_strdup(e->section == SIZE_MAX
				       ? ""
				       : pr_maint_tv_value(c->m, e->section));
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
				pr_strdup(pr_maint_tv_value(m, start));
		}
	}
	free(hits);
	free(seen);
	pcre2_match_data_free(r.md);
	free(r.cand);
	return 0;
}
