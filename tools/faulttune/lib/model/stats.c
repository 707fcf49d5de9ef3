// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune statistics: Student's t quantiles (the bounds of decide.c and
 * advice.c) and the 95% confidence interval of a difference of two means
 * (Welch), with which tune compares measured runs.  Plain arithmetic on
 * numbers, no model state: apart from the model object, which none of
 * their callers needs for them.
 */
#include <math.h>
#include <string.h>
#include "model.h"

/*
 * Student's t quantiles: a table for 1..30 degrees of freedom and the
 * values at 40, 60 and 120, each used from there up to the next (fewer
 * degrees of freedom than the data has: a wider interval, the safe side).
 */
struct t_table {
	double t[31];
	double at40, at60, at120;
};

static double t_lookup(const struct t_table *tb, double df)
{
	int k = (int)floor(df);

	if (k < 1)
		return INFINITY;
	if (k <= 30)
		return tb->t[k];
	if (k < 40)
		return tb->t[30];
	if (k < 60)
		return tb->at40;
	if (k < 120)
		return tb->at60;
	return tb->at120;
}

double ft_t975(double df)
{
	/* two-sided 95% */
	static const struct t_table tb = {
		{ 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		  2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		  2.052, 2.048, 2.045, 2.042 },
		2.021, 2.000, 1.980,
	};

	return t_lookup(&tb, df);
}

double ft_t95(double df)
{
	/* one-sided 95%: decide.c's bounds */
	static const struct t_table tb = {
		{ 0, 6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860,
		  1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740,
		  1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706,
		  1.703, 1.701, 1.699, 1.697 },
		1.684, 1.671, 1.658,
	};

	return t_lookup(&tb, df);
}

static void mean_var(const double *x, int n, double *mean, double *var)
{
	double s = 0, s2 = 0;
	int i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		s2 += (x[i] - *mean) * (x[i] - *mean);
	*var = s2 / (n - 1);
}

int ft_ci95_diff(const double *a, int na, const double *b, int nb,
		 struct ft_ci *ci)
{
	double ma, va, mb, vb, qa, qb, se, h;

	memset(ci, 0, sizeof(*ci));
	if (na < 2 || nb < 2)
		return -1;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	qa = va / na;
	qb = vb / nb;
	se = sqrt(qa + qb);
	ci->diff = mb - ma;
	/* Welch-Satterthwaite; two constant samples: the pooled df */
	if (qa + qb > 0)
		ci->df = (qa + qb) * (qa + qb) /
			 (qa * qa / (na - 1) + qb * qb / (nb - 1));
	else
		ci->df = na + nb - 2;
	h = ft_t975(ci->df) * se;
	ci->lo = ci->diff - h;
	ci->hi = ci->diff + h;
	return 0;
}
