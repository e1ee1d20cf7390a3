/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host builds' stand-in for the kernel's jent_zalloc() and jent_zfree()
 * (crypto/jitterentropy-kcapi.c: kzalloc() and kfree_sensitive()): zeroed
 * memory, zeroed again before it is freed.  The entropy collectors
 * (collect.c) call it as it is; the Jitter RNG's test driver
 * (conformance/jitter/shim.c) wraps it with its count of live blocks and
 * its allocation made to fail.
 */
#ifndef ENTROPY_ZALLOC_H
#define ENTROPY_ZALLOC_H

void *host_zalloc(unsigned int len);
void host_zfree(void *ptr);

#endif
