// SPDX-License-Identifier: GPL-2.0-only
/*
 * A length-prefixed zeroing allocator (see zalloc.h).  The length is kept
 * in the two words in front of the block, so that the block stays aligned
 * for any type and the free can clear exactly what was handed out.
 */
#include "zalloc.h"

#include <stdlib.h>
#include <string.h>

void *host_zalloc(unsigned int len)
{
	size_t *p = calloc(1, sizeof(size_t) * 2 + len);

	if (!p)
		return NULL;
	p[0] = len;
	return p + 2;
}

void host_zfree(void *ptr)
{
	size_t *p;

	if (!ptr)
		return;
	p = (size_t *)ptr - 2;
	memset(ptr, 0, p[0]);
	free(p);
}
