/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * assess: the non-IID track of NIST SP 800-90B (sections 6.3, 6.4 and
 * 3.1.3) and its restart tests (3.1.4).  Tangled from the book's chapter
 * "SP 800-90B entropy assessment" (chapters/60-entropy-assessment.nw):
 * edit the book, not this file.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define Z_ALPHA 2.5758293035489008	/* Phi^-1(0.995) */
#define SEQUENTIAL_MIN 1000000L		/* 3.1.1 */
#define COMP_B 6			/* bits per block */
#define COMP_K 64			/* 2^COMP_B block values */
#define COMP_D 1000			/* dictionary blocks */
#define MCW_N 4
#define LAG_D 128
#define ORDERS 16			/* longest context, D of 6.3.9 and B of 6.3.10 */
#define MMC_MAX 100000
#define LZ_MAX 65536
enum { MCV, COLLISION, MARKOV, COMPRESSION, T_TUPLE, LRS, MULTI_MCW, LAG,
       MULTI_MMC, LZ78Y, ESTIMATORS };
#define RESTARTS 1000
#define RESTART_LEN 1000
static const char *const estimator_key[ESTIMATORS] = {
	"mcv", "collision", "markov", "compression", "t_tuple", "lrs",
	"multi_mcw", "lag", "multi_mmc", "lz78y"
};

enum kind { K_INT, K_REAL, K_BOOL, K_NULL };

struct field {
	const char *name;
	enum kind kind;
	long long i;
	double d;
};

enum state { NOT_APPLIED, SKIPPED, RAN };

#define MAX_FIELDS 12

struct estimate {
	enum state state;
	const char *why;		/* why it was skipped */
	int nfields;
	struct field f[MAX_FIELDS];
	double h;			/* min-entropy per sample */
};
struct seq {
	const uint8_t *s;
	long n;				/* L, the number of symbols */
	int k;				/* the alphabet size */
};

struct source {
	const char *path;
	long n;				/* samples */
	int width;			/* bits per sample */
	int width_given;
	int k;				/* distinct values */
	uint8_t *raw;			/* as read */
	uint8_t *sym;			/* renumbered 0 .. k-1 */
	uint8_t *bits;			/* the 6.4 bitstring, when k > 2 */
};
typedef double (*decreasing_fn)(double p, const void *ctx);
struct g_table {
	long blocks;
	long double *lg;		/* lg[u] = log2(u) */
};
struct tuples {
	long n;
	long v;				/* longest repeated substring */
	long *q;			/* q[W]: most occurrences of a W-tuple */
	uint64_t *pairs;		/* pairs[W]: equal pairs of W-tuples */
};
struct run_ctx {
	long r;
	long N;
};
struct score {
	long C, run, max_run;
};
struct window {
	long w;
	long count[256];
	long last[256];
	int frequent;
	long top;
};
struct key {
	uint64_t lo, hi;
};

struct map {
	size_t cap, used;		/* cap is a power of two */
	uint64_t *lo, *hi;
	int32_t *val;			/* -1: an empty slot */
};

struct contexts {
	struct map prefix[ORDERS];	/* per length: key -> context */
	struct map follow;		/* (context, y) -> count */
	long n, cap;
	int32_t *best;			/* count of the best follower */
	uint8_t *best_sym;		/* the best follower */
};
struct track {
	int present;
	struct estimate e[ESTIMATORS];
	double h;			/* the smallest min-entropy */
	double seconds;			/* processor time */
};
struct restart;

struct result {
	struct source src;
	struct track literal, bitstring;
	double h_original, h_bitstring, assessed;
	double h_submitter, h_i;	/* the claim (--submitter) and H_I */
	int submitter_given;
	struct restart *restart;
};
struct restart {
	const char *path;
	uint8_t *raw;
	double h_i;			/* the claimed H_I */
	int h_i_given;
	int k;
	double alpha;
	long cutoff, x_row, x_col, x_max;
	int sanity;			/* 3.1.4.3 passed */
	struct track rows, cols;
	double h_r, h_c, h_final;
	int validated;			/* 3.1.4.2 passed */
	int pass;
	char reason[256];
};
struct options {
	const char *json;
	int allow_short;
};

static void fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "assess: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}
static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fail("memory", "cannot allocate %zu bytes", n);
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		fail("memory", "cannot allocate %zu x %zu bytes", n, size);
	return p;
}

static void *xrealloc(void *old, size_t n)
{
	void *p = realloc(old, n);

	if (!p)
		fail("memory", "cannot allocate %zu bytes", n);
	return p;
}
static struct field *add_field(struct estimate *e, const char *name,
			       enum kind kind)
{
	struct field *f = &e->f[e->nfields++];

	f->name = name;
	f->kind = kind;
	f->i = 0;
	f->d = 0.0;
	return f;
}

static void put_int(struct estimate *e, const char *name, long long v)
{
	add_field(e, name, K_INT)->i = v;
}

static void put_real(struct estimate *e, const char *name, double v)
{
	add_field(e, name, K_REAL)->d = v;
}

static void put_bool(struct estimate *e, const char *name, int v)
{
	add_field(e, name, K_BOOL)->i = v != 0;
}

static void put_null(struct estimate *e, const char *name)
{
	add_field(e, name, K_NULL);
}
static void ran(struct estimate *e, double h)
{
	e->state = RAN;
	e->h = h == 0.0 ? 0.0 : h;
}

static void skipped(struct estimate *e, const char *why)
{
	e->state = SKIPPED;
	e->why = why;
}
static uint8_t *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		fail(path, "cannot open: %s", strerror(errno));
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : (size_t)1 << 20;
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f))
		fail(path, "cannot read: %s", strerror(errno));
	fclose(f);
	*len = (long)n;
	return buf;
}
static int width_of(const uint8_t *b, long n)
{
	unsigned used = 0;
	int w = 0;
	long i;

	for (i = 0; i < n; i++)
		used |= b[i];
	while (used >> w)
		w++;
	return w;
}

