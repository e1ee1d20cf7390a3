// SPDX-License-Identifier: GPL-2.0-only
/*
 * Drives the tangled Jitter RNG core from commands on stdin, one per line,
 * and prints what the host compares with its model (the tests in
 * tests/judges/test_jitter.py, the figures in harness/judges/jitter_replay.py).
 * The core is included whole, so that its static functions can be called
 * one by one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "jitterentropy.c"

static int tracing;

void shim_trace(const void *ec, unsigned long long time,
		unsigned long long delta, unsigned int mem_loops,
		unsigned int fold_loops)
{
	(void)ec;
	if (tracing)
		printf("m %llu %llu %u %u\n", time, delta, mem_loops, fold_loops);
}

static void hex(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/* The lag predictor's state: history, scores, best, run, count, seen. */
static void print_lag(const struct jent_health *h)
{
	unsigned int i;

	printf(" lag=");
	for (i = 0; i < JENT_LAG_HISTORY; i++)
		printf("%llu,", h->lag_history[i]);
	for (i = 0; i < JENT_LAG_HISTORY; i++)
		printf("%u,", h->lag_score[i]);
	printf("%u,%u,%u,%u", h->lag_best, h->lag_run, h->lag_count, h->lag_seen);
}

static void print_state(const struct rand_data *ec)
{
	const struct jent_health *h = &ec->health;

	printf("state block=");
	hex(ec->block, sizeof(ec->block));
	printf(" prev=%llu ld=%llu ld2=%llu loc=%u osr=%u rct_last=%llu rct_run=%u"
	       " apt_base=%llu apt_count=%u apt_seen=%u stuck_run=%u priming=%u"
	       " spanned=%u failed=%d reads=%llu",
	       ec->prev_time, ec->last_delta, ec->last_delta2, ec->memlocation,
	       ec->osr, h->rct_last, h->rct_run, h->apt_base, h->apt_count,
	       h->apt_seen, h->stuck_run, ec->priming, ec->spanned, ec->failed,
	       shim_timer_reads());
	print_lag(h);
	printf(" in=");
	hex(ec->in, sizeof(ec->in));
	printf(" mem=");
	if (ec->mem)
		hex(ec->mem, JENT_MEMORY_SIZE);
	else
		printf("none");
	printf("\n");
}

/*
 * hfeed N K D1 .. DK: N deltas D1 .. DK, D1 .. DK, ... into the health
 * tests of a fresh collector's counters; prints how many samples got each
 * level, then the counters.
 */
static void hfeed(void)
{
	static struct jent_health h;
	static unsigned long long d[1 << 16];
	unsigned long n = strtoul(strtok(NULL, " \n"), NULL, 0), i;
	unsigned long k = strtoul(strtok(NULL, " \n"), NULL, 0);
	unsigned long lv[3] = { 0 };

	memset(&h, 0, sizeof(h));
	for (i = 0; i < k && i < sizeof(d) / sizeof(d[0]); i++)
		d[i] = strtoull(strtok(NULL, " \n"), NULL, 0);
	for (i = 0; k && i < n; i++)
		lv[jent_health_insert(&h, d[i % k])]++;
	printf("hfeed ok=%lu intermittent=%lu permanent=%lu rct_last=%llu rct_run=%u"
	       " apt_base=%llu apt_count=%u apt_seen=%u", lv[0], lv[1], lv[2],
	       h.rct_last, h.rct_run, h.apt_base, h.apt_count, h.apt_seen);
	print_lag(&h);
	printf("\n");
}

