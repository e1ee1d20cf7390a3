/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <asm/unaligned.h> for 6.1's crypto/sha3_generic.c in user space:
 * little-endian loads and stores at any address.  x86 is little-endian and
 * reads unaligned words, so each is one move, as in the kernel.
 */
#ifndef ENTROPY_ASM_UNALIGNED_H
#define ENTROPY_ASM_UNALIGNED_H

#include <linux/types.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "these helpers are for a little-endian host"
#endif

static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void put_unaligned_le64(u64 v, void *p)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_le32(u32 v, void *p)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

#endif
