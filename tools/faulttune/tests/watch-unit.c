// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of faulttune watch's line (watchline.c), its exposition
 * (prom.c) and of the address
 * syntax of its endpoint (httpd.c): states built here, the lines they must
 * give known by hand.  No root, no tracefs, no network but a socket bound
 * on 127.0.0.1 port 0.  Ends with "N passed, N failed".  promtool and the
 * servers that read these lines run in tests/host-watch.sh.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "watch.h"
#include "check.h"

#define HAS(text, s) CHECK(strstr((text), (s)) != NULL, "no '%s' in:\n%s", (s), (text))
#define HASNT(text, s) CHECK(strstr((text), (s)) == NULL, "'%s' in:\n%s", (s), (text))

static void patched_state(struct ft_watch_state *w)
{
	memset(w, 0, sizeof(*w));
	w->window_s = 5;
	w->have_window = 1;
	w->end_unix = 1796105547;
	w->acq = 1000;
	w->contended = 40;
	w->coll_ratio = 0.0125;
	w->share_ratio = 0.5;
	w->size = 64;
	w->rec = 256;
	w->pred_ratio = 0.0075;
	w->windows = 3;
	w->lost_total = 7;
	w->overrides_total = 1;
	w->hop[FT_HOP_FAULT].acq = 2500;
	w->hop[FT_HOP_FAULT].contended = 90;
	w->hop[FT_HOP_FAULT].wait_ns = 1500000000ULL;
	w->hop[FT_HOP_PUNCH].acq = 12;
	w->mop[FT_MOP_LOOKUP].acq = 3;
}

/* every metric has one HELP and one TYPE line before its samples */
static void each_metric_described(const char *text)
{
	char *copy = strdup(text), *line, *save = NULL;
	char last[128] = "";

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%127s", last);
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			sscanf(line + 7, "%127s", name);
			CHECK(!strcmp(name, last), "TYPE %s after HELP %s", name, last);
			continue;
		}
		sscanf(line, "%127[^{ ]", name);
		CHECK(!strcmp(name, last), "sample %s under HELP %s", name, last);
		CHECK(!strncmp(name, "faulttune_", 10), "%s: no faulttune_ prefix", name);
	}
	free(copy);
}

static void test_patched(void)
{
	struct ft_watch_state w;
	size_t len = 0;
	char *t;

	patched_state(&w);
	t = ft_prom_render(&w, &len);
	CHECK(t && len == strlen(t), "render: %p, %zu bytes", t, len);
	if (!t)
		return;
	HAS(t, "faulttune_kernel_info{variant=\"patched\",version=\"" FT_VERSION "\"} 1\n");
	HAS(t, "# TYPE faulttune_table_size gauge\nfaulttune_table_size 64\n");
	HAS(t, "faulttune_recommended_table_size 256\n");
	HAS(t, "faulttune_predicted_collision_wait_ratio 0.0075\n");
	HAS(t, "faulttune_collision_wait_ratio 0.0125\n");
	HAS(t, "faulttune_true_sharing_wait_ratio 0.5\n");
	HAS(t, "# TYPE faulttune_lock_acquisitions_total counter\n");
	HAS(t, "faulttune_lock_acquisitions_total{lock=\"fault_mutex\",op=\"fault\"} 2500\n");
	HAS(t, "faulttune_lock_acquisitions_total{lock=\"fault_mutex\",op=\"punch\"} 12\n");
	HAS(t, "faulttune_lock_acquisitions_total{lock=\"memtype\",op=\"lookup\"} 3\n");
	/* seconds, not nanoseconds */
	HAS(t, "faulttune_lock_wait_seconds_total{lock=\"fault_mutex\",op=\"fault\"} 1.500000000\n");
	HAS(t, "faulttune_lost_events_total 7\n");
	HAS(t, "faulttune_knob_overrides_total 1\n");
	HAS(t, "faulttune_windows_total 3\n");
	HAS(t, "faulttune_window_seconds 5\n");
	HAS(t, "faulttune_last_window_end_timestamp_seconds 1796105547\n");
	/* an op that never ran has no series */
	HASNT(t, "op=\"memfd\"");
	HASNT(t, "lock=\"other\"");
	/* one window's one run: how settled is not known, so absent */
	HASNT(t, "faulttune_recommendation_settled");
	HASNT(t, "faulttune_recommended_table_size_lowest");
	each_metric_described(t);
	free(t);

	/* runs that settle the pick, and runs that cannot separate 32..256 */
	w.rec_lowest = 256;
	w.settled = 1;
	w.runs = 8;
	t = ft_prom_render(&w, &len);
	if (t) {
		HAS(t, "# TYPE faulttune_recommendation_settled gauge\n"
		    "faulttune_recommendation_settled 1\n");
		HAS(t, "# TYPE faulttune_recommended_table_size_lowest gauge\n"
		    "faulttune_recommended_table_size_lowest 256\n");
		each_metric_described(t);
		free(t);
	}
	w.rec_lowest = 32;
	w.settled = 0;
	t = ft_prom_render(&w, &len);
	if (t) {
		HAS(t, "faulttune_recommendation_settled 0\n");
		HAS(t, "faulttune_recommended_table_size_lowest 32\n");
		HAS(t, "faulttune_recommended_table_size 256\n");
		each_metric_described(t);
		free(t);
	}
}

