/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <linux/bitops.h> for 6.1's crypto/sha3_generic.c in user space: the one
 * rotation it uses.  The kernel's headers bring it in through
 * <crypto/internal/hash.h>; so does this one.
 */
#ifndef ENTROPY_LINUX_BITOPS_H
#define ENTROPY_LINUX_BITOPS_H

#include <linux/types.h>

/* word rotated left by shift bits (0 to 63) */
static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((64 - shift) & 63));
}

#endif
