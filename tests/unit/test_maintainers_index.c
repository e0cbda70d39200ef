#include "base/pr.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "maintainers_file.h"

/*
 * The compiled MAINTAINERS index (plugins/maintainers_index.c): written by
 * the first pr_maint_open(), mapped by the next, rebuilt when a source
 * changes, ignored and rebuilt when it is damaged, and routing the same
 * from a mapped index as from a parse.
 */

#define DIR PR_TEST_DATA "/maintainers"

struct fixture {
	char dir[64]; /* a tree: MAINTAINERS and .mailmap copied in */
	char cache[80];
	char maint[96], mailmap[96];
};

static void copy_file(const char *from, const char *to)
{
	struct pr_buf b = PR_BUF_INIT;
	FILE *f;

	assert_int_equal(pr_buf_read_file(&b, from), 0);
	f = fopen(to, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b.ptr, 1, b.len, f), b.len);
	fclose(f);
	pr_buf_release(&b);
}

static int setup(void **state)
{
	struct fixture *f = pr_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pr-maint-index-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->cache, sizeof(f->cache), "%s/cache/sub", f->dir);
	snprintf(f->maint, sizeof(f->maint), "%s/MAINTAINERS", f->dir);
	snprintf(f->mailmap, sizeof(f->mailmap), "%s/.mailmap", f->dir);
	/* "F: drivers/foo" is a directory pattern only where one is */
	snprintf(f->mailmap, sizeof(f->mailmap), "%s/drivers", f->dir);
	assert_int_equal(mkdir(f->mailmap, 0700), 0);
	snprintf(f->mailmap, sizeof(f->mailmap), "%s/drivers/foo", f->dir);
	assert_int_equal(mkdir(f->mailmap, 0700), 0);
	snprintf(f->mailmap, sizeof(f->mailmap), "%s/.mailmap", f->dir);
	copy_file(DIR "/tree/MAINTAINERS", f->maint);
	copy_file(DIR "/tree/.mailmap", f->mailmap);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct pr_buf cmd = PR_BUF_INIT;

	pr_buf_addf(&cmd, "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd.ptr), 0);
	pr_buf_release(&cmd);
	free(f);
	return 0;
}

/* The one index file of the cache folder, as a path. */
static void index_path(struct pr_buf *out, const struct fixture *f)
{
	struct pr_buf cmd = PR_BUF_INIT;
	FILE *p;
	char line[256];

	pr_buf_addf(&cmd, "ls '%s'/maintainers-*.idx 2>/dev/null", f->cache);
	p = popen(cmd.ptr, "r");
	assert_non_null(p);
	pr_buf_reset(out);
	if (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		pr_buf_adds(out, line);
	}
	pclose(p);
	pr_buf_release(&cmd);
}

/* p1.patch routed through m, as text. */
static void route_p1(struct pr_buf *out, const struct pr_maint *m)
{
	struct pr_maint_opts o;
	struct pr_buf patch = PR_BUF_INIT;

	pr_maint_opts_init(&o);
	assert_int_equal(pr_buf_read_file(&patch, DIR "/p1.patch"), 0);
	assert_int_equal(pr_maint_route(out, m, &o, &patch, 1), 0);
	pr_buf_release(&patch);
}

/* pr_maint_open, saying whether the tables came from a mapped index. */
static bool open_mapped(const struct fixture *f, struct pr_buf *routed)
{
	struct pr_maint *m = NULL;
	bool mapped;

	assert_int_equal(pr_maint_open(&m, f->maint, f->dir, f->cache), 0);
	mapped = m->map != NULL;
	if (routed) {
		pr_buf_reset(routed);
		route_p1(routed, m);
	}
	pr_maint_free(m);
	return mapped;
}

