#include "base/pr.h"

#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "base/strlist.h"
#include "engine/cfg.h"
#include "commands.h"
#include "engine/engine.h"
#include "engine/graph.h"
#include "engine/store.h"
#include "metrics.h"
#include "sdnotify.h"
#include "web.h"

#define DEFAULT_INTERVAL 30
#define MAX_BACKOFF 16
/* a backed-off source is still polled at least once an hour */
#define MAX_BACKOFF_MS (3600 * 1000)
/* a source its hooks make poll at once is polled at most once a second */
#define HOOK_GAP_MS 1000

/*
 * The one mutable global: a signal handler can only talk to the loop
 * through a sig_atomic_t.  0: run, else the last signal seen.
 */
static volatile sig_atomic_t run_signal;

static void on_signal(int sig)
{
	run_signal = sig;
}

static void usage(void)
{
	fprintf(stderr, "usage: patchrelay run -c FILE [--once] "
			"[--interval SECONDS] [--dry-run [--dry-run-dir DIR]]\n"
			"                      [--log-format=text|json]\n");
}

static int load(struct pr_graph **out, const char *file)
{
	struct pr_strlist problems = { 0 };
	size_t i;
	int err;

	err = pr_graph_load(out, file, pr_builtin_registry(), &problems);
	if (err == 0 && (*out)->log_level) {
		enum pr_log_level level;

		/* validated by the loader */
		if (pr_log_level_parse(&level, (*out)->log_level) == 0)
			pr_log_set_level(level);
	}
	if (err == 0 && (err = pr_engine_open(*out)) < 0) {
		/* an open() failure is a config error naming the instance */
		pr_graph_free(*out);
		*out = NULL;
		pr_log_error(NULL, "%s", pr_error_message());
	} else if (err < 0) {
		for (i = 0; i < problems.nr; i++)
			pr_log_error(NULL, "%s", problems.items[i]);
		pr_log_error(NULL, "%s", pr_error_message());
	}
	pr_strlist_release(&problems);
	return err;
}

/*
 * The schedule of one source: when it is next due, and how it has been
 * failing.  The run loop keeps one per source a route polls, rebuilt on a
 * reload (a source keeping its name keeps its state).
 */
struct sched {
	const char *name; /* the graph's */
	const char *prefix; /* its log prefix */
	int64_t interval_ms;
	int64_t next_due; /* CLOCK_MONOTONIC ms */
	int64_t backoff; /* 1, 2, 4 .. MAX_BACKOFF intervals */
	int64_t polled_at; /* when its last poll ended, 0: never */
	int64_t hold_until; /* rate limited until then, 0: not */
	bool hooked; /* a hook asked for its next poll */
	unsigned failures; /* in a row */
	char *last_error; /* of the last failure, NULL: none */
	/* what this pass's polls said; several routes may poll it */
	bool polled;
	int err;
	int64_t retry_at;
	char *error;
};

struct schedule {
	struct sched *items;
	size_t nr;
	const char **due; /* names, for pr_engine_opts */
	size_t nr_due;
	const char **hooked; /* of those, the ones hooks asked for */
	size_t nr_hooked;
	struct pr_metrics *metrics;
	int64_t mark; /* when the pass began or the last poll ended */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sched_release(struct sched *s)
{
	free(s->last_error);
	free(s->error);
}

static void schedule_release(struct schedule *sc)
{
	size_t i;

	for (i = 0; i < sc->nr; i++)
		sched_release(&sc->items[i]);
	free(sc->items);
	free(sc->due);
	free(sc->hooked);
	sc->items = NULL;
	sc->due = NULL;
	sc->hooked = NULL;
	sc->nr = sc->nr_due = sc->nr_hooked = 0;
}

static struct sched *schedule_find(struct schedule *sc, const char *name)
{
	size_t i;

