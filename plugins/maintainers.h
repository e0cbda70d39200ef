#ifndef PR_MAINTAINERS_H
#define PR_MAINTAINERS_H

#include "base/pr.h"

/*
 * MAINTAINERS: the kernel's routing file, parsed once and matched against
 * patches with the exact answers of scripts/get_maintainer.pl (6.1) run as
 * `get_maintainer.pl --no-git --no-git-fallback` from the tree's top.
 *
 * Invariants:
 * - A loaded struct pr_maint is read-only; pr_maint_route() may be called on
 *   it from several threads at once (each call owns its match data).
 * - Every F:/X:/N:/K: value is matched as get_maintainer.pl converts it
 *   (F/X: '.' -> '\.', '*' -> '.*', '?' -> '.', a trailing '/' for an
 *   existing directory; N/K: Perl regexes with /x), through PCRE2.  Each is
 *   compiled once, on first use (published atomically, so the invariant
 *   above holds); an F/X value that is all literal is a prefix test and is
 *   never compiled.  A value that does not compile never matches.
 * - Loading reads the file once and keeps it: values point into it.  F/X
 *   entries are indexed by the first path component of their literal
 *   prefix, so a file is tried only against the entries that can match it.
 * - Only F/X values the conversion left unchanged and that lack a trailing
 *   '/' are stat()ed (get_maintainer.pl's `-d` runs on the converted value,
 *   which for any other is no directory), once, at load.
 * - F: directories are tested against `tree` (get_maintainer.pl's cwd), and
 *   .mailmap is read from `tree` when present.
 * - Sections that match a file at the same depth are ordered as they stand
 *   in MAINTAINERS (get_maintainer.pl uses Perl's random hash order there).
 * - The output is the whole of get_maintainer.pl's standard output, newline
 *   terminated lines, appended to `out`.
 * - `Fixes:` tags (get_maintainer.pl's default --fixes, which --no-git does
 *   not turn off) add the fixed commit's signers, as the script's
 *   vcs_add_commit_signers does, through the commit lookup of the options;
 *   without one, or when it finds no commit, nothing is added (the script
 *   outside a git tree).  Signers tied on count are ordered as strings
 *   (get_maintainer.pl: Perl's hash order).
 */

struct pr_maint;

/*
 * The commit that a `Fixes:` tag names (rev: 6 to 40 hex digits), as
 * get_maintainer.pl has `git log -1 REV` print it in the tree: 0 with
 * `author` set to "%an <%ae>" and `body` to its %b, or 1 when there is no
 * such commit (no repository, an unknown or ambiguous name, not a commit).
 */
typedef int (*pr_maint_commit_fn)(struct pr_buf *author, struct pr_buf *body,
				  const char *rev, void *payload);

struct pr_maint_opts {
	bool maintainers; /* --m: M: entries (default on) */
	bool reviewers; /* --r: R: entries (default on) */
	bool lists; /* --l: L: entries (default on) */
	bool rolestats; /* --rolestats: "(role:SECTION)" (default on) */
	bool keywords; /* --keywords: K: on patch content (default on) */
	bool subsystem; /* --subsystem: section names after the addresses */
	bool status; /* --status: S: values after the addresses */
	const char *separator; /* NULL or ", ": one address a line */
	bool fixes; /* --fixes: signers of the commits Fixes: names (on) */
	pr_maint_commit_fn commit; /* NULL: no repository, as --no-fixes */
	void *commit_payload;
};

/* The defaults of get_maintainer.pl. */
void pr_maint_opts_init(struct pr_maint_opts *o);

/*
 * Parse the MAINTAINERS file at `path`; `tree` (NULL means ".") is the
 * kernel tree's top.  Errors name the file.
 */
int pr_maint_load(struct pr_maint **out, const char *path, const char *tree);

/*
 * pr_maint_load through a compiled index of MAINTAINERS and .mailmap kept
 * in `cache_dir` (NULL: none), so that a process that routes once does not
 * parse MAINTAINERS again (plugins/maintainers_index.c).  A cache file is
 * used only when it is whole (checksum and bounds checked) and was made
 * from files with the same size, times, inode and content hash as now;
 * else it is rebuilt, atomically.  A cache that cannot be read or written
 * is no error: the file is parsed.
 */
int pr_maint_open(struct pr_maint **out, const char *path, const char *tree,
		  const char *cache_dir);
void pr_maint_free(struct pr_maint *m);

/*
 * JIT-compile N: and K: patterns when they are first used: worth it for a
 * loaded instance that routes many patches (the plugin), not for one.
 */
void pr_maint_set_jit(struct pr_maint *m, bool jit);

