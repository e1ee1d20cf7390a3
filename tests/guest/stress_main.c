// SPDX-License-Identifier: GPL-2.0-only
/*
 * make stress's guest calls (conformance/guest/stress.c, stress_blk.c)
 * built for the host, for test_stress.py, with the paths of the kernel
 * interfaces given by the test (-DSTRESS_RUN=... and the others).  No
 * AF_ALG socket is opened: the sockets stay closed (-1), and the calls
 * that would bind one (af_alg_cycle) are left out.
 *
 *   stress_main plan SEED N    the plan of N calls: their FNV-1a hash and
 *                              how many went to each interface, as JSON
 *   stress_main calls SEED N   N calls made against the test's files: the
 *                              calls made, the unexpected results, the
 *                              first of them, as JSON
 *   stress_main blk SEED       one write to the blocking API's stress file:
 *                              its result and the counts read back, as JSON
 *   stress_main faults         the allocation-failure loop, its records on
 *                              stdout (AF_ALG paths left out, as above)
 *   stress_main slabtop A B    two /proc/slabinfo files: the caches read
 *                              from each and those that grew most, as JSON
 *   stress_main shrink DIR     each DIR/<cache>/shrink written "1": how many
 */
#include "stress.c"
#include "stress_blk.c"
#include "stress_faults.c"

static int plan(uint64_t seed, long n)
{
	uint64_t x = seed ? seed : 1, hash = 0xcbf29ce484222325ULL;
	long count[S_IFACES] = { 0 }, i;
	struct stress_call c;

	for (i = 0; i < n; i++) {
		stress_plan(&x, &c, &hash);
		count[c.iface]++;
	}
	printf("{\"fnv\":\"%016llx\",\"counts\":[", (unsigned long long)hash);
	for (i = 0; i < S_IFACES; i++)
		printf("%s%ld", i ? "," : "", count[i]);
	printf("]}\n");
	return 0;
}

static int calls(uint64_t seed, long n)
{
	uint64_t x = seed ? seed : 1, hash = 0;
	struct stress_call c;
	struct stress s;
	long i;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < ALG_SOCKS; i++)
		s.parent[i] = s.op[i] = -1;
	s.jitter = -1;
	for (i = 0; i < n; i++) {
		stress_plan(&x, &c, &hash);
		if (c.iface != S_ALG_CYCLE)
			one_call(&s, &c);
	}
	printf("{\"calls\":%ld,\"unexpected\":%ld,\"first\":\"%s\"}\n", s.calls,
	       s.unexpected, s.first);
	return 0;
}

static int blk(uint64_t seed)
{
	struct blk_result res;
	long r = blocking_run(seed, 16, &res);

	printf("{\"result\":%ld,\"queued\":%u,\"callbacks\":%u,\"errors\":%d,"
	       "\"ready_at_start\":%d,\"ready_at_end\":%d}\n", r, res.queued,
	       res.callbacks, res.errors, res.ready_at_start, res.ready_at_end);
	return 0;
}

static int faults(void)
{
	static const struct fault_op ops[] = { { "run", op_run }, { "trace", op_trace } };

	if (access(FAULT_NTH, F_OK) || !set_knob(FAULT_SLAB, "ignore-gfp-wait", "N")) {
		printf("{\"skip\":1}\n");
		return 0;
	}
	fault_points(&ops[0], fault_drivers[0]);
	fault_points(&ops[1], fault_drivers[1]);
	return 0;
}

static int slabtop(const char *a, const char *b)
{
	static struct slab_mark ma, mb;
	char top[512];

	slab_parse(&ma, a);
	slab_parse(&mb, b);
	slab_top(&ma, &mb, top, sizeof(top));
	printf("{\"caches_a\":%d,\"caches_b\":%d,\"top\":\"%s\"}\n", ma.n, mb.n, top);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "faults"))
		return faults();
	if (argc == 3 && !strcmp(argv[1], "blk"))
		return blk(strtoull(argv[2], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "plan"))
		return plan(strtoull(argv[2], NULL, 0), atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "calls"))
		return calls(strtoull(argv[2], NULL, 0), atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "slabtop"))
		return slabtop(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "shrink"))
		return printf("{\"shrunk\":%d}\n", slab_shrink_all(argv[2])) < 0;
	fprintf(stderr, "usage: %s plan|calls SEED N | blk SEED | faults | slabtop A B | shrink DIR\n",
		argv[0]);
	return 2;
}
