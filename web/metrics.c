#include "base/pr.h"

#include <pthread.h>
#include <time.h>

#include "engine/engine.h"
#include "metrics.h"

/* Names per family before the rest count as "other". */
#define MAX_NAMES 256

/* Seconds: a 304 poll is a few ms, a big fetch or a slow SMTP minutes. */
static const double bounds[] = { 0.01, 0.05, 0.1, 0.25, 0.5, 1,
				 2.5,  5,    10,  30,	60,  300 };
#define NR_BOUNDS PR_ARRAY_SIZE(bounds)

struct hist {
	char *name;
	uint64_t buckets[NR_BOUNDS]; /* each counts what is <= its bound */
	uint64_t count;
	double sum;
};

/* A counter by (name, result). */
struct count {
	char *name;
	const char *result; /* a literal */
	uint64_t n;
};

struct pr_metrics {
	pthread_mutex_t lock;
	uint64_t passes, events, versions, sent, rejected, refused, landed;
	size_t failing;
	double start, last_pass; /* epoch seconds */
	struct hist *polls_h, *deliveries_h;
	size_t nr_polls_h, alloc_polls_h, nr_deliveries_h, alloc_deliveries_h;
	struct count *polls, *hooks;
	size_t nr_polls, alloc_polls, nr_hooks, alloc_hooks;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct pr_metrics *pr_metrics_new(void)
{
	struct pr_metrics *m = pr_calloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	m->start = now_s();
	return m;
}

void pr_metrics_free(struct pr_metrics *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_polls_h; i++)
		free(m->polls_h[i].name);
	for (i = 0; i < m->nr_deliveries_h; i++)
		free(m->deliveries_h[i].name);
	for (i = 0; i < m->nr_polls; i++)
		free(m->polls[i].name);
	for (i = 0; i < m->nr_hooks; i++)
		free(m->hooks[i].name);
	free(m->polls_h);
	free(m->deliveries_h);
	free(m->polls);
	free(m->hooks);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* The histogram of `name` in a family, made when new. */
static struct hist *hist_of(struct hist **items, size_t *nr, size_t *alloc,
			    const char *name)
{
	size_t i;

	if (*nr >= MAX_NAMES)
		name = "other";
	for (i = 0; i < *nr; i++)
		if (!strcmp((*items)[i].name, name))
			return &(*items)[i];
	PR_ALLOC_GROW(*items, *nr + 1, *alloc);
	memset(&(*items)[*nr], 0, sizeof(**items));
	(*items)[*nr].name = pr_strdup(name);
	return &(*items)[(*nr)++];
}

static void observe(struct hist *h, double v)
{
	size_t i;

	for (i = 0; i < NR_BOUNDS; i++)
		if (v <= bounds[i])
			h->buckets[i]++;
	h->count++;
	h->sum += v;
}

static void count_up(struct count **items, size_t *nr, size_t *alloc,
		     const char *name, const char *result)
{
	size_t i;

	if (*nr >= MAX_NAMES * 8)
		name = "other";
	for (i = 0; i < *nr; i++) {
		if (!strcmp((*items)[i].name, name) &&
		    !strcmp((*items)[i].result, result)) {
			(*items)[i].n++;
			return;
		}
	}
	PR_ALLOC_GROW(*items, *nr + 1, *alloc);
	(*items)[*nr].name = pr_strdup(name);
	(*items)[*nr].result = result;
	(*items)[(*nr)++].n = 1;
}

void pr_metrics_pass(struct pr_metrics *m, const struct pr_engine_pass_stats *s,
		     size_t failing_sources)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->passes++;
	m->events += s->events;
	m->versions += s->new_versions;
	m->sent += s->sent;
	m->rejected += s->rejected;
	m->refused += s->refused;
	m->landed += s->landed;
	m->failing = failing_sources;
	m->last_pass = now_s();
	pthread_mutex_unlock(&m->lock);
}

void pr_metrics_poll(struct pr_metrics *m, const char *source, double seconds,
		     int err)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	observe(hist_of(&m->polls_h, &m->nr_polls_h, &m->alloc_polls_h, source),
		seconds);
	count_up(&m->polls, &m->nr_polls, &m->alloc_polls, source,
		 err < 0   ? "error"
		 : err > 0 ? "retry"
			   : "ok");
	pthread_mutex_unlock(&m->lock);
}

void pr_metrics_delivery(struct pr_metrics *m, const char *sink, double seconds)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	observe(hist_of(&m->deliveries_h, &m->nr_deliveries_h,
			&m->alloc_deliveries_h, sink),
		seconds);
	pthread_mutex_unlock(&m->lock);
}

void pr_metrics_hook(struct pr_metrics *m, const char *source,
		     const char *result)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	count_up(&m->hooks, &m->nr_hooks, &m->alloc_hooks, source ? source : "",
		 result);
	pthread_mutex_unlock(&m->lock);
}