	for (i = 0; i < sc->nr; i++)
		if (!strcmp(sc->items[i].name, name))
			return &sc->items[i];
	return NULL;
}

/*
 * One entry per source some route polls, due now; a source of `old` with
 * the same name keeps its due time and failures.  `old` is released.
 */
static void schedule_build(struct schedule *sc, const struct pr_graph *g,
			   int64_t default_ms, struct schedule *old)
{
	size_t i;

	sc->nr = sc->nr_due = sc->nr_hooked = 0;
	sc->items = pr_calloc(g->nr_routes + 1, sizeof(*sc->items));
	sc->due = pr_calloc(g->nr_routes + 1, sizeof(*sc->due));
	sc->hooked = pr_calloc(g->nr_routes + 1, sizeof(*sc->hooked));
	for (i = 0; i < g->nr_routes; i++) {
		const struct pr_graph_node *n =
			pr_graph_node(g, "source", g->routes[i].from);
		struct sched *s, *was;

		if (!n || schedule_find(sc, n->inst.name))
			continue;
		s = &sc->items[sc->nr++];
		s->name = n->inst.name;
		s->prefix = n->inst.prefix;
		s->interval_ms = n->interval_ms ? n->interval_ms : default_ms;
		s->next_due = now_ms();
		s->backoff = 1;
		was = old ? schedule_find(old, s->name) : NULL;
		if (was) {
			s->next_due = was->next_due;
			s->backoff = was->backoff;
			s->polled_at = was->polled_at;
			s->hold_until = was->hold_until;
			s->hooked = was->hooked;
			s->failures = was->failures;
			s->last_error = was->last_error;
			was->last_error = NULL;
		}
	}
	if (old)
		schedule_release(old);
}

/* The engine's report of one poll: kept until the pass ends. */
static void on_polled(const char *source, int err, int64_t retry_at,
		      void *payload)
{
	struct schedule *sc = payload;
	struct sched *s = schedule_find(sc, source);
	int64_t now = now_ms();

	/* polls run one after another: this one began at the mark */
	pr_metrics_poll(sc->metrics, source, (double)(now - sc->mark) / 1000,
			err);
	sc->mark = now;
	if (!s)
		return;
	s->polled = true;
	/* of several routes, a failure outweighs a retry, a retry success */
	if (err < 0 && s->err >= 0) {
		free(s->error);
		s->error = pr_strdup(pr_error_message());
		s->err = err;
	} else if (err > 0 && s->err == 0) {
		s->err = err;
	}
	if (retry_at > s->retry_at)
		s->retry_at = retry_at;
}

static bool power_of_two(unsigned n)
{
	return n && !(n & (n - 1));
}

/*
 * After a pass: set each polled source's next due time, backing off while
 * it fails (or leaves mails to retry), and complain at a limited rate:
 * the first failure (and a new error) at error level, then "still
 * failing" at the 2nd, 4th, 8th... failure in a row, and one line when it
 * recovers.
 */
static void schedule_update(struct schedule *sc)
{
	int64_t now = now_ms(), wait;
	size_t i;

	for (i = 0; i < sc->nr; i++) {
		struct sched *s = &sc->items[i];

		if (!s->polled)
			continue;
		if (s->err < 0) {
			s->failures++;
			if (s->failures == 1 || !s->last_error ||
			    strcmp(s->last_error, s->error)) {
				pr_log_error(s->prefix, "%s", s->error);
			} else if (power_of_two(s->failures)) {
				pr_log_warn(s->prefix,
					    "still failing (%u times): %s",
					    s->failures, s->error);
			}
			free(s->last_error);
			s->last_error = s->error;
			s->error = NULL;
		} else if (s->err == 0 && s->failures) {
			pr_log_info(s->prefix, "recovered after %u failure(s)",
				    s->failures);
			s->failures = 0;
			free(s->last_error);
			s->last_error = NULL;
		}
		if (s->err)
			s->backoff = s->backoff < MAX_BACKOFF ? s->backoff * 2
							      : s->backoff;
		else
			s->backoff = 1;
		wait = s->interval_ms * s->backoff;
		if (s->backoff > 1 && wait > MAX_BACKOFF_MS)
			wait = s->interval_ms > MAX_BACKOFF_MS ? s->interval_ms
							       : MAX_BACKOFF_MS;
		s->hold_until = 0;
		if (s->retry_at) {
			/* a rate limit is wall-clock time; the loop's is not */
			int64_t until =
				(s->retry_at - (int64_t)time(NULL)) * 1000;

			/* not even a hook may make it poll before that */
			if (until > 0)
				s->hold_until = now + until;

			if (until > wait) {
				pr_log_info(s->prefix,
					    "rate limited: next poll in %llds",
					    (long long)(until / 1000));
				wait = until;
			}
		}
		s->next_due = now + wait;
		s->polled_at = now;
		s->polled = false;
		s->hooked = false;
		s->err = 0;
		s->retry_at = 0;
	}
}

/* Sources failing now, for the metrics. */
static size_t schedule_failing(const struct schedule *sc)
{
	size_t i, n = 0;

	for (i = 0; i < sc->nr; i++)
		n += sc->items[i].failures > 0;
	return n;
}

/*
 * The sources hooks asked for are due now: unless polled in the last
 * HOOK_GAP_MS (a burst of hooks costs a poll a second, not one a hook) or
 * rate limited.  Their failures and backoff stay as they are.
 */
static void schedule_hooked(struct schedule *sc, struct pr_web *web)
{
	struct pr_strlist names = { 0 };
	int64_t now = now_ms(), due;
	size_t i;

	pr_web_take(web, &names);
	for (i = 0; i < names.nr; i++) {
		struct sched *s = schedule_find(sc, names.items[i]);

		if (!s)
			continue;
		due = now;
		if (s->polled_at && s->polled_at + HOOK_GAP_MS > due)
			due = s->polled_at + HOOK_GAP_MS;
		if (s->hold_until > due)
			due = s->hold_until;
		if (due < s->next_due)
			s->next_due = due;
		s->hooked = true;
	}
	pr_strlist_release(&names);
}

/* A sink took a version: how long it took, for the metrics. */
static void on_delivered(const char *sink, size_t sent, int64_t ms,
			 void *payload)
{
	struct schedule *sc = payload;

	PR_UNUSED(sent);
	pr_metrics_delivery(sc->metrics, sink, (double)ms / 1000);
}

/* Tell systemd how the service stands; a failure is only a warning. */
static void notify(const char *state)
{
	if (pr_sd_notify(state))
		pr_log_warn("run", "%s", pr_error_message());
}

/* A webhook secret with no web server to take its hooks: say so once. */
static void warn_unheard(const struct pr_graph *g)
{
	size_t i;

	for (i = 0; i < g->nr_nodes && !g->http; i++)
		if (g->nodes[i].webhook_secret)
			pr_log_warn(g->nodes[i].inst.prefix,
				    "webhook-secret set but core.http is not: "
				    "no hooks are taken");
}

/* Fill sc->due with the sources due now; ms until the next one due. */
static int64_t schedule_due(struct schedule *sc)
{
	int64_t now = now_ms(), next = INT64_MAX;
	size_t i;

	sc->nr_due = sc->nr_hooked = 0;
	for (i = 0; i < sc->nr; i++) {
		if (sc->items[i].next_due <= now) {
			sc->due[sc->nr_due++] = sc->items[i].name;
			if (sc->items[i].hooked)
				sc->hooked[sc->nr_hooked++] = sc->items[i].name;
		} else if (sc->items[i].next_due - now < next)
			next = sc->items[i].next_due - now;
	}
	return sc->nr_due ? 0 : next;
}

/* Sleep `ms` (at most) in short steps, returning early on a signal. */
static void nap(int64_t ms)
{
	struct timespec ts = { 0, 100 * 1000000L };

	if (ms < 100)
		ts.tv_nsec = (long)(ms > 0 ? ms : 1) * 1000000L;
	nanosleep(&ts, NULL);
}

/*
 * patchrelay run -c FILE [--once] [--interval SECONDS] [--dry-run
 * [--dry-run-dir DIR]]: poll every route's source, deliver to its sinks,
 * record it all in the state store; loop until SIGTERM or SIGINT (the pass
 * in flight is finished), reloading the config on SIGHUP when the new one
 * validates.  --dry-run writes the mails to stdout (or DIR) instead of the
 * sinks and moves no cursor; it implies --once, since a loop would only
 * print the same mails again.
 *
 * Each source is polled on its own schedule: its `interval`, else
 * [defaults] interval, else --interval; a pass polls only the sources due.
 */
int cmd_run(int argc, char **argv)
{
	struct pr_engine_pass_stats stats;
	struct pr_engine_opts opts = { false, STDOUT_FILENO, NULL };
	struct schedule sc = { 0 };
	struct pr_graph *g = NULL;
	struct pr_store *st = NULL;
	struct pr_web *web = NULL;
	struct sigaction sa;
	const char *file = NULL, *state;
	long interval = DEFAULT_INTERVAL;
	bool once = false;
	int i, ret = PR_EXIT_OK;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--once")) {
			once = true;
		} else if (!strcmp(argv[i], "--dry-run")) {
			opts.dry_run = true;
		} else if (!strcmp(argv[i], "--dry-run-dir") && i + 1 < argc) {
			opts.dry_run_dir = argv[++i];
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			file = argv[++i];
		} else if (!strncmp(argv[i], "--log-format=", 13) ||
			   (!strcmp(argv[i], "--log-format") && i + 1 < argc)) {
			enum pr_log_format format;
			const char *name = argv[i][12] == '=' ? argv[i] + 13
							      : argv[++i];

			if (pr_log_format_parse(&format, name) < 0) {
				pr_cli_error(NULL);
				usage();
				return PR_EXIT_USAGE;
			}
			/* before anything is logged, the config's errors too */
			pr_log_set_format(format);
		} else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
			char *end;

