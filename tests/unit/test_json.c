#include "base/pr.h"
#include "base/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

static void quoted(const char *in, size_t len, const char *want)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_json_quote(&b, in, len), 0);
	assert_string_equal(b.ptr, want);
	pr_buf_release(&b);
}

static void test_escapes(void **state)
{
	quoted("", 0, "\"\"");
	quoted("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
	quoted("l1\nl2\r\t", 7, "\"l1\\nl2\\r\\t\"");
	quoted("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"");
	/* a NUL inside is a byte like the others */
	quoted("a\0b", 3, "\"a\\u0000b\"");
	/* "</script>" cannot close an HTML script element */
	quoted("</script>", 9, "\"<\\/script>\"");
	quoted("a/b", 3, "\"a/b\"");
}

static void test_utf8(void **state)
{
	/* valid sequences of each length stay */
	quoted("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
	       "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* latin-1, an overlong '/', a surrogate, past U+10FFFF, cut short */
	quoted("\xe9", 1, "\"\\ufffd\"");
	quoted("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");
	quoted("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
	quoted("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	quoted("\xe2\x82", 2, "\"\\ufffd\\ufffd\"");
	quoted("a\xe2\x82"
	       "b",
	       4, "\"a\\ufffd\\ufffdb\"");
}

static void test_null_and_cap(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_json_quotes(&b, NULL), 0);
	assert_string_equal(b.ptr, "null");
	pr_buf_release(&b);
	pr_buf_init(&b, 4);
	assert_int_equal(pr_json_quotes(&b, "abcdef"), PR_ETOOBIG);
	pr_buf_release(&b);
}

/* The writer's text is jansson's JSON_INDENT(2) text of the same document. */
static void test_writer_as_jansson(void **state)
{
	static const char want[] =
		"{\n"
		"  \"a\": [\n"
		"    {},\n"
		"    [],\n"
		"    \"q\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001F/\177\xc3\xa9\"\n"
		"  ],\n"
		"  \"n\": -42,\n"
		"  \"t\": true,\n"
		"  \"z\": null,\n"
		"  \"o\": {\n"
		"    \"k\": false\n"
		"  }\n"
		"}";
	const char text[] = "q\"\\\b\f\n\r\t\001\037/\177\xc3\xa9";
	struct pr_buf b = PR_BUF_INIT;
	struct pr_jsonw w;
	json_t *back;
	char *again;

	pr_jsonw_init(&w, &b);
	pr_jsonw_open(&w, NULL, '{');
	pr_jsonw_open(&w, "a", '[');
	pr_jsonw_open(&w, NULL, '{');
	pr_jsonw_close(&w, '}');
	pr_jsonw_open(&w, NULL, '[');
	pr_jsonw_close(&w, ']');
	pr_jsonw_str(&w, NULL, text, sizeof(text) - 1);
	pr_jsonw_close(&w, ']');
	pr_jsonw_int(&w, "n", -42);
	pr_jsonw_bool(&w, "t", true);
	pr_jsonw_strs(&w, "z", NULL);
	pr_jsonw_open(&w, "o", '{');
	pr_jsonw_bool(&w, "k", false);
	pr_jsonw_close(&w, '}');
	pr_jsonw_close(&w, '}');
	assert_string_equal(b.ptr, want);
	back = json_loadb(b.ptr, b.len, 0, NULL);
	assert_non_null(back);
	again = json_dumps(back, JSON_INDENT(2));
	assert_string_equal(b.ptr, again);
	free(again);
	json_decref(back);
	pr_buf_release(&b);
	(void)state;
}

/* Each ASCII byte at each place of a long string is quoted as jansson does. */
static void test_writer_escapes_anywhere(void **state)
{
	char text[24];
	size_t at;
	int c;

	for (c = 1; c < 128; c++) {
		for (at = 0; at < sizeof(text); at++) {
			struct pr_buf b = PR_BUF_INIT;
			struct pr_jsonw w;
			json_t *j;
			char *want;

			memset(text, 'a', sizeof(text));
			text[at] = (char)c;
			pr_jsonw_init(&w, &b);
			pr_jsonw_str(&w, NULL, text, sizeof(text));
			j = json_stringn(text, sizeof(text));
			want = json_dumps(j, JSON_ENCODE_ANY);
			assert_string_equal(b.ptr, want);
			free(want);
			json_decref(j);
			pr_buf_release(&b);
		}
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_writer_as_jansson),
		cmocka_unit_test(test_writer_escapes_anywhere),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_null_and_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
