# SPDX-License-Identifier: GPL-2.0-only
"""The verb examples: the data of the book's worked example
(judges/worked_example.py), written before the book is rendered, so that
the book itself runs no model."""

from ..base import config
from ..judges import worked_example


def run(args):
    path = worked_example.write()
    config.say("examples", f"worked example data: {config.display(path)}")
    return 0


def register(sub):
    p = sub.add_parser("examples", help="the worked example's data for the book")
    p.set_defaults(func=run)
