#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "hook.h"

/*
 * GitHub's own example (docs "Validating webhook deliveries"): secret
 * "It's a Secret to Everybody", payload "Hello, World!".
 */
static const char gh_secret[] = "It's a Secret to Everybody";
static const char gh_body[] = "Hello, World!";
static const char gh_sig[] = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d"
			     "7586c22c46f4379c8b043e17";

/* Check a hook whose body is `body`; the verdict, id and hint. */
static int check(struct pr_hook_req *r, const char *body, struct pr_buf *id,
		 struct pr_buf *hint)
{
	int v;

	pr_buf_reset(id);
	pr_buf_reset(hint);
	r->mac = pr_hook_mac_new(r->secret);
	pr_hook_mac_update(r->mac, body, strlen(body));
	r->body = body;
	r->body_len = strlen(body);
	v = pr_hook_check(id, hint, r);
	pr_hook_mac_free(r->mac);
	r->mac = NULL;
	return v;
}

static void test_github(void **state)
{
	struct pr_hook_req r = { PR_HOOK_GITHUB, gh_secret };
	struct pr_buf id = PR_BUF_INIT, hint = PR_BUF_INIT;
	char upper[sizeof(gh_sig)];
	size_t i;

	r.signature = gh_sig;
	r.delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958";
	r.event = "issue_comment";
	assert_int_equal(check(&r, gh_body, &id, &hint), PR_HOOK_POLL);
	assert_string_equal(id.ptr, "72d3162e-cc78-11e3-81ab-4c9367dc0958");
	/* the body is no JSON: the event alone */
	assert_string_equal(hint.ptr, "issue_comment");
	/* hex in capitals is the same signature */
	for (i = 0; i < sizeof(gh_sig); i++)
		upper[i] = i > 6 && gh_sig[i] >= 'a' && gh_sig[i] <= 'f'
				   ? (char)(gh_sig[i] - 32)
				   : gh_sig[i];
	r.signature = upper;
	assert_int_equal(check(&r, gh_body, &id, &hint), PR_HOOK_POLL);
	/* one byte of the body more, another secret, no or a bad header */
	r.signature = gh_sig;
	assert_int_equal(check(&r, "Hello, World!!", &id, &hint),
			 PR_HOOK_UNAUTHORIZED);
	r.secret = "It's a secret to everybody";
	assert_int_equal(check(&r, gh_body, &id, &hint), PR_HOOK_UNAUTHORIZED);
	r.secret = gh_secret;
	r.signature = NULL;
	assert_int_equal(check(&r, gh_body, &id, &hint), PR_HOOK_UNAUTHORIZED);
	r.signature = "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59";
	assert_int_equal(check(&r, gh_body, &id, &hint), PR_HOOK_UNAUTHORIZED);
	/* a ping is valid and asks for nothing */
	r.signature = gh_sig;
	r.event = "ping";
	assert_int_equal(check(&r, gh_body, &id, &hint), PR_HOOK_PING);
	pr_buf_release(&id);
	pr_buf_release(&hint);
}

static void test_signature_forms(void **state)
{
	unsigned char d[32];

	assert_int_equal(pr_hook_parse_signature(d, gh_sig), 0);
	assert_int_equal(d[0], 0x75);
	assert_int_equal(d[31], 0x17);
	assert_int_equal(pr_hook_parse_signature(d, NULL), PR_EINVAL);
	assert_int_equal(pr_hook_parse_signature(d, "sha256="), PR_EINVAL);
	assert_int_equal(pr_hook_parse_signature(d, gh_sig + 7), PR_EINVAL);
	/* one digit short, one too many, not hex */
	assert_int_equal(pr_hook_parse_signature(
				 d, "sha256=757107ea0eb2509fc211221cce984b8a37"
				    "570b6d7586c22c46f4379c8b043e1"),
			 PR_EINVAL);
	assert_int_equal(pr_hook_parse_signature(
				 d, "sha256=757107ea0eb2509fc211221cce984b8a37"
				    "570b6d7586c22c46f4379c8b043e170"),
			 PR_EINVAL);
	assert_int_equal(pr_hook_parse_signature(
				 d, "sha256=757107ea0eb2509fc211221cce984b8a37"
				    "570b6d7586c22c46f4379c8b043e1g"),
			 PR_EINVAL);
	assert_int_equal(pr_hook_parse_signature(
				 d, "SHA256=757107ea0eb2509fc211221cce984b8a37"
				    "570b6d7586c22c46f4379c8b043e17"),
			 PR_EINVAL);
}

