"""A Monarch client run as its own process by test_logging.py: log forwarding is a setting of
the process that spawns the procs (HYPERACTOR_MESH_ENABLE_LOG_FORWARDING), so it runs apart from
the pytest process, whose stdout and stderr the test reads.

Each mode spawns two procs, sets one logging option, makes the actors print and log lines
tagged with the mode, and stops the procs (which flushes what the client holds back).
"""

from __future__ import annotations

import asyncio
import logging
import sys

from monarch.actor import Actor, current_rank, endpoint, this_host


class Printer(Actor):
    @endpoint
    def out(self, text: str) -> None:
        print(f"{text} r{current_rank().rank}", flush=True)

    @endpoint
    def err(self, text: str) -> None:
        print(f"{text} r{current_rank().rank}", file=sys.stderr, flush=True)

    @endpoint
    def log(self, level: int, text: str) -> None:
        logging.getLogger("port_matrix_actor").log(level, text)


def stream(am) -> None:
    for i in range(5):
        am.out.call(f"stream-out {i}").get()
        am.err.call("stream-err").get()
    am.log.call(logging.WARNING, "stream-warn").get()
    am.out.call("stream-multi first\nstream-multi second").get()  # one print, two lines
    am.out.call("stream-long " + "x" * LONG_LINE).get()


LONG_LINE = 100_000  # characters in one line, far above a pipe buffer (64 KiB)


def level(am) -> None:
    am.log.call(logging.WARNING, "level-warn").get()
    am.log.call(logging.ERROR, "level-error").get()
    am.out.call("level-print").get()


def repeated(tag: str):
    def run(am) -> None:
        for _ in range(3):
            am.log.call(logging.ERROR, tag).get()  # the same text on every rank: "similar" lines

    return run


def aggregate(am) -> None:
    repeated("aggregate-line")(am)
    for _ in range(3):
        am.log.call(logging.ERROR, "a different record altogether: 12345").get()
        am.out.call("aggregate-stdout").get()  # the same stream of text on stdout, per rank " r<rank>"


# mode: (logging_option arguments, what the actors do)
MODES = {
    "stream": ({"stream_to_client": True, "aggregate_window_sec": None}, stream),
    "level": ({"stream_to_client": True, "aggregate_window_sec": None, "level": logging.ERROR}, level),
    "aggregate": ({"stream_to_client": True, "aggregate_window_sec": 1}, aggregate),
    "off": ({"stream_to_client": False, "aggregate_window_sec": None}, lambda am: am.out.call("off-line").get()),
    "flush": ({"stream_to_client": True, "aggregate_window_sec": 1000}, repeated("flush-line")),
}


def main(modes: list[str]) -> None:
    for mode in modes:
        options, act = MODES[mode]
        procs = this_host().spawn_procs(per_host={"gpus": 2})
        asyncio.run(procs.logging_option(**options))
        act(procs.spawn("printer", Printer))
        procs.stop().get()
    print("log-driver: done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(MODES))
