#!/usr/bin/env python3
"""Plays pbrain-gomoku against the hobby gomoku AI published on PyPI as `gomoku` (0.1.0).

That package is a typical small gomoku AI of the kind found on the web: forced moves, a
threat-space search for its own win, the opponent's threat space to limit its choices, and a
move-scoring heuristic. It plays freestyle on 15x15 only. This script is a benchmark, not a
test: it needs the package (and gmpy2) in the Python that runs it, e.g.

    python3 -m venv /tmp/hobby && /tmp/hobby/bin/pip install gomoku==0.1.0 gmpy2 flask-socketio
    cargo build --release -p gomoku-engine --bin pbrain-gomoku
    /tmp/hobby/bin/python scripts/vs-hobby-ai.py target/release/pbrain-gomoku --games 20 --ms 1000

Each game starts from one of the engine's balanced freestyle openings (each opening twice,
colours swapped). Our engine gets the whole board with `BOARD` at every turn, so it keeps no
state between moves; the hobby AI gets the moves on its own board. Prints W-D-L for our engine.
"""

import argparse
import contextlib
import io
import pathlib
import random
import subprocess
import sys
import time

import gomoku.player.threat_space as hobby_module
import gomoku.threat.threat_space as hobby_tss
from gomoku.board import Board

SIZE = 15
OPENINGS = pathlib.Path(__file__).resolve().parent.parent / "api/engine/data/openings-freestyle.txt"


def openings():
    """The balanced freestyle openings as lists of (row, col) on a 15x15 board."""
    centre = SIZE // 2
    result = []
    for line in OPENINGS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        stones = []
        for offset in line.split():
            dr, dc = (int(v) for v in offset.split(","))
            stones.append((centre + dr, centre + dc))
        result.append(stones)
    return result


class Engine:
    """pbrain-gomoku over the Gomocup protocol."""

    def __init__(self, path, ms):
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send(f"START {SIZE}")
        self.expect_ok()
        self.send(f"INFO timeout_turn {ms}")
        self.send("INFO rule 0")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("engine closed its output")
            line = line.strip()
            # MESSAGE / DEBUG lines are informational.
            if line and not line.startswith(("MESSAGE", "DEBUG")):
                return line

    def expect_ok(self):
        line = self.read()
        if line != "OK":
            raise RuntimeError(f"engine said {line!r}, wanted OK")

    def move(self, history, engine_first):
        """Our move for the position after `history` (row, col) moves, black first."""
        self.send("BOARD")
        for i, (r, c) in enumerate(history):
            ours = (i % 2 == 0) == engine_first
            self.send(f"{c},{r},{1 if ours else 2}")
        self.send("DONE")
        x, y = (int(v) for v in self.read().split(","))
        return (y, x)

    def close(self):
        self.send("END")
        self.proc.wait(timeout=10)


def has_five(stones):
    """Five or more in a row among `stones` (freestyle: an overline wins too)."""
    stones = set(stones)
    for r, c in stones:
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            n = 1
            while (r + dr * n, c + dc * n) in stones:
                n += 1
            if n >= 5:
                return True
    return False


def hobby_move(hobby, board):
    # It prints some of its reasoning whatever VERBOSE says.
    with contextlib.redirect_stdout(io.StringIO()):
        m = hobby.make_move(board)
    return (m // SIZE, m % SIZE) if isinstance(m, int) else tuple(m)


def play(engine, opening, engine_black, rng_seed):
    random.seed(rng_seed)
    board = Board()
    history = []
    for r, c in opening:
        board.move(r, c)
        history.append((r, c))
    hobby = hobby_module.ThreatSpace()
    hobby_ms = 0.0
    while len(history) < SIZE * SIZE:
        black_to_move = len(history) % 2 == 0
        if black_to_move == engine_black:
            r, c = engine.move(history, engine_black)
        else:
            t = time.perf_counter()
            r, c = hobby_move(hobby, board)
            if (r, c) in history:
                # It replays a winning line saved on an earlier move without checking that
                # its squares are still empty; forget the line and ask again.
                hobby.winning_line = []
                r, c = hobby_move(hobby, board)
            hobby_ms = max(hobby_ms, (time.perf_counter() - t) * 1000)
        if (r, c) in history or not (0 <= r < SIZE and 0 <= c < SIZE):
            mover = "engine" if black_to_move == engine_black else "hobby AI"
            raise RuntimeError(f"{mover} played an illegal move {r},{c} after {history}")
        board.move(r, c)
        history.append((r, c))
        if has_five(history[len(history) - 1 :: -2]):
            return ("win" if black_to_move == engine_black else "loss"), history, hobby_ms
    return "draw", history, hobby_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", help="path of pbrain-gomoku")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ms", type=int, default=1000, help="our engine's time per move")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    # The hobby AI prints its whole reasoning unless told not to.
    hobby_module.VERBOSE = 0
    hobby_tss.VERBOSE = 0
    book = openings()
    tally = {"win": 0, "draw": 0, "loss": 0}
    slowest = 0.0
    engine = Engine(args.engine, args.ms)
    for g in range(args.games):
        opening = book[(g // 2) % len(book)]
        engine_black = g % 2 == 0
        result, history, hobby_ms = play(engine, opening, engine_black, g)
        slowest = max(slowest, hobby_ms)
        tally[result] += 1
        colour = "black" if engine_black else "white"
        print(f"game {g + 1:3} engine {colour}: {result} after {len(history)} moves", flush=True)
        if args.verbose:
            print("  moves: " + " ".join(f"{r},{c}" for r, c in history), flush=True)
    engine.close()
    print(f"engine W-D-L: {tally['win']}-{tally['draw']}-{tally['loss']} over {args.games} games")
    print(f"hobby AI slowest move: {slowest:.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
