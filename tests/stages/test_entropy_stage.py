# SPDX-License-Identifier: GPL-2.0-only
"""The verb entropy (harness/stages/entropy.py): the guest's data channel
is split by the sizes and FNV-1a hashes the guest announced, or refused;
files are not rewritten when they hold the same bytes; a source that
cannot be collected is a failed check naming why, not a crash.
"""

import argparse
import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness.judges import entropy_collect as ec
from harness.stages import entropy


def fnv_reference(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) % 2 ** 64
    return h


class DataChannelTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="entropy-stage-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def parts(self, seq, rs):
        return {"seq": {"part": "seq", "bytes": len(seq), "ok": True,
                        "fnv64": f"{fnv_reference(seq):016x}"},
                "restart": {"part": "restart", "bytes": len(rs), "ok": True,
                            "fnv64": f"{fnv_reference(rs):016x}"}}

    def write(self, data):
        path = os.path.join(self.tmp, "data.bin")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_fnv1a_is_fnv1a(self):
        self.assertEqual(entropy.fnv1a(b""), 0xcbf29ce484222325)
        self.assertEqual(entropy.fnv1a(b"a"), 0xaf63dc4c8601ec8c)
        data = os.urandom(200000)
        self.assertEqual(entropy.fnv1a(data), fnv_reference(data))

    def test_split_as_announced(self):
        seq, rs = os.urandom(800), os.urandom(1600)
        entropy.split_data(self.write(seq + rs), self.parts(seq, rs), self.tmp)
        with open(os.path.join(self.tmp, "deltas.bin"), "rb") as f:
            self.assertEqual(f.read(), seq)
        with open(os.path.join(self.tmp, "restart-deltas.bin"), "rb") as f:
            self.assertEqual(f.read(), rs)

    def test_corrupt_short_or_long_data_is_refused(self):
        seq, rs = os.urandom(800), os.urandom(1600)
        parts = self.parts(seq, rs)
        bad = bytearray(seq + rs)
        bad[900] ^= 1
        for data, why in ((bytes(bad), "restart part .* does not match its hash"),
                          (seq + rs[:-8], "restart part .* does not match"),
                          (seq + rs + b"x", "1 bytes more than announced")):
            with self.assertRaisesRegex(ec.CollectError, why):
                entropy.split_data(self.write(data), parts, self.tmp)
        del parts["restart"]
        with self.assertRaisesRegex(ec.CollectError, "did not send its restart part"):
            entropy.split_data(self.write(seq + rs), parts, self.tmp)

    def test_same_bytes_are_not_rewritten(self):
        p = os.path.join(self.tmp, "x.bin")
        entropy.write_bytes(p, b"abc")
        os.utime(p, (1, 1))
        entropy.write_bytes(p, b"abc")
        self.assertEqual(os.path.getmtime(p), 1)
        entropy.write_bytes(p, b"abd")
        self.assertNotEqual(os.path.getmtime(p), 1)


class RunTest(unittest.TestCase):

    def test_a_source_that_fails_is_a_failed_check(self):
        """A kernel that is not built: the source is reported with its
        reason, the other sources are not affected, the exit status is 1."""
        tmp = tempfile.mkdtemp(prefix="entropy-run-")
        try:
            args = argparse.Namespace(sources="ours-kernel", samples=1000, restarts=1,
                                      len=1000, accel="tcg", json=os.path.join(tmp, "c.json"),
                                      reuse=False)
            with mock.patch.object(entropy, "OUT", tmp), \
                    mock.patch.object(entropy, "collect_kernel",
                                      side_effect=ec.CollectError("no finished test kernel")):
                rc = entropy.run(args)
            self.assertEqual(rc, 1)
            with open(args.json) as f:
                text = f.read()
            self.assertIn('"entropy.ours-kernel.collected"', text)
            self.assertIn("no finished test kernel", text)
        finally:
            shutil.rmtree(tmp)

    def test_unknown_source_is_one_line(self):
        args = argparse.Namespace(sources="theirs", samples=1, restarts=1, len=1,
                                  accel="tcg", json=None, reuse=False)
        with self.assertRaisesRegex(SystemExit, "unknown source 'theirs'"):
            entropy.run(args)


if __name__ == "__main__":
    unittest.main()