static void check_width(const char *path, const uint8_t *b, long n, int width)
{
	long i;

	for (i = 0; i < n; i++)
		if (b[i] >> width)
			fail(path, "sample %ld is 0x%02x, wider than %d bits",
			     i, b[i], width);
}
static int translate(const uint8_t *raw, long n, uint8_t *sym)
{
	int seen[256] = { 0 };
	uint8_t map[256];
	int k = 0, v;
	long i;

	for (i = 0; i < n; i++)
		seen[raw[i]] = 1;
	for (v = 0; v < 256; v++)
		if (seen[v])
			map[v] = (uint8_t)k++;
	for (i = 0; i < n; i++)
		sym[i] = map[raw[i]];
	return k;
}
static uint8_t *bitstring(const uint8_t *raw, long n, int width)
{
	uint8_t *b = xmalloc((size_t)n * width);
	long i;
	int j;

	for (i = 0; i < n; i++)
		for (j = 0; j < width; j++)
			b[i * width + j] = (raw[i] >> (width - 1 - j)) & 1;
	return b;
}
static void read_source(struct source *src, int allow_short)
{
	src->raw = slurp(src->path, &src->n);
	if (src->n == 0)
		fail(src->path, "empty file: no samples");
	if (src->width_given)
		check_width(src->path, src->raw, src->n, src->width);
	else
		src->width = width_of(src->raw, src->n);
	src->sym = xmalloc(src->n);
	src->k = translate(src->raw, src->n, src->sym);
	if (src->k < 2)
		fail(src->path, "every sample is 0x%02x: one symbol has no "
		     "entropy to assess", src->raw[0]);
	if (src->n < SEQUENTIAL_MIN && !allow_short)
		fail(src->path, "%ld samples, fewer than the %ld sequential "
		     "samples SP 800-90B 3.1.1 requires (--allow-short "
		     "assesses them anyway)", src->n, SEQUENTIAL_MIN);
	if (src->n > INT32_MAX / 8)
		fail(src->path, "%ld samples, more than this assessor's "
		     "32-bit indexes allow", src->n);
	src->bits = src->k > 2 ? bitstring(src->raw, src->n, src->width) : NULL;
}
static int close_enough(double a, double b)
{
	double d, big;
	uint64_t ua, ub;

	if (a == b)
		return 1;
	if (!isfinite(a) || !isfinite(b))
		return 0;
	d = fabs(a - b);
	big = fmax(fabs(a), fabs(b));
	if (fmin(fabs(a), fabs(b)) < DBL_MIN || d < DBL_MIN || !isfinite(d)
	    || big * DBL_EPSILON < DBL_MIN)
		return d <= DBL_MIN;
	if (d <= big * DBL_EPSILON)
		return 1;
	if (signbit(a) != signbit(b))
		return 0;
	a = fabs(a);
	b = fabs(b);
	memcpy(&ua, &a, sizeof ua);
	memcpy(&ub, &b, sizeof ub);
	return (ua > ub ? ua - ub : ub - ua) <= 4;
}
static double solve_decreasing(decreasing_fn f, const void *ctx,
			       double target, double lo, double hi)
{
	double f_lo = INFINITY, f_hi = -INFINITY, p, v, mid;
	int i;

	p = (lo + hi) / 2.0;
	v = f(p, ctx);
	for (i = 0; i < 1076 && !close_enough(v, target); i++) {
		if (v > target) {
			lo = p;
			f_lo = v;
		} else {
			hi = p;
			f_hi = v;
		}
		mid = (lo + hi) / 2.0;
		if (!(mid > lo && mid < hi))
			return hi;
		p = mid;
		v = f(p, ctx);
		if (!(v <= f_lo && v >= f_hi))
			return hi;
	}
	return p;
}
static double upper_bound(double p, long n)
{
	return fmin(1.0, p + Z_ALPHA * sqrt(p * (1.0 - p) / ((double)n - 1.0)));
}
static void mcv_estimate(const struct seq *x, struct estimate *e)
{
	long count[256] = { 0 }, mode = 0, i;
	double p_hat, p_u;

	for (i = 0; i < x->n; i++)
		count[x->s[i]]++;
	for (i = 0; i < 256; i++)
		if (count[i] > mode)
			mode = count[i];
	p_hat = (double)mode / (double)x->n;
	p_u = upper_bound(p_hat, x->n);
	put_int(e, "mode_count", mode);
	put_real(e, "p_hat", p_hat);
	put_real(e, "p_u", p_u);
	ran(e, -log2(p_u));
}
static void collision_estimate(const struct seq *x, struct estimate *e)
{
	long n = x->n, i = 0, v = 0;
	double sumsq = 0.0, mean, sigma, bound, p;
	int t, found;

	while (i < n - 1) {
		if (x->s[i] == x->s[i + 1])
			t = 2;
		else if (i < n - 2)
			t = 3;
		else
			break;
		v++;
		sumsq += t * t;
		i += t;
	}
	if (v < 2) {
		skipped(e, "fewer than two collisions");
		return;
	}
	mean = (double)i / (double)v;
	sigma = sqrt((sumsq - (double)i * mean) / (double)(v - 1));
	bound = mean - Z_ALPHA * sigma / sqrt((double)v);
	if (bound < 2.0)
		bound = 2.0;
	found = bound < 2.5;
	p = found ? 0.5 + sqrt(1.25 - 0.5 * bound) : 0.5;
	put_int(e, "v", v);
	put_int(e, "sum_t_i", i);
	put_real(e, "x_bar", mean);
	put_real(e, "sigma_hat", sigma);
	put_real(e, "x_bar_prime", bound);
	put_bool(e, "found_p", found);
	put_real(e, "p", p);
	ran(e, found ? -log2(p) : 1.0);
}
static void markov_estimate(const struct seq *x, struct estimate *e)
{
	long n = x->n, c0 = 0, c00 = 0, c10 = 0, c1, i;
	double p0, p1, p00, p01, p10, p11, h = 128.0;

	if (n < 2) {
		skipped(e, "fewer than two samples");
		return;
	}
	for (i = 0; i < n - 1; i++) {
		if (x->s[i] == 0) {
			c0++;
			if (x->s[i + 1] == 0)
				c00++;
		} else if (x->s[i + 1] == 0) {
			c10++;
		}
	}
	c1 = n - 1 - c0;
	p00 = c0 > 0 ? (double)c00 / (double)c0 : 0.0;
	p01 = c0 > 0 ? 1.0 - p00 : 0.0;
	p10 = c1 > 0 ? (double)c10 / (double)c1 : 0.0;
	p11 = c1 > 0 ? 1.0 - p10 : 0.0;
	if (x->s[n - 1] == 0)
		c0++;
	p0 = (double)c0 / (double)n;
	p1 = 1.0 - p0;
	if (p00 > 0.0)
		h = fmin(h, -log2(p0) - 127.0 * log2(p00));
	if (p01 > 0.0 && p10 > 0.0)
		h = fmin(h, -log2(p0) - 64.0 * log2(p01) - 63.0 * log2(p10));
	if (p01 > 0.0 && p11 > 0.0)
		h = fmin(h, -log2(p0) - log2(p01) - 126.0 * log2(p11));
	if (p10 > 0.0 && p00 > 0.0)
		h = fmin(h, -log2(p1) - log2(p10) - 126.0 * log2(p00));
	if (p10 > 0.0 && p01 > 0.0)
		h = fmin(h, -log2(p1) - 64.0 * log2(p10) - 63.0 * log2(p01));
	if (p11 > 0.0)
		h = fmin(h, -log2(p1) - 127.0 * log2(p11));
	put_real(e, "p_0", p0);
	put_real(e, "p_1", p1);
	put_real(e, "p_00", p00);
	put_real(e, "p_01", p01);
	put_real(e, "p_10", p10);
	put_real(e, "p_11", p11);
	put_real(e, "p_hat_max", pow(2.0, -h));
	ran(e, fmin(h / 128.0, 1.0));
}
static double g_sum(double z, const struct g_table *g)
{
	long L = g->blocks, u;
	long double w = 1.0L - z, pw = w, a, inner = 0.0L, tail = 0.0L;

	for (u = 2; u <= L && pw >= DBL_MIN; u++) {
		a = g->lg[u] * pw;
		if (u < L)
			inner += a * (long double)(L - (u > COMP_D ? u : COMP_D));
		if (u > COMP_D)
			tail += a;
		pw *= w;
	}
	return (double)(z * (z * inner + tail) / (long double)(L - COMP_D));
}

