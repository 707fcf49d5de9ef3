// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune true sharing, printed: the who-shares table (-v), its line
 * in the short answer, and its JSON member.  It formats what sharing.c
 * found and decides nothing.
 */
#include <stdio.h>
#include "faulttune.h"
#include "out.h"

static const char *const behind_names[FT_BEHIND_NR] = {
	"first touch", "again", "truncation",
};

void ft_sharing_text(FILE *f, const struct ft_sharing *s, double target_pct)
{
	char b[3][32];
	int i, k, top;

	if (!ft_sharing_matters(s, target_pct))
		return;
	fprintf(f, "who shares: %llu waits behind the same page on %zu page%s, "
		"%s in all, %.2f%% of fault time (measured; collisions: "
		"%s)\n", (unsigned long long)s->waits, s->npages,
		s->npages == 1 ? "" : "s", ft_fmt_ns(s->wait_ns, b[0], 32),
		ft_sharing_pct(s), ft_fmt_ns(s->coll_wait_ns, b[1], 32));
	fprintf(f, "  %-28s %10s %6s  %-13s %-26s %s\n", "page (mapping:index)",
		"wait", "waits", "behind", "holder: op, hold (task)",
		"waiters (tasks)");
	top = s->npages < FT_SHARE_TOP ? (int)s->npages : FT_SHARE_TOP;
	for (i = 0; i < top; i++) {
		const struct ft_share_page *p = &s->pages[i];
		char key[48], holder[64];
		int most = 0;

		for (k = 1; k < FT_BEHIND_NR; k++)
			if (p->behind_ns[k] > p->behind_ns[most])
				most = k;
		snprintf(key, sizeof(key), "%#llx:%llu",
			 (unsigned long long)p->mapping,
			 (unsigned long long)p->index);
		snprintf(holder, sizeof(holder), "%s, %s (%d%s%s)",
			 ft_hop_name(p->holder_op),
			 ft_fmt_ns(p->holder_hold_ns, b[2], 32), p->holder_pid,
			 p->holder_comm[0] ? " " : "", p->holder_comm);
		fprintf(f, "  %-28s %10s %6llu  %-13s %-26s", key,
			ft_fmt_ns(p->wait_ns, b[0], 32),
			(unsigned long long)p->waits, behind_names[most], holder);
		for (k = 0; k < p->npids; k++)
			fprintf(f, " %d%s%s", p->pids[k], p->comm[k][0] ? " " : "",
				p->comm[k]);
		fputc('\n', f);
	}
	fprintf(f, "  behind: what the holds waited for were doing: ");
	for (k = 0; k < FT_BEHIND_NR; k++)
		fprintf(f, "%s%s %.0f%%", k ? ", " : "", behind_names[k],
			s->wait_ns ? 100.0 * s->behind_ns[k] / s->wait_ns : 0);
	fprintf(f, " of the wait (first touch: the page's first fault in the "
		"recording, allocating and clearing it)\n");
	fprintf(f, "  pages are named by their address_space and index: the "
		"recording does not hold the file's name\n");
	if (ft_sharing_remedy(s))
		fprintf(f, "remedy: %s\n", ft_sharing_remedy(s));
	else
		fprintf(f, "remedy: none said: first touches carry %.0f%% of the "
			"wait, and the recording does not show what the other "
			"holds were for\n", s->wait_ns ? 100.0 *
			s->behind_ns[FT_BEHIND_FIRST_TOUCH] / s->wait_ns : 0);
}

/* the short output: who shares, in one line, and the remedy */
void ft_sharing_short(FILE *f, const struct ft_sharing *s, double target_pct)
{
	char b[32];

	if (!ft_sharing_matters(s, target_pct))
		return;
	ft_wrap(f, 2, "who shares: %llu waits behind the same page, on %zu "
		"page%s, %s in all (-v lists them)",
		(unsigned long long)s->waits, s->npages, s->npages == 1 ? "" : "s",
		ft_fmt_ns(s->wait_ns, b, sizeof(b)));
	if (ft_sharing_remedy(s))
		ft_wrap(f, 2, "remedy: one task populating the region first "
			"(MAP_POPULATE, MADV_POPULATE_WRITE or fallocate)");
}

void ft_sharing_json(FILE *f, const struct ft_sharing *s, double target_pct)
{
	int i, k, top;

	fprintf(f, "{\"matters\":%s,\"wait_ns\":%llu,\"fault_ns\":%llu,"
		"\"pct\":%.4f,\"collision_wait_ns\":%llu,\"waits\":%llu,"
		"\"pages\":%zu,\"behind_ns\":{", ft_sharing_matters(s, target_pct) ?
		"true" : "false", (unsigned long long)s->wait_ns,
		(unsigned long long)s->fault_ns, ft_sharing_pct(s),
		(unsigned long long)s->coll_wait_ns,
		(unsigned long long)s->waits, s->npages);
	for (k = 0; k < FT_BEHIND_NR; k++)
		fprintf(f, "%s\"%s\":%llu", k ? "," : "",
			k == FT_BEHIND_FIRST_TOUCH ? "first_touch" :
			k == FT_BEHIND_AGAIN ? "again" : "truncation",
			(unsigned long long)s->behind_ns[k]);
	fputs("},\"top\":[", f);
	top = s->npages < FT_SHARE_TOP ? (int)s->npages : FT_SHARE_TOP;
	for (i = 0; i < top; i++) {
		const struct ft_share_page *p = &s->pages[i];

		fprintf(f, "%s{\"mapping\":\"%#llx\",\"index\":%llu,"
			"\"wait_ns\":%llu,\"waits\":%llu,\"holder\":{\"pid\":%d,"
			"\"comm\":", i ? "," : "", (unsigned long long)p->mapping,
			(unsigned long long)p->index,
			(unsigned long long)p->wait_ns,
			(unsigned long long)p->waits, p->holder_pid);
		ft_json_str(f, p->holder_comm);
		fprintf(f, ",\"op\":\"%s\",\"hold_ns\":%llu},\"behind_ns\":{"
			"\"first_touch\":%llu,\"again\":%llu,\"truncation\":%llu},"
			"\"waiters\":[", ft_hop_name(p->holder_op),
			(unsigned long long)p->holder_hold_ns,
			(unsigned long long)p->behind_ns[FT_BEHIND_FIRST_TOUCH],
			(unsigned long long)p->behind_ns[FT_BEHIND_AGAIN],
			(unsigned long long)p->behind_ns[FT_BEHIND_TRUNCATION]);
		for (k = 0; k < p->npids; k++) {
			fprintf(f, "%s{\"pid\":%d,\"comm\":", k ? "," : "",
				p->pids[k]);
			ft_json_str(f, p->comm[k]);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("],\"remedy\":", f);
	if (ft_sharing_remedy(s))
		ft_json_str(f, ft_sharing_remedy(s));
	else
		fputs("null", f);
	fputc('}', f);
}
