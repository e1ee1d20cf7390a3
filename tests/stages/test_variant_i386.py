# SPDX-License-Identifier: GPL-2.0-only
"""make conform ARCH=i386: the test kernel's boots again, on a 32-bit
kernel, QEMU and /init.

The i386 plan is every non-optional boot of the test kernel, with the
variant i386 and its check ids prefixed "i386."; it is booted alone (its
boots have the test kernel's names); QEMU is qemu-system-i386 with a
32-bit CPU model; the kernel is built with ARCH=i386 from the test
fragment and the i386 one; the /init is compiled with -m32 and is a
32-bit executable.
"""

import tempfile
import unittest

from harness.base import config, guest, kbuild, qemu
from harness.stages import inputs
from harness.stages.plan import BOOTS


class I386PlanTest(unittest.TestCase):
    def test_every_test_boot_again_with_the_prefix(self):
        plan = inputs.select_plan([], ["i386"])
        want = [b["name"] for b in BOOTS
                if b.get("variant", "test") == "test" and not b.get("optional")]
        self.assertEqual([b["name"] for b in plan], want)
        self.assertTrue(all(b["variant"] == "i386" for b in plan))
        self.assertTrue(all(b["prefix"].split(".")[0] == "i386" for b in plan))
        fips = [b for b in plan if b["name"] == "fips-drbg"][0]
        self.assertEqual(fips["prefix"], "i386.fips")

    def test_named_boots_only(self):
        plan = inputs.select_plan(["cavs", "jitter"], ["i386"])
        self.assertEqual([b["name"] for b in plan], ["cavs", "jitter"])

    def test_booted_alone(self):
        with self.assertRaises(inputs.InputError) as e:
            inputs.select_plan([], ["test", "i386"])
        self.assertIn("booted alone", str(e.exception))


class I386MachineTest(unittest.TestCase):
    def test_qemu_binary_and_cpu(self):
        argv = qemu.build_argv("bz", "rd", "", "c.log", "r.log", arch="i386")
        self.assertEqual(argv[0], "qemu-system-i386")
        self.assertTrue(argv[argv.index("-cpu") + 1].startswith("qemu32"))
        self.assertEqual(qemu.build_argv("bz", "rd", "", "c", "r")[0], "qemu-system-x86_64")

    def test_kernel_arch_and_fragments(self):
        self.assertEqual(kbuild.arch_of("i386"), "i386")
        self.assertEqual(kbuild.arch_of("debug"), "x86_64")
        self.assertEqual(kbuild.VARIANTS["i386"][0], "conformance/kconfig/test.config")
        with open(config.top(kbuild.VARIANTS["i386"][1])) as f:
            self.assertIn("CONFIG_X86_32=y", f.read())

    def test_init_is_32_bit(self):
        with tempfile.TemporaryDirectory() as d:
            init = guest.build(outdir=d, arch="i386")
            with open(init, "rb") as f:
                head = f.read(5)
        self.assertEqual(head[:4], b"\x7fELF")
        self.assertEqual(head[4], 1, "ELFCLASS32")


if __name__ == "__main__":
    unittest.main()