static double compression_expect(double p, const void *ctx)
{
	double q = (1.0 - p) / (COMP_K - 1.0);

	return g_sum(p, ctx) + (COMP_K - 1.0) * g_sum(q, ctx);
}
static void compression_estimate(const struct seq *x, struct estimate *e)
{
	long blocks = x->n / COMP_B, last[COMP_K] = { 0 }, i, v;
	long double sum = 0.0L, sumsq = 0.0L, dist;
	double mean, sigma, bound, p, lo = 1.0 / COMP_K;
	struct g_table g;
	int j, block, found;

	if (blocks <= COMP_D) {
		skipped(e, "needs more than 1000 blocks of 6 bits");
		return;
	}
	for (i = 0; i < blocks; i++) {
		for (block = 0, j = 0; j < COMP_B; j++)
			block = (block << 1) | x->s[i * COMP_B + j];
		if (i >= COMP_D) {
			dist = log2l((long double)(i + 1 - last[block]));
			sum += dist;
			sumsq += dist * dist;
		}
		last[block] = i + 1;
	}
	v = blocks - COMP_D;
	mean = (double)(sum / v);
	sigma = 0.5907 * sqrt((double)(sumsq / (v - 1.0L)) - mean * mean);
	bound = mean - Z_ALPHA * sigma / sqrt((double)v);
	g.blocks = blocks;
	g.lg = xmalloc((blocks + 1) * sizeof *g.lg);
	for (i = 1; i <= blocks; i++)
		g.lg[i] = log2l((long double)i);
	found = compression_expect(lo, &g) > bound;
	p = found ? solve_decreasing(compression_expect, &g, bound, lo, 1.0) : lo;
	found = found && p > lo;
	free(g.lg);
	put_real(e, "x_bar", mean);
	put_real(e, "sigma_hat", sigma);
	put_real(e, "x_bar_prime", bound);
	put_bool(e, "found_p", found);
	put_real(e, "p", found ? p : lo);
	ran(e, found ? -log2(p) / COMP_B : 1.0);
}
static int32_t *suffix_array(const uint8_t *s, long n, int32_t **rank_out)
{
	int32_t *sa = xmalloc(n * sizeof *sa), *rk = xmalloc(n * sizeof *rk);
	int32_t *tmp = xmalloc(n * sizeof *tmp), *t;
	long *cnt = xcalloc(n > 256 ? n : 256, sizeof *cnt);
	long classes, h, i, j, c, a, b, ka, kb;

	for (i = 0; i < n; i++)
		cnt[s[i]]++;
	for (c = 1; c < 256; c++)
		cnt[c] += cnt[c - 1];
	for (i = n - 1; i >= 0; i--)
		sa[--cnt[s[i]]] = (int32_t)i;
	rk[sa[0]] = 0;
	for (j = 1; j < n; j++)
		rk[sa[j]] = rk[sa[j - 1]] + (s[sa[j]] != s[sa[j - 1]]);
	classes = rk[sa[n - 1]] + 1;
	for (h = 1; classes < n; h *= 2) {
		for (i = n - h, j = 0; i < n; i++)
			tmp[j++] = (int32_t)i;
		for (i = 0; i < n; i++)
			if (sa[i] >= h)
				tmp[j++] = (int32_t)(sa[i] - h);
		memset(cnt, 0, classes * sizeof *cnt);
		for (i = 0; i < n; i++)
			cnt[rk[i]]++;
		for (c = 1; c < classes; c++)
			cnt[c] += cnt[c - 1];
		for (j = n - 1; j >= 0; j--)
			sa[--cnt[rk[tmp[j]]]] = tmp[j];
		tmp[sa[0]] = 0;
		for (j = 1; j < n; j++) {
			a = sa[j - 1];
			b = sa[j];
			ka = a + h < n ? rk[a + h] : -1;
			kb = b + h < n ? rk[b + h] : -1;
			tmp[b] = tmp[a] + (rk[a] != rk[b] || ka != kb);
		}
		t = rk;
		rk = tmp;
		tmp = t;
		classes = rk[sa[n - 1]] + 1;
	}
	free(tmp);
	free(cnt);
	*rank_out = rk;
	return sa;
}
static int32_t *lcp_array(const uint8_t *s, long n, const int32_t *sa,
			  const int32_t *rk)
{
	int32_t *lcp = xmalloc(n * sizeof *lcp);
	long h = 0, i, j;

	lcp[0] = 0;
	for (i = 0; i < n; i++) {
		if (rk[i] == 0) {
			h = 0;
			continue;
		}
		j = sa[rk[i] - 1];
		while (i + h < n && j + h < n && s[i + h] == s[j + h])
			h++;
		lcp[rk[i]] = (int32_t)h;
		if (h > 0)
			h--;
	}
	return lcp;
}
static void count_tuples(const int32_t *lcp, long n, struct tuples *tp)
{
	long *sh = xmalloc((n + 1) * sizeof *sh);
	long *sl = xmalloc((n + 1) * sizeof *sl);
	int64_t *diff, pairs;
	long i, t, top = 0, cur, lb, h, size, parent, v = 0;

	for (i = 1; i < n; i++)
		if (lcp[i] > v)
			v = lcp[i];
	tp->n = n;
	tp->v = v;
	tp->q = xcalloc(v + 2, sizeof *tp->q);
	tp->pairs = xcalloc(v + 2, sizeof *tp->pairs);
	diff = xcalloc(v + 2, sizeof *diff);
	sh[0] = 0;
	sl[0] = 0;
	for (i = 1; i <= n; i++) {
		cur = i < n ? lcp[i] : 0;
		lb = i - 1;
		while (sh[top] > cur) {
			h = sh[top];
			lb = sl[top--];
			size = i - lb;
			parent = sh[top] > cur ? sh[top] : cur;
			if (size > tp->q[h])
				tp->q[h] = size;
			pairs = (int64_t)size * (size - 1) / 2;
			diff[parent + 1] += pairs;
			diff[h + 1] -= pairs;
		}
		if (sh[top] < cur) {
			sh[++top] = cur;
			sl[top] = lb;
		}
	}
	for (t = v - 1; t >= 1; t--)
		if (tp->q[t + 1] > tp->q[t])
			tp->q[t] = tp->q[t + 1];
	for (pairs = 0, t = 1; t <= v; t++) {
		pairs += diff[t];
		tp->pairs[t] = (uint64_t)pairs;
	}
	free(diff);
	free(sh);
	free(sl);
}
static void tuples_of(const struct seq *x, struct tuples *tp)
{
	int32_t *rk, *sa = suffix_array(x->s, x->n, &rk);
	int32_t *lcp = lcp_array(x->s, x->n, sa, rk);

	free(sa);
	free(rk);
	count_tuples(lcp, x->n, tp);
	free(lcp);
}
static long double upper_bound_l(long double p, long n)
{
	long double pu = p + Z_ALPHA * sqrtl(p * (1.0L - p) / (long double)(n - 1));

	return pu > 1.0L ? 1.0L : pu;
}