/* A label value: backslash, double quote and newline escaped. */
static void add_label(struct pr_buf *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			pr_buf_addf(out, "\\%c", *v);
		else if (*v == '\n')
			pr_buf_adds(out, "\\n");
		else
			pr_buf_addch(out, *v);
	}
}

static void head(struct pr_buf *out, const char *name, const char *type,
		 const char *help)
{
	pr_buf_addf(out, "# HELP patchrelay_%s %s\n# TYPE patchrelay_%s %s\n",
		    name, help, name, type);
}

static void scalar(struct pr_buf *out, const char *name, const char *type,
		   const char *help, double v)
{
	head(out, name, type, help);
	pr_buf_addf(out, "patchrelay_%s %.17g\n", name, v);
}

static void counts(struct pr_buf *out, const char *name, const char *label,
		   const char *help, const struct count *c, size_t nr)
{
	size_t i;

	head(out, name, "counter", help);
	for (i = 0; i < nr; i++) {
		pr_buf_addf(out, "patchrelay_%s{%s=\"", name, label);
		add_label(out, c[i].name);
		pr_buf_addf(out, "\",result=\"%s\"} %llu\n", c[i].result,
			    (unsigned long long)c[i].n);
	}
}

static void hists(struct pr_buf *out, const char *name, const char *label,
		  const char *help, const struct hist *h, size_t nr)
{
	size_t i, j;

	head(out, name, "histogram", help);
	for (i = 0; i < nr; i++) {
		for (j = 0; j <= NR_BOUNDS; j++) {
			pr_buf_addf(out, "patchrelay_%s_bucket{%s=\"", name,
				    label);
			add_label(out, h[i].name);
			if (j < NR_BOUNDS)
				pr_buf_addf(
					out, "\",le=\"%g\"} %llu\n", bounds[j],
					(unsigned long long)h[i].buckets[j]);
			else
				pr_buf_addf(out, "\",le=\"+Inf\"} %llu\n",
					    (unsigned long long)h[i].count);
		}
		pr_buf_addf(out, "patchrelay_%s_sum{%s=\"", name, label);
		add_label(out, h[i].name);
		pr_buf_addf(out, "\"} %.9f\npatchrelay_%s_count{%s=\"",
			    h[i].sum, name, label);
		add_label(out, h[i].name);
		pr_buf_addf(out, "\"} %llu\n", (unsigned long long)h[i].count);
	}
}

int pr_metrics_render(struct pr_buf *out, struct pr_metrics *m, int64_t pending,
		      int64_t rejected)
{
	pthread_mutex_lock(&m->lock);
	scalar(out, "passes_total", "counter", "Passes of the run loop.",
	       (double)m->passes);
	scalar(out, "events_total", "counter",
	       "Versions the sources showed (new or seen before).",
	       (double)m->events);
	scalar(out, "versions_total", "counter", "New versions recorded.",
	       (double)m->versions);
	scalar(out, "mails_sent_total", "counter", "Messages delivered.",
	       (double)m->sent);
	scalar(out, "mails_rejected_total", "counter",
	       "Messages a sink refused for good.", (double)m->rejected);
	scalar(out, "versions_refused_total", "counter",
	       "Versions a route's step failed: sent nowhere.",
	       (double)m->refused);
	scalar(out, "versions_landed_total", "counter",
	       "Versions found landed on a watched branch.", (double)m->landed);
	scalar(out, "mails_pending", "gauge",
	       "Messages the state store holds pending (to retry).",
	       (double)pending);
	scalar(out, "mails_rejected_stored", "gauge",
	       "Messages the state store holds rejected for good.",
	       (double)rejected);
	scalar(out, "sources_failing", "gauge",
	       "Sources whose last poll failed.", (double)m->failing);
	scalar(out, "start_time_seconds", "gauge",
	       "When the daemon started, seconds since the epoch.", m->start);
	scalar(out, "last_pass_time_seconds", "gauge",
	       "When the last pass ended, seconds since the epoch (0: none).",
	       m->last_pass);
	counts(out, "polls_total", "source",
	       "Polls of a source by route, by what they returned.", m->polls,
	       m->nr_polls);
	counts(out, "hooks_total", "source", "Webhooks received, by result.",
	       m->hooks, m->nr_hooks);
	hists(out, "poll_duration_seconds", "source",
	      "Seconds a route's poll took, handling what it found included.",
	      m->polls_h, m->nr_polls_h);
	hists(out, "delivery_duration_seconds", "sink",
	      "Seconds a sink took to take one version.", m->deliveries_h,
	      m->nr_deliveries_h);
	pthread_mutex_unlock(&m->lock);
	/* the buffer has no cap: nothing above could have failed */
	return 0;
}
