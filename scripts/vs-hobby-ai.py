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
colours swapped). Our engine is driven as in `gomocup_match.py` (a fresh process per game); the
hobby AI gets the moves on its own board. Prints W-D-L for our engine.
"""

import argparse
import contextlib
import io
import random
import sys
import time

import gomoku.player.threat_space as hobby_module
import gomoku.threat.threat_space as hobby_tss
from gomoku.board import Board

from gomocup_match import Engine, has_five, openings

SIZE = 15


def hobby_move(hobby, board):
    # It prints some of its reasoning whatever VERBOSE says.
    with contextlib.redirect_stdout(io.StringIO()):
        m = hobby.make_move(board)
    return (m // SIZE, m % SIZE) if isinstance(m, int) else tuple(m)


def play(path, ms, opening, engine_black, rng_seed):
    random.seed(rng_seed)
    engine = Engine(path, SIZE, ms, 0)
    board = Board()
    history = []
    for r, c in opening:
        board.move(r, c)
        history.append((r, c))
    hobby = hobby_module.ThreatSpace()
    try:
        return play_on(engine, board, history, hobby, engine_black)
    finally:
        engine.close()


def play_on(engine, board, history, hobby, engine_black):
    hobby_ms = 0.0
    while len(history) < SIZE * SIZE:
        black_to_move = len(history) % 2 == 0
        if black_to_move == engine_black:
            (r, c), _ = engine.move(history, SIZE, 60.0)
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
        if has_five(set(history[len(history) - 1 :: -2]), (r, c)):
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
    book = openings(SIZE)
    tally = {"win": 0, "draw": 0, "loss": 0}
    slowest = 0.0
    for g in range(args.games):
        opening = book[(g // 2) % len(book)]
        engine_black = g % 2 == 0
        result, history, hobby_ms = play(args.engine, args.ms, opening, engine_black, g)
        slowest = max(slowest, hobby_ms)
        tally[result] += 1
        colour = "black" if engine_black else "white"
        print(f"game {g + 1:3} engine {colour}: {result} after {len(history)} moves", flush=True)
        if args.verbose:
            print("  moves: " + " ".join(f"{r},{c}" for r, c in history), flush=True)
    print(f"engine W-D-L: {tally['win']}-{tally['draw']}-{tally['loss']} over {args.games} games")
    print(f"hobby AI slowest move: {slowest:.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
