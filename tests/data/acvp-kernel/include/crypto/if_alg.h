/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Excerpts of include/crypto/if_alg.h. */

#define ALG_MAX_PAGES			16
