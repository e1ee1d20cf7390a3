/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers every part of the guest's /init shares; see util.c. */
#ifndef GUEST_UTIL_H
#define GUEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The 22 DRBG driver names of Linux 6.1 (drbg_cores[] x {pr, nopr}). */
extern const char *const drbg_drivers[22];

/* Read up to n - 1 bytes of path into buf (NUL-terminated); bytes or -1. */
int read_file(const char *path, char *buf, size_t n);
int write_file(const char *path, const char *text);

/*
 * The whole of path into a malloc()ed *bufp (one byte of room beyond it)
 * and its length into *lenp; 0, or -errno.
 */
int read_whole(const char *path, uint8_t **bufp, size_t *lenp);

/* The kernel command line (read once from /proc/cmdline). */
const char *kernel_cmdline(void);

/* The value of key=value on the kernel command line into out, or NULL. */
const char *cmdline_value(const char *key, char *out, size_t n);

/* 1 when getrandom() would not block now. */
int crng_ready_now(void);

/* "TCGTCGTCGTCG", "KVMKVMKVM" or "": the hypervisor's CPUID signature. */
void hypervisor_signature(char sig[13]);

/* Monotonic time in microseconds. */
long long now_us(void);

/* Little-endian 32-bit fields of the kernel test interfaces' messages. */
void put_le32(uint8_t *p, uint32_t v);
uint32_t get_le32(const uint8_t *p);

/* Lowercase hex of n bytes into out, which holds 2 n + 1 characters. */
void hex_encode(char *out, const uint8_t *b, size_t n);

/*
 * An AF_ALG socket bound to the "rng" algorithm called name (a longer
 * name is cut to what sockaddr_alg holds), or -errno.
 */
int rng_bind(const char *name);

#endif