/* Written on first use, mapped after, the same answer as a parse. */
static void test_written_then_mapped(void **state)
{
	struct fixture *f = *state;
	struct pr_buf want = PR_BUF_INIT, got = PR_BUF_INIT;
	struct pr_buf idx = PR_BUF_INIT;
	struct pr_maint *m = NULL;
	struct stat st;

	assert_int_equal(pr_maint_load(&m, f->maint, f->dir), 0);
	route_p1(&want, m);
	pr_maint_free(m);
	assert_false(open_mapped(f, &got));
	assert_string_equal(got.ptr, want.ptr);
	index_path(&idx, f);
	assert_true(idx.len > 0);
	/* private to the user */
	assert_int_equal(stat(f->cache, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_true(open_mapped(f, &got));
	assert_string_equal(got.ptr, want.ptr);
	/* no cache folder: parsed, nothing written, same answer */
	assert_int_equal(pr_maint_open(&m, f->maint, f->dir, NULL), 0);
	assert_null(m->map);
	pr_maint_free(m);
	pr_buf_release(&want);
	pr_buf_release(&got);
	pr_buf_release(&idx);
}

static void append(const char *path, const char *text)
{
	FILE *fp = fopen(path, "a");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A changed MAINTAINERS or .mailmap is read again, and the index too. */
static void test_sources_change(void **state)
{
	struct fixture *f = *state;
	struct pr_buf got = PR_BUF_INIT;

	assert_false(open_mapped(f, NULL));
	assert_true(open_mapped(f, NULL));
	/* the reviewer's new address, through .mailmap */
	append(f->mailmap, "Bob New <bob.new@example.org> <bob@example.org>\n");
	assert_false(open_mapped(f, &got));
	assert_non_null(strstr(got.ptr, "Bob New <bob.new@example.org>"));
	assert_true(open_mapped(f, &got));
	assert_non_null(strstr(got.ptr, "Bob New <bob.new@example.org>"));
	/* a new section that takes the patch's files */
	append(f->maint, "\nNEW SECTION\nM:\tNew One <new@example.org>\n"
			 "S:\tMaintained\nF:\tdrivers/foo/\n");
	assert_false(open_mapped(f, &got));
	assert_non_null(strstr(got.ptr, "new@example.org"));
	assert_true(open_mapped(f, &got));
	assert_non_null(strstr(got.ptr, "new@example.org"));
	/* .mailmap gone */
	assert_int_equal(unlink(f->mailmap), 0);
	assert_false(open_mapped(f, &got));
	assert_null(strstr(got.ptr, "bob.new@example.org"));
	assert_true(open_mapped(f, NULL));
	pr_buf_release(&got);
}

static ino_t index_ino(const struct fixture *f)
{
	struct pr_buf idx = PR_BUF_INIT;
	struct stat st;

	index_path(&idx, f);
	assert_int_equal(stat(idx.ptr, &st), 0);
	pr_buf_release(&idx);
	return st.st_ino;
}

/*
 * Sources changed within RACY_SECONDS (2) of the write prove nothing by
 * their times: each open hashes them, and writes the index again, until
 * they are older.  New times on the same bytes (touch, a checkout): the
 * hash says the index is current, and it is written again with them.
 */
static void test_racy_and_touched(void **state)
{
	struct fixture *f = *state;
	struct timespec t[2] = { { time(NULL) - 50, 0 },
				 { time(NULL) - 50, 0 } };
	ino_t ino;

	/* the sources were just copied: racy */
	assert_false(open_mapped(f, NULL));
	ino = index_ino(f);
	assert_true(open_mapped(f, NULL));
	assert_true(index_ino(f) != ino);
	sleep(3);
	/* hashed once more, written with the sources now old enough */
	assert_true(open_mapped(f, NULL));
	ino = index_ino(f);
	assert_true(open_mapped(f, NULL));
	assert_int_equal(index_ino(f), ino);
	/* touched: read, found the same, written again */
	assert_int_equal(utimensat(AT_FDCWD, f->maint, t, 0), 0);
	assert_true(open_mapped(f, NULL));
	assert_true(index_ino(f) != ino);
}

/* Same size and times as far as can be kept, other bytes: a miss. */
static void test_same_size_other_bytes(void **state)
{
	struct fixture *f = *state;
	struct pr_buf got = PR_BUF_INIT;
	FILE *fp;

	assert_false(open_mapped(f, NULL));
	fp = fopen(f->maint, "r+");
	assert_non_null(fp);
	fputc('l', fp); /* "List of" -> "list of": still a comment line */
	fclose(fp);
	assert_false(open_mapped(f, &got));
	assert_true(open_mapped(f, NULL));
	pr_buf_release(&got);
}

/* Flip one byte at off of the index file. */
static void damage(const struct pr_buf *idx, long off)
{
	FILE *fp = fopen(idx->ptr, "r+");
	int c;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, off, SEEK_SET), 0);
	c = fgetc(fp);
	assert_int_equal(fseek(fp, off, SEEK_SET), 0);
	fputc(c ^ 0x20, fp);
	fclose(fp);
}

/* A damaged or cut index is not used, and the next open writes it anew. */
static void test_damaged(void **state)
{
	struct fixture *f = *state;
	struct pr_buf idx = PR_BUF_INIT, want = PR_BUF_INIT;
	struct pr_buf got = PR_BUF_INIT;
	struct stat st;
	long offs[] = { 0, 9, 60, 500, -1, -5 };
	size_t i;

	assert_false(open_mapped(f, &want));
	index_path(&idx, f);
	for (i = 0; i < PR_ARRAY_SIZE(offs); i++) {
		assert_int_equal(stat(idx.ptr, &st), 0);
		damage(&idx,
		       offs[i] < 0 ? (long)st.st_size + offs[i] : offs[i]);
		assert_false(open_mapped(f, &got));
		assert_string_equal(got.ptr, want.ptr);
		assert_true(open_mapped(f, &got));
		assert_string_equal(got.ptr, want.ptr);
	}
	assert_int_equal(truncate(idx.ptr, 100), 0);
	assert_false(open_mapped(f, &got));
	assert_string_equal(got.ptr, want.ptr);
	assert_true(open_mapped(f, NULL));
	assert_int_equal(truncate(idx.ptr, 0), 0);
	assert_false(open_mapped(f, NULL));
	assert_true(open_mapped(f, NULL));
	pr_buf_release(&idx);
	pr_buf_release(&want);
	pr_buf_release(&got);
}

/*
 * The loader checks every offset, index and count: an image sealed with
 * a good checksum but a table out of bounds is refused.
 */
static void test_bounds(void **state)
{
	struct fixture *f = *state;
	struct pr_buf idx = PR_BUF_INIT, img = PR_BUF_INIT;
	struct pr_maint *m = NULL;
	size_t off;

	assert_false(open_mapped(f, NULL));
	index_path(&idx, f);
	assert_int_equal(pr_buf_read_file(&img, idx.ptr), 0);
	/* the image as it is loads */
	{
		void *copy = pr_malloc(img.len);

		memcpy(copy, img.ptr, img.len);
		assert_int_equal(
			pr_maint_index_load_mem(&m, copy, img.len, f->dir), 0);
		pr_maint_free(m);
	}
	/* every 4-byte field of the head set to a large value, resealed */
	for (off = 8; off + 4 <= 400 && off + 4 <= img.len; off += 4) {
		unsigned char *copy = pr_malloc(img.len);
		uint32_t big = 0x7ffffff0;
		int r;

		memcpy(copy, img.ptr, img.len);
		memcpy(copy + off, &big, 4);
		pr_maint_index_seal(copy, img.len);
		r = pr_maint_index_load_mem(&m, copy, img.len, f->dir);
		if (!r) {
			/* a field that allows it (a time, a hash): usable */
			struct pr_buf out = PR_BUF_INIT;

			route_p1(&out, m);
			pr_buf_release(&out);
			pr_maint_free(m);
		}
	}
	pr_buf_release(&idx);
	pr_buf_release(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_written_then_mapped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sources_change, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_racy_and_touched, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_same_size_other_bytes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