/* the window's line, as --json, --csv and text print it */
static char *line_of(const struct ft_watch_state *w, enum ft_fmt fmt, int header)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	ft_watch_line(f, w, fmt, header);
	fclose(f);
	return buf;
}

static int fields(const char *line)
{
	int n = 1;

	for (; *line && *line != '\n'; line++)
		n += *line == ',';
	return n;
}

/* check the line of w in each format against what it must say */
static void line_says(const struct ft_watch_state *w, const char *json,
		      const char *csv, const char *note)
{
	char *t = line_of(w, FT_FMT_JSON, 0);

	if (t) {
		HAS(t, json);
		free(t);
	}
	t = line_of(w, FT_FMT_CSV, 1);
	if (t) {
		const char *row = strchr(t, '\n');

		HAS(t, "time,variant,acquisitions,contended,wait_ns,"
		    "collision_wait_pct,sharing_wait_pct,size,recommended,"
		    "predicted_collision_pct,lost,overridden,settled,"
		    "inseparable_from\n");
		CHECK(row && fields(t) == 14 && fields(row + 1) == 14,
		      "CSV: want 14 fields in header and row:\n%s", t);
		HAS(t, csv);
		free(t);
	}
	t = line_of(w, FT_FMT_TEXT, 1);
	if (t) {
		const char *row = strchr(t, '\n');
		char want[128];
		size_t n = (size_t)snprintf(want, sizeof(want), "  %s\n", note);

		CHECK(row && strlen(row) > n && !strcmp(row + strlen(row) - n, want),
		      "text: want the note '%s' last in:\n%s", note, t);
		free(t);
	}
}

static void test_lines(void)
{
	struct ft_watch_state w;

	patched_state(&w);
	line_says(&w, "\"recommended\":256,\"predicted_collision_pct\":0.75,"
		  "\"lost\":0,\"overridden\":false,\"settled\":null,"
		  "\"inseparable_from\":null}\n",
		  ",256,0.75,0,0,,\n", "nothing to settle (no two faults on "
		  "different pages overlapped)");
	w.runs = 1;
	line_says(&w, "\"settled\":null,\"inseparable_from\":null}\n",
		  ",256,0.75,0,0,,\n", "settled: not known (one run)");
	w.runs = 8;
	w.rec_lowest = 256;
	w.settled = 1;
	line_says(&w, "\"settled\":true,\"inseparable_from\":256}\n",
		  ",256,0.75,0,0,1,256\n", "settled");
	w.rec_lowest = 32;
	w.settled = 0;
	w.overridden = 1;
	w.size_before = 32;
	line_says(&w, "\"overridden\":true,\"settled\":false,"
		  "\"inseparable_from\":32}\n", ",256,0.75,0,1,0,32\n",
		  "override 32->64, unsettled 32..256");
	w.overridden = 0;
	w.runs = 3;
	w.rec_lowest = 256;
	line_says(&w, "\"settled\":false,\"inseparable_from\":256}\n",
		  ",256,0.75,0,0,0,256\n", "unsettled (3 runs, 10 needed)");
	/* the current size kept, the runs not showing it missing the target */
	w.runs = 12;
	w.undecided = 1;
	line_says(&w, "\"settled\":false,\"inseparable_from\":256}\n",
		  ",256,0.75,0,0,0,256\n", "unsettled: kept, not shown to miss "
		  "the target (12 runs)");

	/* the fallback: no recommendation, so nothing about settling */
	memset(&w, 0, sizeof(w));
	w.fallback = 1;
	w.have_window = 1;
	w.coll_ratio = w.share_ratio = w.pred_ratio = -1;
	line_says(&w, "\"recommended\":null,\"predicted_collision_pct\":null,"
		  "\"lost\":0,\"overridden\":false,\"settled\":null,"
		  "\"inseparable_from\":null}\n", ",fallback,,0,0,,,,,,0,0,,\n",
		  "");
}

