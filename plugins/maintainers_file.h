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
 * and its %mailmap), maintainers_index.c writes the same tables to a cache
 * file and maps them back, and maintainers.c matches patches against them.
 * The helpers here are the Perl subs and regexes the halves share.
 * Nothing outside plugins/maintainers*.c includes this header.
 *
 * Invariants: as maintainers.h says of a loaded struct pr_maint.  The
 * tables hold no pointers (offsets and indexes only), so that a mapped
 * cache file is usable as it is; they are read-only once loaded, and every
 * offset and index in them is in bounds (the index loader checks).  What
 * routing learns on the way (a value's compiled regexes, a directory
 * answer, the fixed regexes) lives in struct tv_rt and rx[], made on first
 * use and published atomically, so that a loaded struct pr_maint stays
 * shareable between threads.
 */

#define MAINT_BYTES (64 * PR_MIB)
#define OVEC 16

/* Where a value's directory answer comes from (in a tv's flags). */
enum {
	DIR_NO = 0,
	DIR_YES,
	DIR_UNKNOWN /* stat()ed on first use */
};

enum {
	TV_LITERAL = 1, /* F/X: "^value" is a plain prefix test */
	TV_SLASH_END = 2, /* F/X: value as written ends in '/' */
	TV_DIR_SHIFT = 2, /* F/X: DIR_* in bits 2-3 */
};

/*
 * One element of get_maintainer's @typevalue, 20 bytes: one per typed
 * line of the file.  F:/X: values stay as written and are converted when
 * first compiled.  Offsets and counts fit 32 bits: MAINTAINERS is capped
 * at MAINT_BYTES.
 */
struct tv {
	uint32_t value; /* offset in text: the value, or the whole line */
	/* F/X: the literal bytes every match starts with: value[0..len) */
	uint32_t prefix_len;
	uint32_t nslash; /* F/X: slashes in value as written */
	uint32_t start; /* typed: find_starting_index of its section */
	char type; /* 'A'..'Z', or 0 for a section header or other line */
	uint8_t flags; /* TV_* */
	uint8_t pad[2];
};

/* What routing learns of a tv, on first use. */
struct tv_rt {
	pcre2_code *re; /* F/X: ^value; N: value/x; K: value/x */
	pcre2_code *re_patch; /* K only: ^[+-].*value/x */
	unsigned char dir; /* 0: not asked yet; else 1 + DIR_NO or DIR_YES */
};

/* The F:/X: entries whose literal prefix starts with one path component. */
struct fx_bucket {
	uint32_t comp, len; /* "drivers": text offset and length */
	uint32_t first, nr; /* their tv indexes: fx_tvi[first..first+nr) */
};

/* A .mailmap entry: offsets of NUL-terminated strings in `strings`. */
struct mapent {
	uint32_t key, val;
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

/*
 * The tables (parsed into the heap, or mapped from a cache file) and what
 * routing adds to them.
 */
struct pr_maint {
	const char *text; /* MAINTAINERS, a NUL at each line end */
	size_t text_len; /* with the final NUL */
	const struct tv *tv;
	size_t ntv;
	size_t nsections;
	const struct fx_bucket *fx; /* F/X with a '/' in the prefix */
	size_t nfx;
	const uint32_t *fx_tvi; /* the buckets' entries */
	size_t nfx_tvi;
	const uint32_t *fx_any; /* F/X whose prefix has no '/': every file */
	size_t nfx_any;
	const uint32_t *nk, *kw; /* the N: and K: entries, in order */
	size_t nn, nkw;
	/* .mailmap, sorted by key (of one key, the last one read) */
	const struct mapent *names, *addrs;
	size_t nnames, naddrs;
	const char *strings; /* the mailmap's keys and values */
	size_t strings_len; /* with the final NUL */
	char *tree;
	bool jit; /* JIT-compile N:/K: and fixed patterns when first used */
	struct tv_rt *rt; /* ntv entries, written on first use */
	pcre2_code *rx[RX_COUNT]; /* compiled on first use */
	/* where the tables live: the parse's heap, a mapping or an image */
	void *map; /* a mapped cache file */
	size_t map_len;
	void *image; /* an index image in the heap */
};

static inline const char *pr_maint_tv_value(const struct pr_maint *m, size_t i)
{
	return m->text + m->tv[i].value;
}

/* The fixed regex k (RX_*), compiled on first use; NULL if it fails. */
pcre2_code *pr_maint_rx(const struct pr_maint *m, int k);

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

/* F:/X: value i names a directory (stat()ed once, on first use). */
bool pr_maint_tv_isdir(const struct pr_maint *m, size_t i);
size_t pr_maint_tv_nslash(const struct pr_maint *m, size_t i);
/* The regex of value i (K:'s patch form when `patch`), on first use. */
pcre2_code *pr_maint_tv_re(const struct pr_maint *m, size_t i, bool patch);
const struct fx_bucket *pr_maint_fx_find(const struct pr_maint *m,
					 const char *comp, size_t len);

/*
 * A struct pr_maint around its tables: the runtime parts allocated (rt,
 * tree).  The parse and the index loader both end here.
 */
void pr_maint_init_runtime(struct pr_maint *m, const char *tree);

/*
 * What a source file (MAINTAINERS, .mailmap) was when it was read: the
 * compiled index's key.  The layout is the index file's.
 */
struct pr_maint_id {
	uint64_t size, ino, dev;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t hash; /* pr_maint_hash() of its bytes */
	uint8_t present; /* it existed */
	uint8_t racy; /* changed so lately that its times prove nothing */
	uint8_t pad[6];
};

/* The sources of one parse; `stable`: neither changed while read. */
struct pr_maint_src {
	struct pr_maint_id maint, mailmap;
	bool stable;
};

/*
 * Read `path` whole (at most MAINT_BYTES) into text and describe it in
 * id: 0, or 1 when it does not exist (id->present false); other errors
 * name the path.  *stable is cleared when the file changed while read.
 */
int pr_maint_id_read(struct pr_buf *text, struct pr_maint_id *id,
		     const char *path, bool *stable);

/* A fast 64-bit hash of p[0..n) (not for security): change detection. */
uint64_t pr_maint_hash(const void *p, size_t n);

/* pr_maint_load, saying what it read in *src. */
int pr_maint_parse(struct pr_maint **out, struct pr_maint_src *src,
		   const char *path, const char *tree);

/*
 * The compiled index (maintainers_index.c).  pr_maint_index_open: 0 with
 * *out loaded from the cache file of `path` and `tree` under `cache_dir`
 * when that file is valid and current, else 1; it is never an error.
 * pr_maint_index_save: write m, parsed from the sources src describes, as
 * that cache file (atomically; best effort: nothing on failure).
 */
int pr_maint_index_open(struct pr_maint **out, const char *path,
			const char *tree, const char *cache_dir);
void pr_maint_index_save(const struct pr_maint *m, const char *path,
			 const char *tree, const char *cache_dir,
			 const struct pr_maint_src *src);

/*
 * An index image in memory, taken as the loader takes a mapped file: 0
 * with *out using `data` (it then owns it: freed with *out), or 1 when it
 * is no valid index (data freed).  pr_maint_index_seal() sets an image's
 * checksum, for the fuzzer.
 */
int pr_maint_index_load_mem(struct pr_maint **out, void *data, size_t len,
			    const char *tree);
void pr_maint_index_seal(void *data, size_t len);

#endif
