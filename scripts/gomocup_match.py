#!/usr/bin/env python3
"""Plays pbrain-gomoku against any engine that speaks the Gomocup (Piskvork) protocol.

Each game starts from one of the engine's balanced freestyle openings, each opening twice with
colours swapped. Both engines get the same turn time (`INFO timeout_turn`); a move slower than
the turn time is counted as an overrun, but only a move slower than `--forfeit-ms` loses the
game on time (some engines overrun their turn by design, e.g. by timing CPU rather than wall
time: give them a generous margin and judge the games on the board). The script is the judge:
it rejects occupied or off-board points and looks for the five itself (freestyle: five or more
in a row; standard: exactly five), never trusting either engine's word.

    cargo build --release -p gomoku-engine --bin pbrain-gomoku
    scripts/gomocup_match.py --opponent "/path/to/pbrain-other" --games 40 --ms 1000

Each engine is started afresh for every game (START, INFO, then BOARD with the opening and the
moves so far on its first turn, TURN after that). Prints one line per game and a summary: W-D-L
of pbrain-gomoku, how the games ended, overruns and move times per engine. `--record FILE`
writes each game's moves (h8 notation, as `examples/analyse` reads them). With `--openings
random` each game starts from its own random four-stone opening instead: with the same engine
on both sides that makes training records for `examples/fit-eval.rs` ("pbrain" in the records
then names the `--engine` side).
"""

import argparse
import pathlib
import random
import re
import shlex
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPENINGS = ROOT / "api/engine/data/openings-freestyle.txt"
# The lines an engine answers with: a move, or a protocol word (OK, ERROR ..., UNKNOWN ...).
ANSWER = re.compile(r"^(\d+,\d+|OK|ERROR\b.*|UNKNOWN\b.*)$")


def openings(size):
    """The balanced freestyle openings as lists of (row, col) on a size x size board."""
    centre = size // 2
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


def random_openings(size, count, seed):
    """`count` openings of four distinct stones in the central 5x5 square, black first."""
    rng = random.Random(seed)
    centre = size // 2
    result = []
    for _ in range(count):
        stones = []
        while len(stones) < 4:
            p = (centre + rng.randint(-2, 2), centre + rng.randint(-2, 2))
            if p not in stones:
                stones.append(p)
        result.append(stones)
    return result


def has_five(stones, point, exact=False):
    """Whether the stone on `point` completes a row of five among `stones` (a set of the
    mover's points, `point` included): five or more, or exactly five when `exact`."""
    r, c = point
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            k = 1
            while (r + sign * dr * k, c + sign * dc * k) in stones:
                n += 1
                k += 1
        if n == 5 or (n > 5 and not exact):
            return True
    return False


def notation(point, size):
    """(row, col) as the rules crate writes it: column letter, row counted from the bottom."""
    r, c = point
    return f"{chr(ord('a') + c)}{size - r}"


class EngineError(Exception):
    """The engine broke the protocol, crashed or ran out of time."""

    def __init__(self, kind, detail):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


