#include "base/pr.h"
#include "base/sha1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

static void hash_str(char out[41], const void *p, size_t len)
{
	struct pr_sha1 s;

	pr_sha1_init(&s);
	pr_sha1_update(&s, p, len);
	pr_sha1_final_hex(out, &s);
}

/* FIPS 180-2 appendix A and the empty string */
static void test_fips_vectors(void **state)
{
	char hex[41];

	hash_str(hex, "", 0);
	assert_string_equal(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	hash_str(hex, "abc", 3);
	assert_string_equal(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
	hash_str(hex,
		 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 56);
	assert_string_equal(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

static void test_million_a_in_pieces(void **state)
{
	struct pr_sha1 s;
	char a[1000], hex[41];
	int i;

	memset(a, 'a', sizeof(a));
	pr_sha1_init(&s);
	for (i = 0; i < 1000; i++)
		pr_sha1_update(&s, a, sizeof(a));
	pr_sha1_final_hex(hex, &s);
	assert_string_equal(hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

/* every split of a message gives the same digest; lengths 0..130 cross the
 * 55/56/64-byte padding edges */
static void test_splits_and_pad_edges(void **state)
{
	unsigned char msg[130], one[20], two[20];
	struct pr_sha1 s;
	size_t len, cut;

	for (len = 0; len < sizeof(msg); len++)
		msg[len] = (unsigned char)(len * 7 + 3);
	for (len = 0; len <= sizeof(msg); len++) {
		pr_sha1_init(&s);
		pr_sha1_update(&s, msg, len);
		pr_sha1_final(one, &s);
		for (cut = 0; cut <= len; cut++) {
			pr_sha1_init(&s);
			pr_sha1_update(&s, msg, cut);
			pr_sha1_update(&s, msg + cut, len - cut);
			pr_sha1_final(two, &s);
			assert_memory_equal(one, two, 20);
		}
	}
}

/* git object ids: sha1("<type> <len>\0<content>"), values from git 2.39's
 * `git hash-object` */
static void object_id(char out[41], const char *type, const char *p, size_t len)
{
	struct pr_sha1 s;
	char hdr[64];
	int n;

	n = snprintf(hdr, sizeof(hdr), "%s %zu", type, len);
	pr_sha1_init(&s);
	pr_sha1_update(&s, hdr, (size_t)n + 1);
	pr_sha1_update(&s, p, len);
	pr_sha1_final_hex(out, &s);
}

static void test_git_hash_object(void **state)
{
	static const char commit[] =
		"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
		"author A U Thor <a@example.com> 1112911993 -0700\n"
		"committer C O Mitter <c@example.com> 1112911993 -0700\n"
		"\nmsg\n";
	char hex[41], *big;

	object_id(hex, "blob", "", 0);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	object_id(hex, "blob", "hello world\n", 12);
	assert_string_equal(hex, "3b18e512dba79e4c8300dd08aeb37f8e728b8dad");
	object_id(hex, "commit", commit, strlen(commit));
	assert_string_equal(hex, "9087d7edd655fd25d2b6694da6c4dec4a83758bf");
	big = malloc(100000);
	assert_non_null(big);
	memset(big, 'x', 100000);
	object_id(hex, "blob", big, 100000);
	free(big);
	assert_string_equal(hex, "56e0448612acbb706b96b7e8e46a210f15386a38");
}

static void test_hex(void **state)
{
	unsigned char raw[20];
	char hex[41];
	int i;

	for (i = 0; i < 20; i++)
		raw[i] = (unsigned char)(i * 13 + 0x0f);
	pr_sha1_hex(hex, raw);
	assert_string_equal(hex, "0f1c293643505d6a7784919eabb8c5d2dfecf906");
}

/* What git hash-object prints for the same bytes. */
static void test_git_blob(void **state)
{
	char hex[41];

	(void)state;
	pr_sha1_git_blob_hex(hex, "", 0);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	pr_sha1_git_blob_hex(hex, "hello\n", 6);
	assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git_blob),
		cmocka_unit_test(test_fips_vectors),
		cmocka_unit_test(test_million_a_in_pieces),
		cmocka_unit_test(test_splits_and_pad_edges),
		cmocka_unit_test(test_git_hash_object),
		cmocka_unit_test(test_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
