#include "base/pr.h"

#include <sys/stat.h>

#include "commands.h"
#include "checks.h"
#include "plugins.h"
#include "connectors.h"
#include "engine/engine.h"
#include "git/format.h"
#include "git/gitrepo.h"
#include "model/model.h"
#include "engine/store.h"

#define DEMO_DIR "patchrelay-demo"
#define DEMO_REPO DEMO_DIR "/repo"
#define DEMO_STATE DEMO_DIR "/state.db"
#define DEMO_MAILDIR DEMO_DIR "/maildir"

/*
 * The throwaway repository: main with one commit, topic with a three-patch
 * series on it.  Fixed names and dates make the series the same on every
 * run, so a second run finds the same version and sends nothing.
 */
static const char demo_script[] =
	"set -e\n"
	"export GIT_AUTHOR_NAME='Ada Demo' GIT_AUTHOR_EMAIL=ada@example.org\n"
	"export GIT_COMMITTER_NAME='Ada Demo'\n"
	"export GIT_COMMITTER_EMAIL=ada@example.org\n"
	"export GIT_AUTHOR_DATE='1796299200 +0000'\n"
	"export GIT_COMMITTER_DATE='1796299200 +0000'\n"
	"export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent\n"
	"git init -q -b main " DEMO_REPO "\n"
	"cd " DEMO_REPO "\n"
	"printf 'A tiny program for the patchrelay demo.\\n' > README\n"
	"git add README && git commit -q -m 'Initial commit'\n"
	"git checkout -q -b topic\n"
	"printf '#include <stdio.h>\\n\\nint main(void)\\n{\\n"
	"\\treturn 0;\\n}\\n' > hello.c\n"
	"git add hello.c && git commit -q -m 'hello: add an empty program' "
	"-m 'A start for the demo series.'\n"
	"sed -i 's/\\treturn 0;/\\tputs(\"hello\");\\n\\treturn 0;/' hello.c\n"
	"git commit -q -a -m 'hello: say hello' "
	"-m 'Signed-off-by: Ada Demo <ada@example.org>'\n"
	"printf 'Build with: cc hello.c\\n' >> README\n"
	"git commit -q -a -m 'README: say how to build'\n"
	"git checkout -q main\n";

static int make_repo(void)
{
	struct stat sb;
	int rc;

	if (stat(DEMO_REPO, &sb) == 0)
		return 0;
	if (mkdir(DEMO_DIR, 0755) < 0 && stat(DEMO_DIR, &sb) < 0)
		return pr_error(PR_EIO, "demo: cannot create '%s'", DEMO_DIR);
	fflush(stdout);
	rc = system(demo_script);
	if (rc != 0)
		return pr_error(PR_EIO,
				"demo: creating the repository '%s' failed",
				DEMO_REPO);
	return 0;
}

/*
 * patchrelay demo: with no configuration, a git series in a throwaway
 * repository goes into a maildir under ./patchrelay-demo, with the state
 * in ./patchrelay-demo/state.db; run again, it sends nothing twice.
 */
int cmd_demo(int argc, char **argv)
{
	struct pr_version *v = NULL;
	struct pr_store *st = NULL;
	struct pr_store_version sv;
	struct pr_maildir_ctx ctx = { DEMO_MAILDIR };
	struct pr_instance inst = { "inbox", "sink", NULL,
				    &ctx,    NULL,   "maildir:inbox" };
	struct pr_engine_version ev;
	struct pr_engine_stats stats;
	char **mails = NULL;
	size_t *lens = NULL;
	struct pr_size_limit_ctx limits;
	struct pr_report report = PR_REPORT_INIT;
	char fp[41], text_fp[41];
	int ret = PR_EXIT_RUNTIME;

	if (argc > 1) {
		fprintf(stderr, "usage: patchrelay demo\n");
		return PR_EXIT_USAGE;
	}
	PR_UNUSED(argv);
	if (make_repo() < 0 ||
	    pr_gitrepo_load(&v, DEMO_REPO, "main..topic") < 0 ||
	    pr_store_fingerprint(fp, v) < 0 ||
	    pr_store_text_fingerprint(text_fp, v) < 0 ||
	    pr_store_open(&st, DEMO_STATE) < 0 ||
	    pr_store_record_version(&sv, st, "demo", "topic", fp, text_fp,
				    v->nr, 1) < 0) {
		pr_cli_error("demo");
		goto done;
	}
	printf("patchrelay demo: series 'topic' of %s (main..topic): %zu "
	       "patches, version %d (%s)\n",
	       DEMO_REPO, v->nr, sv.number, sv.is_new ? "new" : "unchanged");
	pr_size_limit_defaults(&limits);
	if (pr_size_limit_check(&report, "size-limit", &limits, v) < 0) {
		pr_cli_error("demo: size-limit");
		goto done;
	}
	printf("  size-limit: %s\n",
	       pr_verdict_name(pr_report_verdict(&report)));
	if (pr_report_verdict(&report) == PR_VERDICT_FAIL) {
		printf("  refused: nothing delivered\n");
		ret = PR_EXIT_VERDICT;
		goto done;
	}

	if (pr_engine_render(&mails, &lens, v) < 0) {
		pr_cli_error("demo");
		goto done;
	}
	ev.origin = "demo";
	ev.key = "topic";
	ev.series_id = sv.series_id;
	ev.number = sv.number;
	ev.fingerprint = fp;
	if (pr_engine_deliver(&stats, st, &ev, &inst, &pr_connector_maildir,
			      (const char *const *)mails, lens, v->nr) < 0) {
		pr_cli_error("demo");
		goto done;
	}
	printf("  maildir '%s': delivered %zu mail(s), %zu already there, "
	       "%zu pending\n",
	       DEMO_MAILDIR, stats.sent, stats.skipped, stats.pending);
	printf("look at: %s/new/ (e.g. mutt -f %s)\n", DEMO_MAILDIR,
	       DEMO_MAILDIR);
	printf("state:   %s (patchrelay status --state %s)\n", DEMO_STATE,
	       DEMO_STATE);
	ret = stats.pending ? PR_EXIT_RUNTIME : PR_EXIT_OK;
done:
	pr_report_release(&report);
	pr_engine_render_free(mails, lens, v ? v->nr : 0);
	pr_store_free(st);
	pr_version_free(v);
	return ret;
}