class Engine:
    """One Gomocup engine process for one game."""

    def __init__(self, command, size, ms, rule):
        self.proc = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.lines = []
        self.cond = threading.Condition()
        self.closed = False
        self.messages = []
        # A reader thread, so that a silent engine can be timed out.
        threading.Thread(target=self._pump, daemon=True).start()
        self.started = False
        self.send(f"START {size}")
        reply = self.read(10.0)
        if reply != "OK":
            raise EngineError("protocol", f"START answered {reply!r}")
        self.send(f"INFO timeout_turn {ms}")
        # A whole game's worth of time: the turn time is the limit that matters.
        self.send("INFO timeout_match 100000000")
        self.send("INFO time_left 100000000")
        self.send(f"INFO rule {rule}")

    def _pump(self):
        for raw in iter(self.proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").strip()
            with self.cond:
                # Anything but an answer is a message: some engines print raw bytes in their
                # MESSAGE lines (PentaZen its search depth), and a byte 10 or 13 there splits
                # the message into lines that would otherwise be read as a bad answer.
                if not line:
                    continue
                if not ANSWER.match(line):
                    self.messages.append(line)
                    continue
                self.lines.append(line)
                self.cond.notify()
        with self.cond:
            self.closed = True
            self.cond.notify()

    def send(self, line):
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineError("crash", f"cannot write to the engine ({e})") from e

    def read(self, timeout):
        """The next answer (not a message), waiting at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                if self.lines:
                    return self.lines.pop(0)
                if self.closed:
                    raise EngineError("crash", "the engine closed its output")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise EngineError("time-out", f"no answer within {timeout:.1f} s")
                self.cond.wait(left)

    def move(self, history, size, forfeit_s):
        """The engine's move after `history` ((row, col), black first), and its wall time."""
        self.messages = []
        t = time.monotonic()
        if not self.started:
            self.started = True
            self.send("BOARD")
            # In move order, own stones 1, the opponent's 2 (the side to move owns the
            # stones of the same parity as the next move).
            me = len(history) % 2
            for i, (r, c) in enumerate(history):
                self.send(f"{c},{r},{1 if i % 2 == me else 2}")
            self.send("DONE")
        elif not history:
            self.send("BEGIN")
        else:
            r, c = history[-1]
            self.send(f"TURN {c},{r}")
        reply = self.read(forfeit_s)
        elapsed = time.monotonic() - t
        try:
            x, y = (int(v) for v in reply.split(","))
        except ValueError as e:
            raise EngineError("protocol", f"answered {reply!r}") from e
        if not (0 <= x < size and 0 <= y < size):
            raise EngineError("illegal", f"off-board move {x},{y}")
        return (y, x), elapsed

    def close(self):
        try:
            self.send("END")
            self.proc.wait(timeout=5)
        except (EngineError, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Stats:
    """Move times and overruns of one engine over the match."""

    def __init__(self):
        self.moves = 0
        self.total = 0.0
        self.slowest = 0.0
        self.overruns = 0

    def add(self, seconds, turn_s):
        self.moves += 1
        self.total += seconds
        self.slowest = max(self.slowest, seconds)
        if seconds > turn_s:
            self.overruns += 1

    def line(self):
        mean = self.total / max(self.moves, 1)
        return (
            f"{self.moves} moves, mean {mean * 1000:.0f} ms, max {self.slowest * 1000:.0f} ms, "
            f"{self.overruns} over the turn time"
        )


def play(args, opening, ours_black, stats):
    """One game; returns (result for pbrain-gomoku, how it ended, moves)."""
    size = args.size
    rule = 1 if args.rule == "standard" else 0
    names = ("pbrain-gomoku", "opponent")
    commands = (args.engine, args.opponent)
    engines = [None, None]
    history = list(opening)
    stones = ({p for p in history[0::2]}, {p for p in history[1::2]})
    try:
        turn_ms = (args.engine_ms or args.ms, args.ms)
        engines = [Engine(cmd, size, ms, rule) for cmd, ms in zip(commands, turn_ms)]
        while len(history) < size * size:
            colour = len(history) % 2
            who = 0 if (colour == 0) == ours_black else 1
            try:
                point, seconds = engines[who].move(history, size, args.forfeit_ms / 1000)
            except EngineError as e:
                return ("loss" if who == 0 else "win"), f"{names[who]} {e}", history
            stats[who].add(seconds, turn_ms[who] / 1000)
            if point in stones[0] or point in stones[1]:
                return (
                    ("loss" if who == 0 else "win"),
                    f"{names[who]} illegal: occupied {notation(point, size)}",
                    history,
                )
            history.append(point)
            stones[colour].add(point)
            if args.verbose and engines[who].messages:
                print(f"    {names[who]}: {' | '.join(engines[who].messages)}", flush=True)
            if has_five(stones[colour], point, exact=args.rule == "standard"):
                return ("win" if who == 0 else "loss"), f"five by {names[who]}", history
        return "draw", "board full", history
    finally:
        for e in engines:
            if e is not None:
                e.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--engine",
        default=str(ROOT / "target/release/pbrain-gomoku"),
        help="command of pbrain-gomoku (default: the release build)",
    )
    parser.add_argument("--opponent", required=True, help="command of the other engine")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--first", type=int, default=1, help="start at this game number")
    parser.add_argument("--ms", type=int, default=1000, help="turn time of both engines")
    parser.add_argument(
        "--engine-ms",
        type=int,
        help="pbrain-gomoku's own turn time, if not --ms (a handicap match: what time buys)",
    )
    parser.add_argument(
        "--forfeit-ms",
        type=int,
        default=30000,
        help="a move slower than this loses the game on time",
    )
    parser.add_argument("--rule", choices=("freestyle", "standard"), default="freestyle")
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument(
        "--openings",
        choices=("balanced", "random"),
        default="balanced",
        help="the engine's balanced set (each opening twice, colours swapped) or random "
        "four-stone openings in the centre, one game each (training data for fit-eval)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the random openings")
    parser.add_argument("--record", help="append each game's moves to this file")
    parser.add_argument("--verbose", action="store_true", help="print the engines' messages")
    args = parser.parse_args()

    if args.openings == "random":
        # One game per opening.
        book = random_openings(args.size, args.first - 1 + args.games, args.seed)
    else:
        book = openings(args.size)
    tally = {"win": 0, "draw": 0, "loss": 0}
    on_board = {"win": 0, "draw": 0, "loss": 0}
    endings = {}
    stats = (Stats(), Stats())
    started = time.monotonic()
    record = open(args.record, "a") if args.record else None
    for g in range(args.first - 1, args.first - 1 + args.games):
        opening = book[g] if args.openings == "random" else book[(g // 2) % len(book)]
        ours_black = g % 2 == 0
        result, ending, history = play(args, opening, ours_black, stats)
        tally[result] += 1
        kind = ending.split(":")[0]
        endings[kind] = endings.get(kind, 0) + 1
        if kind.startswith("five") or kind == "board full":
            on_board[result] += 1
        moves = " ".join(notation(p, args.size) for p in history)
        colour = "black" if ours_black else "white"
        print(
            f"game {g + 1:3} opening {g // 2 + 1:2} pbrain {colour}: {result} "
            f"({ending}) after {len(history)} moves",
            flush=True,
        )
        if args.verbose:
            print(f"  moves: {moves}", flush=True)
        if record:
            record.write(f"game {g + 1} pbrain {colour} {result} ({ending}): {moves}\n")
            record.flush()
    print(f"opponent: {args.opponent}")
    print(f"rule {args.rule}, {args.games} games, turn time {args.ms} ms, forfeit after {args.forfeit_ms} ms")
    if args.engine_ms:
        print(f"pbrain-gomoku's turn time {args.engine_ms} ms")
    w, d, l = tally["win"], tally["draw"], tally["loss"]
    print(f"pbrain-gomoku W-D-L: {w}-{d}-{l}  score {100 * (w + d / 2) / max(args.games, 1):.1f}%")
    bw, bd, bl = on_board["win"], on_board["draw"], on_board["loss"]
    decided = bw + bd + bl
    print(
        f"decided on the board: {bw}-{bd}-{bl} of {decided} games  "
        f"score {100 * (bw + bd / 2) / max(decided, 1):.1f}%"
    )
    print("endings: " + ", ".join(f"{k} {n}" for k, n in sorted(endings.items())))
    print(f"pbrain-gomoku moves: {stats[0].line()}")
    print(f"opponent moves: {stats[1].line()}")
    print(f"wall time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
