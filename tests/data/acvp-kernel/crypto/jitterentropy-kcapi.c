// SPDX-License-Identifier: GPL-2.0-only
/* Excerpts of crypto/jitterentropy-kcapi.c. */

#define JENT_CONDITIONING_HASH	"sha3-256"