static void test_fallback(void)
{
	struct ft_watch_state w;
	size_t len;
	char *t;

	memset(&w, 0, sizeof(w));
	w.fallback = 1;
	w.window_s = 2.5;
	w.have_window = 1;
	w.coll_ratio = w.share_ratio = w.pred_ratio = -1;
	w.windows = 1;
	w.other.contended = 42;
	w.other.wait_ns = 1000;
	t = ft_prom_render(&w, &len);
	if (!t) {
		CHECK(0, "render failed");
		return;
	}
	HAS(t, "faulttune_kernel_info{variant=\"fallback\",");
	HAS(t, "faulttune_lock_contended_total{lock=\"other\",op=\"any\"} 42\n");
	HAS(t, "faulttune_lock_wait_seconds_total{lock=\"other\",op=\"any\"} 0.000001000\n");
	/* what the fallback cannot know is absent, not 0 */
	HASNT(t, "faulttune_recommended_table_size");
	HASNT(t, "faulttune_table_size");
	HASNT(t, "_ratio");
	HASNT(t, "faulttune_lock_acquisitions_total");
	HASNT(t, "settled");
	HASNT(t, "_lowest");
	each_metric_described(t);
	free(t);

	/* before the first window: no gauges of a window */
	memset(&w, 0, sizeof(w));
	t = ft_prom_render(&w, &len);
	if (t) {
		HAS(t, "faulttune_windows_total 0\n");
		HASNT(t, "faulttune_knob_overridden ");
		HASNT(t, "faulttune_lock_");
		free(t);
	}
}

static void test_textfile(void)
{
	char dir[] = "/tmp/faulttune-watch-unit.XXXXXX", path[128];
	static const char text[] = "faulttune_windows_total 1\n";
	struct stat st;
	char *back;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	CHECK(ft_prom_check_dir(dir) == 0, "%s refused", dir);
	CHECK(ft_prom_textfile(dir, text, strlen(text)) == 0, "write failed");
	CHECK(ft_prom_textfile(dir, text, strlen(text)) == 0, "rewrite failed");
	snprintf(path, sizeof(path), "%s/faulttune.prom", dir);
	back = ft_read_all(path, NULL);
	CHECK(back && !strcmp(back, text), "read back '%s'", back ? back : "(null)");
	free(back);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0644,
	      "mode %o: node_exporter runs as another user", st.st_mode & 0777);
	/* nothing but the file: the temporary one was renamed */
	snprintf(path, sizeof(path), "ls -A %s | grep -qvx faulttune.prom", dir);
	CHECK(system(path) != 0, "a temporary file is left in %s", dir);
	snprintf(path, sizeof(path), "%s/faulttune.prom", dir);
	CHECK(ft_prom_check_dir(path) == -1, "a file taken for a directory");
	unlink(path);
	rmdir(dir);
	CHECK(ft_prom_check_dir(dir) == -1, "a missing directory accepted");
}

static void test_listen(void)
{
	static const char * const good[] = {
		"127.0.0.1:9435", ":9435", "9435", "[::1]:9435", "0.0.0.0:0",
	};
	static const char * const bad[] = {
		"", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "localhost:9435",
		"1.2.3:80", "::1:9435", "[::1]9435", "127.0.0.1:09", "127.0.0.1:-1",
		"127.0.0.1:80x",
	};
	struct ft_httpd *h;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(ft_httpd_check(good[i]) == 0, "'%s' refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(ft_httpd_check(bad[i]) == -1, "'%s' accepted", bad[i]);
	h = ft_httpd_open(":0");
	CHECK(h != NULL, "cannot bind 127.0.0.1:0");
	if (h) {
		CHECK(!strncmp(ft_httpd_addr(h), "127.0.0.1:", 10) &&
		      strcmp(ft_httpd_addr(h), "127.0.0.1:0"),
		      "bound to '%s', want 127.0.0.1 and the port given", ft_httpd_addr(h));
		ft_httpd_close(h);
	}
}

/*
 * --prom-example: print the exposition of a patched window whose runs
 * cannot separate 32..256, every metric filled, for promtool
 * (tests/host-watch.sh): the host's own kernel never fills them.
 */
static int prom_example(void)
{
	struct ft_watch_state w;
	size_t len;
	char *t;

	patched_state(&w);
	w.rec_lowest = 32;
	w.runs = 8;
	w.overridden = 1;
	w.size_before = 32;
	t = ft_prom_render(&w, &len);
	if (!t)
		return 1;
	fwrite(t, 1, len, stdout);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--prom-example"))
		return prom_example();
	fprintf(stderr, "watch-unit: the refusals below are expected\n");
	test_patched();
	test_fallback();
	test_lines();
	test_textfile();
	test_listen();
	return check_done("watch-unit");
}
