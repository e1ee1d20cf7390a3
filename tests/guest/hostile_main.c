// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's hostile-input checks (conformance/guest/hostile.c) built for
 * the host, for test_hostile.py: the file is included whole, so that its
 * static functions can be called, with the paths of the kernel interfaces
 * it uses given by the test (-DTRACE=... and the others).
 *
 *   hostile_main fail-nth     the allocation-failure loop, its record on stdout
 *   hostile_main misaligned   the misaligned-buffer case: the address parity
 *                             and the bytes written, as JSON
 */
#include "hostile.c"

static int misaligned(void)
{
	static uint8_t msg[4096];
	uint32_t lens[9] = { 16, 8, 0, 0, 0, 0, 0, 0, 0 };
	size_t n = run_req(msg, sizeof(msg) - 2, "drbg_nopr_sha256", 0, 32, lens);
	uint8_t *p = misaligned_copy(msg, n);
	static char hex[2 * sizeof(msg) + 1];

	hex_encode(hex, p, n);
	printf("{\"odd\":%d,\"len\":%zu,\"hex\":\"%s\"}\n", (int)((uintptr_t)p & 1), n, hex);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "fail-nth")) {
		fail_every_allocation();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "misaligned"))
		return misaligned();
	fprintf(stderr, "usage: %s fail-nth|misaligned\n", argv[0]);
	return 2;
}
