#ifndef PR_MAINTAINERS_FILE_H
#define PR_MAINTAINERS_FILE_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

#include "base/pr.h"
#include "maintainers.h"

/*
 * MAINTAINERS and .mailmap as pr_maint_load() holds them, inside the
 * maintainers module: maintainers_file.c parses both into the tables below
 * (get_maintainer.pl's @typevalue, its section, F:/X:, N: and K: indexes,
 * and its %mailmap), and maintainers.c matches patches against them.  The
 * helpers here are the Perl subs and regexes both halves use.  Nothing
 * outside plugins/maintainers*.c includes this header.
 *
 * Invariants: as maintainers.h says of a loaded struct pr_maint.  Once
 * pr_maint_load() has returned, routing writes nothing here but a tv's
 * regexes and directory answer, made on first use and published
 * atomically by pr_maint_tv_re() and pr_maint_tv_isdir().
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
	RX_SIGNATURE, /* vcs_find_signers: a signature line of git log */
	RX_AUTHOR, /* its author_pattern */
	RX_CHIEFS, /* $penguin_chiefs, case-insensitive */
	RX_SIGNER, /* extract_formatted_signatures: what follows the ':' */
	RX_COUNT
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
	pcre2_code *rx[RX_COUNT];
};

/* src[0..len) compiled with flags (JIT-compiled when jit), or NULL. */
pcre2_code *pr_maint_rx_compile(const char *src, size_t len, uint32_t flags,
				bool jit);
/* re matches s[0..len) (false for re NULL); groups land in md. */
bool pr_maint_rx_match(pcre2_code *re, const char *s, size_t len,
		       pcre2_match_data *md);
char *pr_maint_rx_group(pcre2_match_data *md, const char *s, int g);
/* Perl's \s */
bool pr_maint_perl_space(int c);

/*
 * get_maintainer.pl's parse_email (name and address as new strings, the
 * name quoted as it quotes one) and format_email($name, $address, 1).
 */
void pr_maint_parse_email(const struct pr_maint *m, pcre2_match_data *md,
			  const char *s, char **name, char **addr);
char *pr_maint_format_email(const struct pr_maint *m, pcre2_match_data *md,
			    const char *name, const char *addr);
/* get_maintainer.pl's mailmap_email: line as .mailmap rewrites it. */
char *pr_maint_mailmap_email(const struct pr_maint *m, pcre2_match_data *md,
			     const char *line);

/* F:/X: value t names a directory (stat()ed once, on first use). */
bool pr_maint_tv_isdir(const struct pr_maint *m, struct tv *t);
size_t pr_maint_tv_nslash(const struct pr_maint *m, struct tv *t);
pcre2_code *pr_maint_tv_re(const struct pr_maint *m, struct tv *t, bool patch);
struct fx_bucket *pr_maint_fx_find(const struct pr_maint *m, const char *comp,
				   size_t len);

#endif
