#ifndef PR_SHA1_H
#define PR_SHA1_H

#include <stddef.h>
#include <stdint.h>

/*
 * SHA-1 (FIPS 180-4), for git object ids and patch ids only (never for
 * security).
 *
 * Invariants:
 * - A context is usable after pr_sha1_init() and until pr_sha1_final();
 *   final pads the context, so init it again before re-use.
 * - update() takes any length, 0 included, in any number of pieces; the
 *   digest depends only on the concatenated bytes.
 * - The digest is 20 raw bytes; pr_sha1_hex() writes 40 lowercase hex
 *   digits and a NUL.
 */

#define PR_SHA1_RAWSZ 20
#define PR_SHA1_HEXSZ 40

struct pr_sha1 {
	uint32_t h[5];
	uint64_t len;
	unsigned char buf[64];
	size_t n;
};

void pr_sha1_init(struct pr_sha1 *s);
void pr_sha1_update(struct pr_sha1 *s, const void *data, size_t len);
void pr_sha1_final(unsigned char out[PR_SHA1_RAWSZ], struct pr_sha1 *s);

/* Final, as hex: out gets 40 digits and a NUL. */
void pr_sha1_final_hex(char out[PR_SHA1_HEXSZ + 1], struct pr_sha1 *s);

/* Raw digest to 40 hex digits and a NUL. */
void pr_sha1_hex(char out[PR_SHA1_HEXSZ + 1],
		 const unsigned char raw[PR_SHA1_RAWSZ]);

/*
 * The id git gives `data` as a blob (git hash-object): the SHA-1 of
 * "blob LEN\0" and the bytes, as 40 hex digits.  No libgit2: its first
 * init in a process loads the system's CA certificates (milliseconds), and
 * a module's init/shutdown pair around each hash paid that every time.
 */
void pr_sha1_git_blob_hex(char out[PR_SHA1_HEXSZ + 1], const void *data,
			  size_t len);

#endif