static long first_rare(const struct tuples *tp)
{
	long u;

	for (u = 1; u <= tp->v && tp->q[u] >= 35; u++)
		;
	return u;
}
static void t_tuple_estimate(const struct tuples *tp, struct estimate *e)
{
	long t = first_rare(tp) - 1, i, n = tp->n;
	long double best = 0.0L, p, pu;

	if (t < 1) {
		skipped(e, "no symbol occurs 35 times");
		return;
	}
	for (i = 1; i <= t; i++) {
		p = powl((long double)tp->q[i] / (long double)(n - i + 1),
			 1.0L / (long double)i);
		if (p > best)
			best = p;
	}
	pu = upper_bound_l(best, n);
	put_int(e, "t", t);
	put_real(e, "p_hat_max", (double)best);
	put_real(e, "p_u", (double)pu);
	ran(e, (double)-log2l(pu));
}
static void lrs_estimate(const struct tuples *tp, struct estimate *e)
{
	long u = first_rare(tp), w, n = tp->n;
	long double best = 0.0L, p, pu, choices;

	if (u > tp->v) {
		skipped(e, "every repeated string occurs 35 times or more");
		return;
	}
	for (w = u; w <= tp->v; w++) {
		choices = (long double)(n - w + 1) * (long double)(n - w) / 2.0L;
		p = powl((long double)tp->pairs[w] / choices, 1.0L / (long double)w);
		if (p > best)
			best = p;
	}
	pu = upper_bound_l(best, n);
	put_int(e, "u", u);
	put_int(e, "v", tp->v);
	put_real(e, "p_hat", (double)best);
	put_real(e, "p_u", (double)pu);
	ran(e, (double)-log2l(pu));
}
static double no_run_log(double p, const void *ctx)
{
	const struct run_ctx *c = ctx;
	long double q = 1.0L - p, x = 1.0L, prev = 0.0L, r = (long double)c->r;
	int i;

	for (i = 0; i <= 65 && x - prev > LDBL_EPSILON * x; i++) {
		prev = x;
		x = 1.0L + q * powl(p, r) * powl(x, r + 1.0L);
	}
	return (double)(logl(1.0L - p * x) - logl((r + 1.0L - r * x) * q)
			- ((long double)c->N + 1.0L) * logl(x));
}
static void prediction_estimate(long C, long N, long max_run, int k,
				struct estimate *e)
{
	struct run_ctx rc = { max_run + 1, N };
	double p_global, p_prime, p_max, p_local = -1.0;

	p_global = (double)C / (double)N;
	if (p_global > 0.0)
		p_prime = upper_bound(p_global, N);
	else
		p_prime = 1.0 - pow(0.01, 1.0 / (double)N);
	p_max = fmax(1.0 / (double)k, p_prime);
	if (p_max < 1.0 && no_run_log(p_max, &rc) > log(0.99)) {
		p_local = solve_decreasing(no_run_log, &rc, log(0.99), p_max, 1.0);
		p_max = fmax(p_max, p_local);
	}
	put_int(e, "C", C);
	put_int(e, "r", rc.r);
	put_int(e, "N", N);
	put_real(e, "p_global", p_global);
	put_real(e, "p_global_prime", p_prime);
	if (p_local > 0.0)
		put_real(e, "p_local", p_local);
	else
		put_null(e, "p_local");
	ran(e, -log2(p_max));
}
static void tally(struct score *sc, int right)
{
	if (right) {
		sc->C++;
		if (++sc->run > sc->max_run)
			sc->max_run = sc->run;
	} else {
		sc->run = 0;
	}
}
static void window_rescan(struct window *win, int k)
{
	int y;

	win->top = -1;
	for (y = 0; y < k; y++)
		if (win->count[y] > win->top
		    || (win->count[y] == win->top
			&& win->last[y] > win->last[win->frequent])) {
			win->top = win->count[y];
			win->frequent = y;
		}
}

static void window_add(struct window *win, int y, long i)
{
	win->count[y]++;
	win->last[y] = i;
	if (win->count[y] >= win->top) {
		win->top = win->count[y];
		win->frequent = y;
	}
}
static void window_slide(struct window *win, const uint8_t *s, long i, int k)
{
	int out = s[i - win->w], y = s[i];

	win->count[out]--;
	if (out == win->frequent) {
		win->count[y]++;
		win->last[y] = i;
		window_rescan(win, k);
	} else {
		window_add(win, y, i);
	}
}
static void multi_mcw_estimate(const struct seq *x, struct estimate *e)
{
	static const long width[MCW_N] = { 63, 255, 1023, 4095 };
	struct window *win = xcalloc(MCW_N, sizeof *win);
	long score[MCW_N] = { 0 }, i;
	struct score sc = { 0, 0, 0 };
	int j, winner = 0;

	if (x->n < width[MCW_N - 1] + 1) {
		skipped(e, "needs at least 4096 samples");
		free(win);
		return;
	}
	for (j = 0; j < MCW_N; j++) {
		win[j].w = width[j];
		for (i = 0; i < width[j]; i++)
			window_add(&win[j], x->s[i], i);
	}
	for (i = width[0]; i < x->n; i++) {
		tally(&sc, win[winner].frequent == x->s[i]);
		for (j = 0; j < MCW_N; j++)
			if (i >= width[j] && win[j].frequent == x->s[i]
			    && ++score[j] >= score[winner])
				winner = j;
		for (j = 0; j < MCW_N; j++)
			if (i >= width[j])
				window_slide(&win[j], x->s, i, x->k);
	}
	free(win);
	prediction_estimate(sc.C, x->n - width[0], sc.max_run, x->k, e);
}
static void lag_estimate(const struct seq *x, struct estimate *e)
{
	long score[LAG_D + 1] = { 0 }, best = 0, i;
	struct score sc = { 0, 0, 0 };
	const uint8_t *s = x->s;
	int winner = 1, d, lim, hit;

	if (x->n < 3) {
		skipped(e, "needs at least 3 samples");
		return;
	}
	for (i = 1; i < x->n; i++) {
		tally(&sc, s[i - winner] == s[i]);
		lim = i < LAG_D ? (int)i : LAG_D;
		for (d = 1; d <= lim; d++) {
			hit = s[i - d] == s[i];
			score[d] += hit;
			if ((score[d] >= best) & hit) {
				winner = d;
				best = score[d];
			}
		}
	}
	prediction_estimate(sc.C, x->n - 1, sc.max_run, x->k, e);
}
static struct key key_before(const uint8_t *s, long end, int len)
{
	struct key k = { 0, 0 };
	int j;