			errno = 0;
			interval = strtol(argv[++i], &end, 10);
			/* "10x" or "99999999999999999999" is not an interval */
			if (interval < 1 || *end || errno ||
			    interval > INT32_MAX) {
				usage();
				return PR_EXIT_USAGE;
			}
		} else {
			usage();
			return PR_EXIT_USAGE;
		}
	}
	if (!file || (opts.dry_run_dir && !opts.dry_run)) {
		usage();
		return PR_EXIT_USAGE;
	}
	if (opts.dry_run)
		once = true;
	if (load(&g, file) < 0)
		return PR_EXIT_USAGE;
	state = g->state ? g->state : PR_CLI_DEFAULT_STATE;
	sc.metrics = pr_metrics_new();
	if (pr_store_open(&st, state) < 0 ||
	    /* one pass needs no server: it would be gone before a hook */
	    (!once && pr_web_start(&web, g, state, sc.metrics) < 0)) {
		pr_log_error(NULL, "%s", pr_error_message());
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	if (!once)
		warn_unheard(g);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	schedule_build(&sc, g, (int64_t)interval * 1000, NULL);
	opts.polled = on_polled;
	opts.delivered = on_delivered;
	opts.payload = &sc;
	if (!once)
		notify("READY=1");
	for (;;) {
		int64_t wait;
		int err;

		sc.mark = now_ms();
		if (!once) {
			/* every source is due at the start of the loop */
			schedule_due(&sc);
			opts.sources = sc.due;
			opts.nr_sources = sc.nr_due;
			opts.hooked = sc.hooked;
			opts.nr_hooked = sc.nr_hooked;
		}
		err = pr_engine_pass(&stats, g, st, &opts);
		schedule_update(&sc);
		pr_metrics_pass(sc.metrics, &stats, schedule_failing(&sc));
		/* a pass that did something says so; an idle one is debug */
		pr_log(once || stats.events || stats.sent || stats.pending ||
				       stats.refused || stats.rejected ||
				       stats.landed || stats.owed
			       ? PR_LOG_INFO
			       : PR_LOG_DEBUG,
		       "run",
		       "pass: %zu version(s) seen, %zu new, %zu mail(s) "
		       "sent, %zu pending, %zu refused, %zu failing "
		       "source(s), %zu mail(s) rejected, %zu landed, "
		       "%zu report(s) owed",
		       stats.events, stats.new_versions, stats.sent,
		       stats.pending, stats.refused, stats.failed_sources,
		       stats.rejected, stats.landed, stats.owed);
		if (once) {
			if (err < 0 || stats.pending || stats.owed)
				ret = PR_EXIT_RUNTIME;
			break;
		}
		/* until a source is due, a hook comes or a signal */
		for (;;) {
			if (web)
				schedule_hooked(&sc, web);
			if ((wait = schedule_due(&sc)) <= 0 || run_signal)
				break;
			if (web)
				pr_web_wait(web, wait < 100 ? wait : 100);
			else
				nap(wait);
		}
		if (run_signal == SIGHUP) {
			struct pr_graph *ng = NULL;

			run_signal = 0;
			notify("RELOADING=1");
			if (load(&ng, file) == 0) {
				struct schedule old = sc;

				/* the old names live until the old graph goes */
				schedule_build(&sc, ng,
					       (int64_t)interval * 1000, &old);
				pr_web_update(web, ng);
				pr_engine_close(g);
				pr_graph_free(g);
				g = ng;
				pr_log_info("run", "reloaded '%s'", file);
				warn_unheard(g);
			} else {
				pr_log_warn("run",
					    "'%s' does not validate: "
					    "kept the running config",
					    file);
			}
			notify("READY=1");
		}
		if (run_signal == SIGTERM || run_signal == SIGINT)
			break;
	}
	if (!once)
		notify("STOPPING=1");
done:
	pr_web_stop(web);
	schedule_release(&sc);
	pr_metrics_free(sc.metrics);
	pr_store_free(st);
	pr_engine_close(g);
	pr_graph_free(g);
	return ret;
}