static void test_tokens_and_ids(void **state)
{
	struct pr_hook_req r = { PR_HOOK_GITLAB, "tok" };
	struct pr_buf id = PR_BUF_INIT, hint = PR_BUF_INIT;
	const char *mr =
		"{\"object_kind\":\"merge_request\","
		"\"object_attributes\":{\"iid\":7,\"action\":\"open\"}}";

	r.token = "tok";
	r.event = "Merge Request Hook";
	r.delivery = "idem-1";
	assert_int_equal(check(&r, mr, &id, &hint), PR_HOOK_POLL);
	assert_string_equal(id.ptr, "idem-1");
	assert_string_equal(hint.ptr, "Merge Request Hook open !7");
	/* a token that is a prefix, longer, empty or absent */
	r.token = "to";
	assert_int_equal(check(&r, mr, &id, &hint), PR_HOOK_UNAUTHORIZED);
	r.token = "tokk";
	assert_int_equal(check(&r, mr, &id, &hint), PR_HOOK_UNAUTHORIZED);
	r.token = "";
	assert_int_equal(check(&r, mr, &id, &hint), PR_HOOK_UNAUTHORIZED);
	r.token = NULL;
	assert_int_equal(check(&r, mr, &id, &hint), PR_HOOK_UNAUTHORIZED);

	/* gerrit: no delivery id: the body's SHA-256 stands for one */
	r.kind = PR_HOOK_GERRIT;
	r.token = "tok";
	r.event = NULL;
	r.delivery = NULL;
	assert_int_equal(check(&r, "abc", &id, &hint), PR_HOOK_POLL);
	assert_string_equal(id.ptr, "ba7816bf8f01cfea414140de5dae2223b00361a3"
				    "96177a9cb410ff61f20015ad");
	assert_string_equal(hint.ptr, "");
	assert_int_equal(check(&r,
			       "{\"type\":\"patchset-created\","
			       "\"change\":{\"number\":12}}",
			       &id, &hint),
			 PR_HOOK_POLL);
	assert_string_equal(hint.ptr, "patchset-created change 12");
	/* a delivery id with a control byte or too long is none */
	r.delivery = "a\nb";
	assert_int_equal(check(&r, "abc", &id, &hint), PR_HOOK_POLL);
	assert_int_equal(id.len, 64);
	r.delivery = "x12345678901234567890123456789012345678901234567890123456"
		     "7890123456789012345678901234567890123456789012345678901"
		     "2345678901234567890";
	assert_int_equal(check(&r, "abc", &id, &hint), PR_HOOK_POLL);
	assert_int_equal(id.len, 64);
	/* a hint is printable, whatever the sender put in it */
	r.delivery = NULL;
	assert_int_equal(check(&r, "{\"type\":\"a\\u001b[31mb\"}", &id, &hint),
			 PR_HOOK_POLL);
	assert_string_equal(hint.ptr, "a?[31mb");
	pr_buf_release(&id);
	pr_buf_release(&hint);
}

static void test_types(void **state)
{
	assert_int_equal(pr_hook_kind_of("github"), PR_HOOK_GITHUB);
	assert_int_equal(pr_hook_kind_of("gitlab"), PR_HOOK_GITLAB);
	assert_int_equal(pr_hook_kind_of("gerrit"), PR_HOOK_GERRIT);
	assert_int_equal(pr_hook_kind_of("mbox"), PR_HOOK_NONE);
}

static void test_seen(void **state)
{
	struct pr_hook_seen *s = pr_hook_seen_new();
	char id[32];
	int i;

	assert_false(pr_hook_seen_add(s, "gh", "1"));
	assert_true(pr_hook_seen_add(s, "gh", "1"));
	/* per source, and no two pairs run together */
	assert_false(pr_hook_seen_add(s, "gl", "1"));
	assert_false(pr_hook_seen_add(s, "g", "h1"));
	/* the oldest is forgotten once the ring is full */
	for (i = 0; i < PR_LIMIT_HOOK_SEEN; i++) {
		snprintf(id, sizeof(id), "n%d", i);
		assert_false(pr_hook_seen_add(s, "gh", id));
	}
	assert_false(pr_hook_seen_add(s, "gh", "1"));
	assert_true(pr_hook_seen_add(s, "gh", "n4095"));
	pr_hook_seen_free(s);
	pr_hook_seen_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github),
		cmocka_unit_test(test_signature_forms),
		cmocka_unit_test(test_tokens_and_ids),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