	for (j = 0; j < len; j++) {
		k.hi = (k.hi << 8) | (k.lo >> 56);
		k.lo = (k.lo << 8) | s[end - len + j];
	}
	return k;
}
static uint64_t mix(struct key k)
{
	uint64_t h = k.lo * 0x9e3779b97f4a7c15ULL ^ k.hi * 0xc2b2ae3d27d4eb4fULL;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

static size_t map_slot(const struct map *m, struct key k)
{
	size_t i = (size_t)mix(k) & (m->cap - 1);

	while (m->val[i] >= 0 && (m->lo[i] != k.lo || m->hi[i] != k.hi))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void map_init(struct map *m, size_t cap)
{
	m->cap = cap;
	m->used = 0;
	m->lo = xmalloc(cap * sizeof *m->lo);
	m->hi = xmalloc(cap * sizeof *m->hi);
	m->val = xmalloc(cap * sizeof *m->val);
	memset(m->val, 0xff, cap * sizeof *m->val);
}

static void map_free(struct map *m)
{
	free(m->lo);
	free(m->hi);
	free(m->val);
}
static int32_t *map_at(struct map *m, struct key k);

static void map_grow(struct map *m)
{
	struct map old = *m;
	size_t i;

	map_init(m, 2 * old.cap);
	for (i = 0; i < old.cap; i++)
		if (old.val[i] >= 0) {
			struct key k = { old.lo[i], old.hi[i] };

			*map_at(m, k) = old.val[i];
		}
	map_free(&old);
}

static int32_t *map_at(struct map *m, struct key k)
{
	size_t i;

	if (2 * (m->used + 1) > m->cap)
		map_grow(m);
	i = map_slot(m, k);
	if (m->val[i] < 0) {
		m->lo[i] = k.lo;
		m->hi[i] = k.hi;
		m->val[i] = 0;
		m->used++;
	}
	return &m->val[i];
}
static void contexts_init(struct contexts *c)
{
	int j;

	for (j = 0; j < ORDERS; j++)
		map_init(&c->prefix[j], 1024);
	map_init(&c->follow, 1024);
	c->n = 0;
	c->cap = 1024;
	c->best = xmalloc(c->cap * sizeof *c->best);
	c->best_sym = xmalloc(c->cap);
}

static void contexts_free(struct contexts *c)
{
	int j;

	for (j = 0; j < ORDERS; j++)
		map_free(&c->prefix[j]);
	map_free(&c->follow);
	free(c->best);
	free(c->best_sym);
}
static long context_find(const struct contexts *c, int len, struct key k)
{
	const struct map *m = &c->prefix[len - 1];

	return m->val[map_slot(m, k)];
}

static long context_new(struct contexts *c, int len, struct key k)
{
	int32_t *slot = map_at(&c->prefix[len - 1], k);

	if (c->n == c->cap) {
		c->cap *= 2;
		c->best = xrealloc(c->best, c->cap * sizeof *c->best);
		c->best_sym = xrealloc(c->best_sym, c->cap);
	}
	c->best[c->n] = 0;
	c->best_sym[c->n] = 0;
	*slot = (int32_t)c->n;
	return c->n++;
}

static long context_get(struct contexts *c, int len, struct key k)
{
	long id = context_find(c, len, k);

	return id >= 0 ? id : context_new(c, len, k);
}
static int context_count(struct contexts *c, long id, int y, int may_add)
{
	struct key k = { (uint64_t)id, (uint64_t)y };
	int32_t n, added = c->follow.val[map_slot(&c->follow, k)] < 0;

	if (added && !may_add)
		return 0;
	n = ++*map_at(&c->follow, k);
	if (n > c->best[id] || (n == c->best[id] && y > c->best_sym[id])) {
		c->best[id] = n;
		c->best_sym[id] = (uint8_t)y;
	}
	return added;
}
static void mmc_general(const struct seq *x, struct score *sc)
{
	const uint8_t *s = x->s;
	struct contexts c;
	long entries[ORDERS] = { 0 }, score[ORDERS] = { 0 }, i, id = -1;
	int d, winner = 0, cur, found;

	contexts_init(&c);
	for (d = 0; d < ORDERS && d < x->n - 2; d++) {
		id = context_get(&c, d + 1, key_before(s, d + 1, d + 1));
		context_count(&c, id, s[d + 1], 1);
		entries[d] = 1;
	}
	for (i = 2; i < x->n; i++) {
		cur = winner;
		found = 0;
		for (d = 0; d < ORDERS && d <= i - 2; d++) {
			struct key k = key_before(s, i, d + 1);

			if (d == 0 || found) {
				id = context_find(&c, d + 1, k);
				found = id >= 0;
			}
			if (found) {
				if (c.best_sym[id] == s[i]) {
					if (++score[d] >= score[winner])
						winner = d;
					if (d == cur)
						tally(sc, 1);
				} else if (d == cur) {
					tally(sc, 0);
				}
				if (context_count(&c, id, s[i], entries[d] < MMC_MAX))
					entries[d]++;
			} else if (entries[d] < MMC_MAX) {
				id = context_get(&c, d + 1, k);
				context_count(&c, id, s[i], 1);
				entries[d]++;
			}
		}
	}
	contexts_free(&c);
}
static void mmc_binary(const struct seq *x, struct score *sc)
{
	const uint8_t *s = x->s;
	long *cnt[ORDERS], *c, entries[ORDERS] = { 0 }, score[ORDERS] = { 0 }, i;
	int d, winner = 0, cur, found = 0, y;
	uint32_t pat = 0;

	for (d = 0; d < ORDERS; d++)
		cnt[d] = xcalloc((size_t)4 << d, sizeof *cnt[d]);
	for (d = 0; d < ORDERS && d < x->n - 2; d++) {
		pat = (pat << 1) | s[d];
		cnt[d][2 * pat + s[d + 1]] = 1;
		entries[d] = 1;
	}
	for (i = 2; i < x->n; i++) {
		cur = winner;
		y = s[i];
		pat = 0;
		for (d = 0; d < ORDERS && d <= i - 2; d++) {
			pat |= (uint32_t)s[i - d - 1] << d;
			c = cnt[d] + 2 * pat;
			if (d == 0 || found)
				found = c[0] || c[1];
			if (found) {
				if ((c[0] > c[1] ? 0 : 1) == y) {
					if (++score[d] >= score[winner])
						winner = d;
					if (d == cur)
						tally(sc, 1);
				} else if (d == cur) {
					tally(sc, 0);
				}
				if (c[y]) {
					c[y]++;
				} else if (entries[d] < MMC_MAX) {
					c[y] = 1;
					entries[d]++;
				}
			} else if (entries[d] < MMC_MAX) {
				c[y] = 1;
				entries[d]++;
			}
		}
	}
	for (d = 0; d < ORDERS; d++)
		free(cnt[d]);
}
static void multi_mmc_estimate(const struct seq *x, struct estimate *e)
{
	struct score sc = { 0, 0, 0 };

	if (x->n < 3) {
		skipped(e, "needs at least 3 samples");
		return;
	}
	if (x->k == 2)
		mmc_binary(x, &sc);
	else
		mmc_general(x, &sc);
	prediction_estimate(sc.C, x->n - 2, sc.max_run, x->k, e);
}
static void lz78y_general(const struct seq *x, struct score *sc)
{
	const uint8_t *s = x->s;
	struct contexts c;
	long dict = 0, i, id, most;
	int j, guess = 0, have;

	contexts_init(&c);
	for (j = 1; j <= ORDERS; j++) {
		id = context_get(&c, j, key_before(s, ORDERS, j));
		context_count(&c, id, s[ORDERS], 1);
		dict++;
	}
	for (i = ORDERS + 1; i < x->n; i++) {
		have = 0;
		most = 0;
		for (j = ORDERS; j >= 1; j--) {
			struct key k = key_before(s, i, j);

			id = context_find(&c, j, k);
			if (id >= 0) {
				if (c.best[id] > most) {
					most = c.best[id];
					guess = c.best_sym[id];
					have = 1;
				}
				context_count(&c, id, s[i], 1);
			} else if (dict < LZ_MAX) {
				id = context_new(&c, j, k);
				context_count(&c, id, s[i], 1);
				dict++;
			}
		}
		tally(sc, have && guess == s[i]);
	}
	contexts_free(&c);
}
static void lz78y_binary(const struct seq *x, struct score *sc)
{
	const uint8_t *s = x->s;
	long *cnt[ORDERS], *c, dict = 0, i, most, top;
	int j, guess = 0, have, y;
	uint32_t pat = 0;

	for (j = 0; j < ORDERS; j++)
		cnt[j] = xcalloc((size_t)4 << j, sizeof *cnt[j]);
	for (j = 1; j <= ORDERS; j++) {
		pat |= (uint32_t)s[ORDERS - j] << (j - 1);
		cnt[j - 1][2 * pat + s[ORDERS]] = 1;
		dict++;
	}
	for (i = ORDERS + 1; i < x->n; i++) {
		have = 0;
		most = 0;
		y = s[i];
		for (pat = 0, j = 1; j <= ORDERS; j++)
			pat |= (uint32_t)s[i - j] << (j - 1);
		for (j = ORDERS; j >= 1; j--) {
			pat &= ((uint32_t)1 << j) - 1;
			c = cnt[j - 1] + 2 * pat;
			if (c[0] || c[1]) {
				top = c[0] > c[1] ? c[0] : c[1];
				if (top > most) {
					most = top;
					guess = c[0] > c[1] ? 0 : 1;
					have = 1;
				}
				c[y]++;
			} else if (dict < LZ_MAX) {
				c[y] = 1;
				dict++;
			}
		}
		tally(sc, have && guess == y);
	}
	for (j = 0; j < ORDERS; j++)
		free(cnt[j]);
}
static void lz78y_estimate(const struct seq *x, struct estimate *e)
{
	struct score sc = { 0, 0, 0 };

	if (x->n < ORDERS + 2) {
		skipped(e, "needs at least 18 samples");
		return;
	}
	if (x->k == 2)
		lz78y_binary(x, &sc);
	else
		lz78y_general(x, &sc);
	prediction_estimate(sc.C, x->n - ORDERS - 1, sc.max_run, x->k, e);
}
static void run_track(const struct seq *x, double ceiling, struct track *t)
{
	struct tuples tp;
	clock_t start = clock();
	int i;

	memset(t, 0, sizeof *t);
	t->present = 1;
	mcv_estimate(x, &t->e[MCV]);
	if (x->k == 2) {
		collision_estimate(x, &t->e[COLLISION]);
		markov_estimate(x, &t->e[MARKOV]);
		compression_estimate(x, &t->e[COMPRESSION]);
	}
	tuples_of(x, &tp);
	t_tuple_estimate(&tp, &t->e[T_TUPLE]);
	lrs_estimate(&tp, &t->e[LRS]);
	free(tp.q);
	free(tp.pairs);
	multi_mcw_estimate(x, &t->e[MULTI_MCW]);
	lag_estimate(x, &t->e[LAG]);
	multi_mmc_estimate(x, &t->e[MULTI_MMC]);
	lz78y_estimate(x, &t->e[LZ78Y]);
	t->h = ceiling;
	for (i = 0; i < ESTIMATORS; i++)
		if (t->e[i].state == RAN)
			t->h = fmin(t->h, t->e[i].h);
	t->seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
}
static void assess(struct result *r)
{
	struct seq lit = { r->src.sym, r->src.n, r->src.k };
	struct seq bits = { r->src.bits, r->src.n * r->src.width, 2 };

	run_track(&lit, r->src.width, &r->literal);
	r->h_original = r->literal.h;
	r->assessed = fmin(r->src.width, r->h_original);
	if (r->src.bits) {
		run_track(&bits, 1.0, &r->bitstring);
		r->h_bitstring = r->bitstring.h;
		r->assessed = fmin(r->assessed, r->src.width * r->h_bitstring);
	}
}
static void read_restart(struct restart *rs, int width)
{
	long n;

	rs->raw = slurp(rs->path, &n);
	if (n != (long)RESTARTS * RESTART_LEN)
		fail(rs->path, "%ld samples; a restart matrix is %d restarts x "
		     "%d samples = %ld (SP 800-90B 3.1.4.1)", n, RESTARTS,
		     RESTART_LEN, (long)RESTARTS * RESTART_LEN);
	check_width(rs->path, rs->raw, n, width);
}
static long binomial_cutoff(long n, double p, double alpha)
{
	double tail = 0.0, pmf;
	long u;

	if (p >= 1.0)
		return n;
	for (u = n; u > 0; u--) {
		pmf = exp(lgamma(n + 1.0) - lgamma(u + 1.0) - lgamma(n - u + 1.0)
			  + u * log(p) + (n - u) * log1p(-p));
		if (tail + pmf > alpha)
			break;
		tail += pmf;
	}
	return u;
}
static long most_common_in(const uint8_t *m, long start, long stride)
{
	long count[256] = { 0 }, best = 0, i;

	for (i = 0; i < RESTART_LEN; i++)
		if (++count[m[start + i * stride]] > best)
			best = count[m[start + i * stride]];
	return best;
}
static void sanity_check(struct restart *rs)
{
	long i, c;

	rs->alpha = 0.01 / (RESTARTS + RESTART_LEN);
	rs->cutoff = binomial_cutoff(RESTART_LEN, pow(2.0, -rs->h_i), rs->alpha);
	rs->x_row = rs->x_col = 0;
	for (i = 0; i < RESTARTS; i++)
		if ((c = most_common_in(rs->raw, i * RESTART_LEN, 1)) > rs->x_row)
			rs->x_row = c;
	for (i = 0; i < RESTART_LEN; i++)
		if ((c = most_common_in(rs->raw, i, RESTART_LEN)) > rs->x_col)
			rs->x_col = c;
	rs->x_max = rs->x_row > rs->x_col ? rs->x_row : rs->x_col;
	rs->sanity = rs->x_max <= rs->cutoff;
}
static void validate_restarts(struct restart *rs, int width)
{
	long n = (long)RESTARTS * RESTART_LEN, i, j;
	uint8_t *rows = xmalloc(n), *cols = xmalloc(n);
	struct seq r = { rows, n, 0 }, c = { cols, n, 0 };

	rs->k = r.k = c.k = translate(rs->raw, n, rows);
	for (i = 0; i < RESTARTS; i++)
		for (j = 0; j < RESTART_LEN; j++)
			cols[j * RESTARTS + i] = rows[i * RESTART_LEN + j];
	run_track(&r, width, &rs->rows);
	run_track(&c, width, &rs->cols);
	free(rows);
	free(cols);
	rs->h_r = rs->rows.h;
	rs->h_c = rs->cols.h;
	rs->validated = fmin(rs->h_r, rs->h_c) >= rs->h_i / 2.0;
	rs->h_final = fmin(fmin(rs->h_r, rs->h_c), rs->h_i);
}
static void restart_tests(struct restart *rs, int width)
{
	double low;

	sanity_check(rs);
	if (!rs->sanity) {
		snprintf(rs->reason, sizeof rs->reason, "sanity check (3.1.4.3) "
			 "failed: a value occurs %ld times in one %s, more than "
			 "the cutoff %ld for H_I = %.17g", rs->x_max,
			 rs->x_row >= rs->x_col ? "restart (row)" : "column",
			 rs->cutoff, rs->h_i);
		return;
	}
	validate_restarts(rs, width);
	rs->pass = rs->validated;
	low = fmin(rs->h_r, rs->h_c);
	snprintf(rs->reason, sizeof rs->reason, "sanity check (3.1.4.3) "
		 "passed; validation (3.1.4.2) %s: min(H_r, H_c) = %.17g %s "
		 "H_I/2 = %.17g", rs->pass ? "passed" : "failed", low,
		 rs->pass ? ">=" : "<", rs->h_i / 2.0);
}
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_real(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}
static void json_estimate(FILE *f, const struct estimate *e)
{
	int i;

	if (e->state == NOT_APPLIED) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	if (e->state == SKIPPED) {
		fputs("\"skipped\": ", f);
		json_string(f, e->why);
		fputs(", \"min_entropy\": null}", f);
		return;
	}
	for (i = 0; i < e->nfields; i++) {
		const struct field *fl = &e->f[i];

		fprintf(f, "\"%s\": ", fl->name);
		if (fl->kind == K_INT)
			fprintf(f, "%lld", fl->i);
		else if (fl->kind == K_REAL)
			json_real(f, fl->d);
		else if (fl->kind == K_BOOL)
			fputs(fl->i ? "true" : "false", f);
		else
			fputs("null", f);
		fputs(", ", f);
	}
	fputs("\"min_entropy\": ", f);
	json_real(f, e->h);
	fputc('}', f);
}
static void json_track(FILE *f, const char *name, const struct track *t,
		       const char *indent)
{
	int i;

	fprintf(f, "%s\"%s\": ", indent, name);
	if (!t->present) {
		fputs("null", f);
		return;
	}
	fputs("{\n", f);
	for (i = 0; i < ESTIMATORS; i++) {
		fprintf(f, "%s  \"%s\": ", indent, estimator_key[i]);
		json_estimate(f, &t->e[i]);
		fputs(i + 1 < ESTIMATORS ? ",\n" : "\n", f);
	}
	fprintf(f, "%s}", indent);
}
static void json_restart(FILE *f, const struct restart *rs)
{
	fputs(",\n  \"restart\": {\n    \"file\": ", f);
	json_string(f, rs->path);
	fputs(",\n    \"H_I\": ", f);
	json_real(f, rs->h_i);
	fprintf(f, ",\n    \"H_I_from\": \"%s\",\n", rs->h_i_given ? "option"
		: "3.1.3");
	fprintf(f, "    \"sanity\": {\"alpha\": %.17g, \"cutoff\": %ld, "
		"\"x_row\": %ld, \"x_col\": %ld, \"x_max\": %ld, \"pass\": %s},\n",
		rs->alpha, rs->cutoff, rs->x_row, rs->x_col, rs->x_max,
		rs->sanity ? "true" : "false");
	if (rs->sanity) {
		fprintf(f, "    \"distinct_symbols\": %d,\n", rs->k);
		json_track(f, "rows", &rs->rows, "    ");
		fputs(",\n", f);
		json_track(f, "columns", &rs->cols, "    ");
		fputs(",\n    \"H_r\": ", f);
		json_real(f, rs->h_r);
		fputs(", \"H_c\": ", f);
		json_real(f, rs->h_c);
		fputs(", \"H_validated\": ", f);
		json_real(f, rs->h_final);
		fputs(",\n", f);
	}
	fprintf(f, "    \"verdict\": \"%s\",\n    \"reason\": ",
		rs->pass ? "pass" : "fail");
	json_string(f, rs->reason);
	fputs("\n  }", f);
}
static void json_result(FILE *f, const struct result *r)
{
	fputs("{\n  \"tool\": \"assess\",\n  \"standard\": \"NIST SP 800-90B, "
	      "non-IID track\",\n  \"file\": ", f);
	json_string(f, r->src.path);
	fprintf(f, ",\n  \"samples\": %ld,\n  \"bits_per_symbol\": %d,\n"
		"  \"width_from\": \"%s\",\n  \"distinct_symbols\": %d,\n"
		"  \"short\": %s,\n", r->src.n, r->src.width,
		r->src.width_given ? "option" : "data", r->src.k,
		r->src.n < SEQUENTIAL_MIN ? "true" : "false");
	json_track(f, "literal", &r->literal, "  ");
	fputs(",\n", f);
	json_track(f, "bitstring", &r->bitstring, "  ");
	fputs(",\n  \"H_original\": ", f);
	json_real(f, r->h_original);
	fputs(",\n  \"H_bitstring\": ", f);
	if (r->bitstring.present)
		json_real(f, r->h_bitstring);
	else
		fputs("null", f);
	fputs(",\n  \"assessed\": ", f);
	json_real(f, r->assessed);
	fputs(",\n  \"H_submitter\": ", f);
	if (r->submitter_given)
		json_real(f, r->h_submitter);
	else
		fputs("null", f);
	fputs(",\n  \"H_I\": ", f);
	json_real(f, r->h_i);
	fprintf(f, ",\n  \"cpu_seconds\": {\"literal\": %.3f, \"bitstring\": "
		"%.3f}", r->literal.seconds, r->bitstring.seconds);
	if (r->restart)
		json_restart(f, r->restart);
	fputs("\n}\n", f);
}
static void summary_cell(FILE *f, const struct estimate *e)
{
	if (e->state == RAN)
		fprintf(f, " %22.17g", e->h);
	else
		fprintf(f, " %22s", e->state == SKIPPED ? "skipped" : "-");
}

static void summary(FILE *f, const struct result *r)
{
	int i;

	fprintf(f, "%s: %ld samples of %d bit%s (%s), %d distinct\n",
		r->src.path, r->src.n, r->src.width, r->src.width > 1 ? "s" : "",
		r->src.width_given ? "declared" : "from the data", r->src.k);
	if (r->src.n < SEQUENTIAL_MIN)
		fprintf(f, "warning: fewer than %ld samples (SP 800-90B 3.1.1)\n",
			SEQUENTIAL_MIN);
	fprintf(f, "%-12s %22s %22s\n", "estimator", "literal", "bitstring");
	for (i = 0; i < ESTIMATORS; i++) {
		fprintf(f, "%-12s", estimator_key[i]);
		summary_cell(f, &r->literal.e[i]);
		summary_cell(f, &r->bitstring.e[i]);
		fputc('\n', f);
	}
	fprintf(f, "H_original   %.17g\n", r->h_original);
	if (r->bitstring.present)
		fprintf(f, "H_bitstring  %.17g\n", r->h_bitstring);
	fprintf(f, "assessed     %.17g bits per %d-bit sample (SP 800-90B 3.1.3)\n",
		r->assessed, r->src.width);
	if (r->submitter_given)
		fprintf(f, "H_I          %.17g: the smaller of it and the claim %.17g\n",
			r->h_i, r->h_submitter);
	if (r->restart)
		fprintf(f, "restart      %s: %s\n", r->restart->pass ? "PASS" : "FAIL",
			r->restart->reason);
}
static void usage(void)
{
	fputs("usage: assess [--bits N] [--allow-short] [--json FILE|-]\n"
	      "              [--submitter X] [--restart FILE [--hi X]] FILE\n",
	      stderr);
	exit(2);
}

static double number(const char *opt, const char *arg, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= lo && v <= hi))
		fail(opt, "'%s' is not a number in [%g, %g]", arg, lo, hi);
	return v;
}
static void parse_options(int argc, char **argv, struct options *o,
			  struct result *r, struct restart *rs)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--allow-short")) {
			o->allow_short = 1;
		} else if (i + 1 >= argc) {
			usage();
		} else if (!strcmp(argv[i], "--bits")) {
			r->src.width = (int)number("--bits", argv[++i], 1, 8);
			if (r->src.width != atof(argv[i]))
				fail("--bits", "'%s' is not a whole number", argv[i]);
			r->src.width_given = 1;
		} else if (!strcmp(argv[i], "--json")) {
			o->json = argv[++i];
		} else if (!strcmp(argv[i], "--restart")) {
			rs->path = argv[++i];
		} else if (!strcmp(argv[i], "--hi")) {
			rs->h_i = number("--hi", argv[++i], 0, 8);
			rs->h_i_given = 1;
		} else if (!strcmp(argv[i], "--submitter")) {
			r->h_submitter = number("--submitter", argv[++i], 0, 8);
			r->submitter_given = 1;
		} else {
			usage();
		}
	}
	if (i != argc - 1 || (rs->h_i_given && !rs->path))
		usage();
	if (rs->h_i_given && r->submitter_given)
		fail("--hi", "the claim is given twice (--hi and --submitter)");
	r->src.path = argv[i];
}
int main(int argc, char **argv)
{
	static struct result r;
	static struct restart rs;
	struct options o = { NULL, 0 };

	parse_options(argc, argv, &o, &r, &rs);
	read_source(&r.src, o.allow_short);
	if (rs.h_i_given && !(rs.h_i > 0 && rs.h_i <= r.src.width))
		fail("--hi", "H_I = %g is not in (0, %d]", rs.h_i, r.src.width);
	if (r.submitter_given && !(r.h_submitter > 0))
		fail("--submitter", "a claim of %g bits is no claim", r.h_submitter);
	if (rs.path)
		read_restart(&rs, r.src.width);
	assess(&r);
	r.h_i = r.submitter_given ? fmin(r.h_submitter, r.assessed) : r.assessed;
	if (rs.path) {
		if (!rs.h_i_given)
			rs.h_i = r.h_i;
		r.restart = &rs;
		restart_tests(&rs, r.src.width);
	}
	if (o.json) {
		FILE *out = strcmp(o.json, "-") ? fopen(o.json, "w") : stdout;

		if (!out)
			fail(o.json, "cannot write: %s", strerror(errno));
		json_result(out, &r);
		if (fflush(out) || ferror(out) || (out != stdout && fclose(out)))
			fail(o.json, "cannot write: %s", strerror(errno));
	}
	if (!o.json || strcmp(o.json, "-"))
		summary(stdout, &r);
	return r.restart && !r.restart->pass ? 1 : 0;
}
