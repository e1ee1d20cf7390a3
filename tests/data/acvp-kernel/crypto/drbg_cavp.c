// SPDX-License-Identifier: GPL-2.0-only
/* Excerpts of crypto/drbg_cavp.c. */

#define DRBG_CAVP_HDR		116
#define DRBG_CAVP_MAX_REQ	SZ_1M
#define DRBG_CAVP_MAX_OUT	SZ_256K
#define DRBG_CAVP_RESEED	BIT(0)
#define DRBG_CAVP_PR		BIT(1)

static int __init drbg_cavp_init(void)
{
	struct dentry *dir = debugfs_create_dir("drbg_cavp", NULL);

	debugfs_create_file("run", 0600, dir, NULL, &drbg_cavp_run_fops);
	debugfs_create_file("trace", 0600, dir, NULL, &drbg_cavp_trace_fops);
	pr_warn("DRBG: test interface in debugfs enabled: testing only\n");
	return 0;
}