int main(void)
{
	static char line[1 << 20];
	struct rand_data *ec = NULL;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while (fgets(line, sizeof(line), stdin)) {
		char *tok = strtok(line, " \n");
		unsigned long long a, b;

		if (!tok)
			continue;
		if (!strcmp(tok, "timer")) {
			shim_timer_reset(strtoull(strtok(NULL, " \n"), NULL, 0));
		} else if (!strcmp(tok, "inc") || !strcmp(tok, "set")) {
			int inc = !strcmp(tok, "inc");
			char *v;

			while ((v = strtok(NULL, " \n"))) {
				if (inc)
					shim_timer_inc(strtoull(v, NULL, 0));
				else
					shim_timer_set(strtoull(v, NULL, 0));
			}
		} else if (!strcmp(tok, "rand")) {
			unsigned long long s = strtoull(strtok(NULL, " \n"), NULL, 0);
			unsigned long long base = strtoull(strtok(NULL, " \n"), NULL, 0);
			unsigned long long spread = strtoull(strtok(NULL, " \n"), NULL, 0);

			shim_timer_rand(s, base, spread, strtoull(strtok(NULL, " \n"), NULL, 0));
		} else if (!strcmp(tok, "const")) {
			shim_timer_const(strtoull(strtok(NULL, " \n"), NULL, 0));
		} else if (!strcmp(tok, "real")) {
			shim_timer_real();
		} else if (!strcmp(tok, "tsc")) {
			printf("tsc %s\n", shim_timer_tsc());
		} else if (!strcmp(tok, "record")) {
			shim_record(atoi(strtok(NULL, " \n")));
		} else if (!strcmp(tok, "stamps")) {
			const unsigned long long *st;
			size_t i, n = shim_recorded(&st);

			printf("stamps %zu\n", n);
			for (i = 0; i < n; i++)
				printf("s %llu\n", st[i]);
		} else if (!strcmp(tok, "trace")) {
			tracing = atoi(strtok(NULL, " \n"));
		} else if (!strcmp(tok, "allocfail")) {
			shim_alloc_fail_at(atoi(strtok(NULL, " \n")));
		} else if (!strcmp(tok, "hashfail")) {
			shim_hash_fails = atoi(strtok(NULL, " \n"));
		} else if (!strcmp(tok, "new")) {
			a = strtoull(strtok(NULL, " \n"), NULL, 0);
			b = strtoull(strtok(NULL, " \n"), NULL, 0);
			jent_entropy_collector_free(ec);
			ec = jent_entropy_collector_alloc(a, b, NULL);
			printf("new %s\n", ec ? "ok" : "null");
		} else if (!strcmp(tok, "free")) {
			jent_entropy_collector_free(ec);
			ec = NULL;
			printf("free live=%u\n", shim_alloc_live());
		} else if (!strcmp(tok, "freenull")) {
			jent_entropy_collector_free(NULL);
			printf("freenull ok\n");
		} else if (!strcmp(tok, "read")) {
			unsigned int len = strtoul(strtok(NULL, " \n"), NULL, 0);
			unsigned char *buf = malloc(len + 1);
			int ret;

			memset(buf, 0xa5, len + 1);
			ret = jent_read_entropy(ec, buf, len);
			printf("read %d ", ret);
			hex(buf, len);
			printf(" guard=%02x\n", buf[len]);
			free(buf);
		} else if (!strcmp(tok, "state")) {
			print_state(ec);
		} else if (!strcmp(tok, "startup")) {
			struct jent_startup_stats s;
			int ret = jent_entropy_init(&s);

			printf("startup %d samples=%u stuck=%u varied=%u mod100=%u backwards=%u"
			       " rct_max=%u apt_max=%u dmin=%llu dmax=%llu dsum=%llu reads=%llu"
			       " live=%u\n", ret, s.samples, s.stuck, s.varied, s.mod100,
			       s.backwards, s.rct_max, s.apt_max, s.delta_min, s.delta_max,
			       s.delta_sum, shim_timer_reads(), shim_alloc_live());
		} else if (!strcmp(tok, "shuffle")) {
			a = strtoull(strtok(NULL, " \n"), NULL, 0);
			b = strtoull(strtok(NULL, " \n"), NULL, 0);
			printf("shuffle %u\n", jent_loop_shuffle(a, b));
		} else if (!strcmp(tok, "fold")) {
			a = strtoull(strtok(NULL, " \n"), NULL, 0);
			b = strtoull(strtok(NULL, " \n"), NULL, 0);
			printf("fold %llu\n", jent_fold_time(a, b));
		} else if (!strcmp(tok, "memaccess")) {
			jent_memaccess(ec, strtoul(strtok(NULL, " \n"), NULL, 0));
		} else if (!strcmp(tok, "stuck")) {
			a = strtoull(strtok(NULL, " \n"), NULL, 0);
			printf("stuck %d\n", jent_stuck(ec, a));
		} else if (!strcmp(tok, "setblock")) {
			/* setblock HEX: the chaining block, 32 bytes */
			char *h = strtok(NULL, " \n");
			size_t i;

			for (i = 0; i < sizeof(ec->block); i++)
				sscanf(h + 2 * i, "%2hhx", &ec->block[i]);
		} else if (!strcmp(tok, "counted")) {
			/* one counted sample, or the health failure on the way */
			u64 delta = 0;
			int level = jent_counted_sample(ec, &delta);

			printf("counted %d %llu\n", level, delta);
		} else if (!strcmp(tok, "hfeed")) {
			hfeed();
		} else if (!strcmp(tok, "sha3")) {
			char *h = strtok(NULL, " \n");
			size_t n = h ? strlen(h) / 2 : 0, i;
			unsigned char *in = malloc(n + 1), out[32];

			for (i = 0; i < n; i++)
				sscanf(h + 2 * i, "%2hhx", &in[i]);
			shim_sha3_256(in, n, out);
			printf("sha3 ");
			hex(out, 32);
			printf("\n");
			free(in);
		} else {
			printf("error unknown command %s\n", tok);
			return 2;
		}
	}
	fflush(stdout);
	return 0;
}