/* Number of sections (a header line and its entries). */
size_t pr_maint_nsections(const struct pr_maint *m);

/*
 * Route `n` patches (the raw text of each, as get_maintainer.pl reads its
 * PATCH arguments) and append get_maintainer.pl's output to `out`.
 */
int pr_maint_route(struct pr_buf *out, const struct pr_maint *m,
		   const struct pr_maint_opts *o, const struct pr_buf *patches,
		   size_t n);

/*
 * The commit lookup of --fixes (a pr_maint_commit_fn) in a kernel tree's
 * git repository, with libgit2 (plugins/maintainers_git.c).  As for
 * get_maintainer.pl, `tree`/.git must exist (NULL: "."); the repository is
 * opened, without searching the directories above, on the first lookup.  A
 * rev is resolved as `git log` resolves it (a ref, else an object id or an
 * unambiguous prefix; a prefix that several objects share names the one
 * commit or tag of a commit among them), and peeled to a commit.
 */
struct pr_maint_git;

struct pr_maint_git *pr_maint_git_new(const char *tree);
void pr_maint_git_free(struct pr_maint_git *g);
/* payload: a struct pr_maint_git */
int pr_maint_git_commit(struct pr_buf *author, struct pr_buf *body,
			const char *rev, void *payload);
/* `tree`/.git exists (get_maintainer.pl's vcs_exists, less `which git`). */
bool pr_maint_git_present(const char *tree);

/* Where an address came from. */
enum pr_maint_kind {
	PR_MAINT_MAINTAINER = 0, /* an M: entry (whatever the S: status) */
	PR_MAINT_REVIEWER, /* an R: entry */
	PR_MAINT_LIST, /* an L: entry */
	PR_MAINT_FILE, /* an address written in a patched .yaml file */
	PR_MAINT_FIXES, /* a signer of a commit that a Fixes: tag names */
};

/* One line of get_maintainer.pl's output, taken apart. */
struct pr_maint_addr {
	char *line; /* as printed without rolestats: "A B <a@b.org>" */
	char *name; /* unquoted, "" when none */
	char *email;
	char *role; /* as --rolestats prints it: "maintainer:NET..." */
	enum pr_maint_kind kind;
	char *section; /* the whole section header; "" for FILE and FIXES */
};

struct pr_maint_result {
	struct pr_maint_addr *items; /* in get_maintainer.pl's order */
	size_t nr, alloc;
	char **sections; /* what --subsystem prints, in its order */
	size_t nsections, alloc_sections;
};

/*
 * The same answer as pr_maint_route, as data: the addresses in output
 * order (o->rolestats, separator, status and subsystem do not matter) and
 * the names of the sections the patches touch.  `out` starts zeroed;
 * results are appended.
 */
int pr_maint_resolve(struct pr_maint_result *out, const struct pr_maint *m,
		     const struct pr_maint_opts *o,
		     const struct pr_buf *patches, size_t n);
void pr_maint_result_release(struct pr_maint_result *res);

/*
 * The distinct sections whose F:/X:/N: entries take any of the `n` files
 * (paths from the tree top), as get_maintainer.pl --no-keywords
 * --subsystem names them: whole header lines ("THE REST" included),
 * appended to out->sections in order of first match (files in the given
 * order, each file's sections deepest first).  Nothing is read from the
 * tree but directories' stat().
 */
int pr_maint_file_sections(struct pr_maint_result *out,
			   const struct pr_maint *m, const char *const *files,
			   size_t n);

/*
 * A loaded MAINTAINERS that follows its files, for long-lived instances
 * (the maintainers and mass-edit plugins, plugins/maintainers_plugin.c).
 * pr_maint_cache_new() only settles the paths: `maintainers` (NULL: the
 * tree's MAINTAINERS) and `kernel_tree` (NULL: the file's folder), one of
 * them set.  Each pr_maint_cache_get() stats MAINTAINERS and the tree's
 * .mailmap and parses both again when either one's mtime, size or inode
 * changed, or it appeared or went; the pointer it returns stays valid
 * until the next get or the free.  A failed reload returns its error and
 * tries again on the next get.
 */
struct pr_maint_cache;

int pr_maint_cache_new(struct pr_maint_cache **out, const char *kernel_tree,
		       const char *maintainers);
int pr_maint_cache_get(const struct pr_maint **out, struct pr_maint_cache *c,
		       const char *log_prefix);
/* The MAINTAINERS path it reads. */
const char *pr_maint_cache_file(const struct pr_maint_cache *c);
void pr_maint_cache_free(struct pr_maint_cache *c);

#endif
