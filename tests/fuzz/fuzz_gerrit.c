/*
 * The gerrit parsers: the first byte picks one, the rest is its input.
 * 0: a REST /changes/ answer (")]}'" line and all), 1: a stream-events
 * line, 2: the text of a push to refs/for, 3: an AccountInfo (each modulo
 * 4); 0xff alone: a change's comments.
 */
#include "base/pr.h"
#include "gerrit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_changes(const char *text, size_t len)
{
	struct pr_gerrit_change_list l = { 0 };
	size_t i, j;

	if (!pr_gerrit_parse_changes(&l, text, len))
		for (i = 0; i < l.nr; i++) {
			const struct pr_gerrit_change *c = &l.items[i];

			/* what the source relies on */
			if (c->number <= 0)
				abort();
			for (j = 1; j < c->nr_revs; j++)
				if (c->revs[j - 1].number > c->revs[j].number)
					abort();
			for (j = 0; j < c->nr_msgs; j++)
				if (!c->msgs[j].id || !c->msgs[j].date)
					abort();
			if (c->current[0] && strlen(c->current) != 40)
				abort();
		}
	pr_gerrit_change_list_release(&l);
}

static void fuzz_event(const char *text, size_t len)
{
	struct pr_gerrit_event e;

	if (!pr_gerrit_event_parse(&e, text, len)) {
		if (!e.type || e.change < 0 || e.ps < 0)
			abort();
		pr_gerrit_event_release(&e);
	}
}

static void fuzz_push(const char *text, size_t len)
{
	struct pr_gerrit_push_answer a = { 0 };
	size_t i;

	if (!pr_gerrit_push_parse(&a, text, len))
		for (i = 0; i < a.nr; i++)
			if (a.changes[i].number <= 0 || !a.changes[i].url ||
			    strpbrk(a.changes[i].url, " \t\r\n"))
				abort();
	pr_gerrit_push_answer_release(&a);
}

static void fuzz_comments(const char *text, size_t len)
{
	struct pr_gerrit_comment_list l = { 0 };
	size_t i;

	if (!pr_gerrit_parse_comments(&l, text, len))
		for (i = 0; i < l.nr; i++)
			if (!l.items[i].id || !l.items[i].path ||
			    l.items[i].line < 0)
				abort();
	pr_gerrit_comment_list_release(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_gerrit_account a = { 0 };
	const char *text = (const char *)data + 1;

	if (size < 1)
		return 0;
	if (data[0] == 0xff) {
		fuzz_comments(text, size - 1);
		pr_error_clear();
		return 0;
	}
	switch (data[0] % 4) {
	case 0:
		fuzz_changes(text, size - 1);
		break;
	case 1:
		fuzz_event(text, size - 1);
		break;
	case 2:
		fuzz_push(text, size - 1);
		break;
	default:
		pr_gerrit_parse_account(&a, text, size - 1);
		pr_gerrit_account_release(&a);
	}
	pr_error_clear();
	return 0;
}
