# SPDX-License-Identifier: GPL-2.0-only
"""The package's imports run one way: base below judges below stages; the
book reads data files and imports no judge and no measuring stage;
nothing imports from tests/; nothing touches the module search path."""

import ast
import os
import unittest

from harness.base import config

PKG = config.top("harness")
LAYERS = {"base": 0, "judges": 1, "stages": 2}
# What the book may import from the stages: its own parts only.
BOOK_FORBIDDEN = ("harness.judges", "harness.stages.bench", "harness.stages.conform",
                  "harness.stages.check")


def modules():
    for dp, _, fs in os.walk(PKG):
        for f in fs:
            if f.endswith(".py"):
                path = os.path.join(dp, f)
                rel = os.path.relpath(path, config.TOP)[:-3].replace(os.sep, ".")
                yield path, rel.removesuffix(".__init__")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def imports(path, name, text=None):
    """Absolute names of the harness modules (and others) path imports."""
    tree = ast.parse(read(path) if text is None else text)
    pkg = name.split(".") if path.endswith("__init__.py") else name.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = pkg[:len(pkg) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.append(mod)
            out += [f"{mod}.{a.name}" for a in node.names]
    return out


def layer(name):
    parts = name.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 and parts[0] == "harness" else None


class LayerTest(unittest.TestCase):
    def test_imports_run_one_way(self):
        bad = []
        for path, name in modules():
            mine = layer(name)
            for imp in imports(path, name):
                theirs = layer(imp)
                if mine is not None and theirs is not None and theirs > mine:
                    bad.append(f"{name} imports {imp}")
        self.assertEqual(bad, [])

    def test_book_imports_no_measuring_code(self):
        bad = [f"{name} imports {imp}" for path, name in modules()
               if name.startswith("harness.stages.book")
               for imp in imports(path, name) if imp.startswith(BOOK_FORBIDDEN)]
        self.assertEqual(bad, [])

    def test_nothing_imports_tests(self):
        bad = [f"{name} imports {imp}" for path, name in modules()
               for imp in imports(path, name) if imp.split(".")[0] == "tests"]
        self.assertEqual(bad, [])

    def test_no_search_path_manipulation(self):
        hits = []
        for root in ("harness", "tools", "tests"):
            for dp, _, fs in os.walk(config.top(root)):
                for f in fs:
                    if f.endswith(".py"):
                        p = os.path.join(dp, f)
                        if "sys" + ".path" in read(p):
                            hits.append(os.path.relpath(p, config.TOP))
        self.assertEqual(hits, [])

    def test_the_checker_sees_a_wrong_way_import(self):
        # This file's judge must be able to fail: a base module that imports
        # a stage, relatively or absolutely, is seen as doing so.
        text = "from ..stages import conform\nimport harness.judges.kunit\n"
        got = imports("harness/base/fake.py", "harness.base.fake", text)
        self.assertIn("harness.stages.conform", got)
        self.assertIn("harness.judges.kunit", got)
        self.assertTrue(all(layer(i) > layer("harness.base.fake") for i in
                            ("harness.stages.conform", "harness.judges.kunit")))
