#ifndef PR_SIMILARITY_H
#define PR_SIMILARITY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Rename, copy and rewrite detection as git 2.39 does it (diffcore-break,
 * diffcore-rename with diffcore-delta's measure, diffcore_merge_broken and
 * the status rules of diff.c), on the file pairs of a tree diff.
 *
 * The measure: each file is cut into spans that end at a '\n' or after 64
 * bytes (a CR before '\n' is not counted in a text file; a last span
 * without '\n' and under 64 bytes is not counted at all), each span hashed
 * into one of 107927 values; per value the bytes of its spans are summed.
 * Bytes a value holds in both files count as copied (the smaller sum),
 * the rest of the destination's as added.  A score runs from 0 to
 * PR_SIM_MAX_SCORE (git's MAX_SCORE, 100%); the percentage git prints is
 * score * 100 / MAX_SCORE, rounded down.
 *
 * The pairing, in git's order: exact renames first, by blob id (an unused
 * source before a used one, then one with the same file name, then the
 * first by path; a symlink or submodule only to the same mode); without -C
 * or -B, sources and destinations whose file names are unique on both
 * sides are tried together first, at a threshold halfway between the
 * minimum and 100%; then every remaining destination keeps its four best
 * sources (by score, then same file name), all of those sorted, and taken
 * best first while the score reaches the minimum: as renames (each source
 * once) and, with -C, again as copies.  Only regular files pair inexactly,
 * and a destination whose size differs from the source's by more than the
 * minimum allows is not measured.  Past the rename limit (destinations
 * times sources over limit squared) only exact renames are found, or with
 * --find-copies-harder the unmodified sources are dropped first.  A source
 * used by several destinations is a copy to all but the last in path
 * order, which is its rename unless the source file stays.
 *
 * Invariants: the queue owns its pairs and files; the reader is only called
 * inside pr_sim_run() and each handle it gives is released before that
 * returns.  Nothing here knows libgit2: blobs are read through the reader.
 */

#define PR_SIM_MAX_SCORE 60000
#define PR_SIM_DEFAULT_SCORE 30000 /* -M, -C and -B: 50% */
#define PR_SIM_DEFAULT_MERGE 36000 /* -B's /m: 60% */
#define PR_SIM_RENAME_LIMIT 1000 /* diff.renameLimit's default */
#define PR_SIM_BINARY_PROBE 8000 /* a NUL in these first bytes: binary */

enum pr_sim_detect {
	PR_SIM_NO_RENAMES = 0,
	PR_SIM_RENAMES = 1,
	PR_SIM_COPIES = 2,
};

/* detect or rename_limit: what the config says (diff.renames/renameLimit) */
#define PR_SIM_FROM_CONFIG (-1)

struct pr_sim_opts {
	int detect; /* enum pr_sim_detect, or PR_SIM_FROM_CONFIG */
	bool copies_harder; /* --find-copies-harder: unmodified sources */
	/* a -C came while detect was the config's: -C -C if that is copies */
	bool copy_on_config;
	int rename_score; /* -M<n>/-C<n> as a score; 0: the default */
	int break_opt; /* -1: no -B; else break | merge << 16 (0: defaults) */
	int rename_limit; /* -l<n>; 0: none; below 0: the config's */
};

/*
 * git format-patch's defaults: diff.renames (on when unset), no -B,
 * diff.renameLimit (1000 when unset).  pr_sim_run() reads an unresolved
 * PR_SIM_FROM_CONFIG as those defaults.
 */
#define PR_SIM_OPTS_INIT                                                    \
	{                                                                   \
		PR_SIM_FROM_CONFIG, false, false, 0, -1, PR_SIM_FROM_CONFIG \
	}

/*
 * One command-line option of git's diff rename family, as git parses it:
 * -M[<n>], --find-renames[=<n>], -C[<n>] (a second -C: --find-copies-harder
 * too), --find-copies[=<n>], --find-copies-harder, --no-renames,
 * -B[<n>][/<m>], --break-rewrites[=<n>[/<m>]], -l<n>.  Returns 1 when arg
 * is one (o updated), 0 when it is not, PR_EINVAL for a bad value.
 */
int pr_sim_option(struct pr_sim_opts *o, const char *arg);

struct pr_sim_span;

/* One side of a pair: git's diff_filespec. */
struct pr_sim_file {
	char *path;
	unsigned mode; /* 0: this side does not exist */
	unsigned char id[20]; /* the blob (a submodule's commit) */
	int rename_used; /* how many pairs took this file as their source */
	/* what the pairing learnt through the reader */
	size_t size;
	bool have_size, have_spans, binary;
	struct pr_sim_span *spans; /* sorted by hash */
	size_t nr_spans;
};

struct pr_sim_pair {
	struct pr_sim_file *one, *two;
	/* R/C: similarity; M: dissimilarity (-B); in PR_SIM_MAX_SCORE units */
	int score;
	char status; /* 'A', 'D', 'M', 'T', 'R', 'C' after pr_sim_run() */
	bool broken, renamed;
	size_t peer; /* a broken deletion: its creation's rename destination */
};

struct pr_sim_queue {
	struct pr_sim_pair *pairs;
	size_t nr, alloc;
	struct pr_sim_file **files; /* every file, owned */
	size_t nr_files, alloc_files;
};

#define PR_SIM_QUEUE_INIT              \
	{                              \
		NULL, 0, 0, NULL, 0, 0 \
	}

/* How the pairing reads blobs: the size alone, or the content. */
struct pr_sim_reader {
	int (*size)(size_t *size, const struct pr_sim_file *f, void *payload);
	/* data stays valid until release(*handle) */
	int (*read)(const char **data, size_t *size, void **handle,
		    const struct pr_sim_file *f, void *payload);
	void (*release)(void *handle, void *payload);
	void *payload;
};

void pr_sim_queue_release(struct pr_sim_queue *q);

/*
 * Add one pair of the tree diff; pairs come in git's order (by path, as
 * strcmp sorts).  old_mode 0: path was added; new_mode 0: deleted; equal
 * ids and modes: unmodified (a --find-copies-harder source).
 */
void pr_sim_queue_add(struct pr_sim_queue *q, const char *path,
		      unsigned old_mode, const unsigned char old_id[20],
		      unsigned new_mode, const unsigned char new_id[20]);

/*
 * Break, pair and name the queue as git's diffcore_std does for
 * format-patch: then each pair has its status and score, unmodified pairs
 * are gone, and the order is git's output order.
 */
int pr_sim_run(struct pr_sim_queue *q, const struct pr_sim_opts *o,
	       const struct pr_sim_reader *r);

/* git's buffer_is_binary: a NUL in the first PR_SIM_BINARY_PROBE bytes. */
bool pr_sim_is_binary(const char *data, size_t len);

/*
 * The score diffcore-rename gives dst as an edit of src (both regular
 * files), 0 when the sizes alone rule it out at minimum_score.
 */
int pr_sim_score(const char *src, size_t src_len, const char *dst,
		 size_t dst_len, int minimum_score);

/* The percentage git prints for a score: score * 100 / MAX, rounded down. */
int pr_sim_percent(int score);

/*
 * git's parse_rename_score: "50", "50%", "5" (0.5), ".5", "30.5%" into a
 * score (at most PR_SIM_MAX_SCORE); *s is left after what was read.
 */
int pr_sim_parse_score(const char **s);

#endif
