#!/usr/bin/env python3
"""Where pbrain-gomoku lost: reads the records of `gomocup_match.py --record` and asks a stronger
engine (the judge) about the positions of each lost game.

For every lost game: the judge, at `--judge-ms`, after each of pbrain's moves (its opponent to
move) until it reports a forced win; then, at `--deep-ms`, stepping back over pbrain's earlier
moves while it still finds that win: the earliest such move is the one that lost. Before that
move, pbrain (at `--ms`) says what it would play, why and with what score. Prints a line per game
and a summary: how far from the end the game was lost, how often pbrain's move there was forced
and how often its own search already saw the loss, and the judge's scores along the way.

The judge reports its score in its MESSAGE lines: PentaZen as `ev N` (`ev +vN` a win in N),
pbrain-gomoku as `score N`.

    scripts/loss_report.py --judge /path/to/pbrain-pentazen --rule freestyle games.txt
"""

import argparse
import re
import statistics

import gomocup_match as gm

WIN = 999_000  # pbrain-gomoku's mate scores


def verdict(messages):
    """The judge's last score in `messages`: (score or None, a win found, a loss found)."""
    text = " ".join(messages)
    found = re.findall(r"\bev ([+-]?v?-?\d+)|\bscore (-?\d+)", text)
    if not found:
        return None, False, False
    ev, score = found[-1]
    if ev:
        if "v" in ev:
            return None, ev.startswith("+"), ev.startswith("-")
        return int(ev), False, False
    s = int(score)
    return s, s >= WIN, s <= -WIN


def ask(command, history, ms, rule):
    """The engine's move after `history` and its messages about it."""
    engine = gm.Engine(command, 15, ms, rule)
    try:
        point, _ = engine.move(history, 15, 60)
        return point, list(engine.messages)
    finally:
        engine.close()


def lost_games(paths, book):
    for path in paths:
        for line in open(path):
            head, moves = line.split(": ", 1)
            words = head.split()
            if words[4] != "loss":
                continue
            number = int(words[1])
            opening = book[(number - 1) // 2 % len(book)]
            points = [(15 - int(m[1:]), ord(m[0]) - ord("a")) for m in moves.split()]
            yield number, words[3], len(opening), points


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", required=True, help="command of the stronger engine")
    parser.add_argument("--engine", default=str(gm.ROOT / "target/release/pbrain-gomoku"))
    parser.add_argument("--rule", choices=("freestyle", "standard"), default="freestyle")
    parser.add_argument("--judge-ms", type=int, default=1000)
    parser.add_argument("--deep-ms", type=int, default=5000)
    parser.add_argument("--ms", type=int, default=1000, help="pbrain-gomoku's time")
    parser.add_argument("records", nargs="+")
    args = parser.parse_args()
    rule = 1 if args.rule == "standard" else 0

    to_end, forced, seen, scores = [], 0, 0, {"ahead": 0, "behind": 0, "even": 0}
    for number, colour, opening, moves in lost_games(args.records, gm.openings(15)):
        mine = 0 if colour == "black" else 1
        plies = [k for k in range(opening, len(moves) - 1) if k % 2 == mine]
        first_win = None
        for k in plies:
            _, messages = ask(args.judge, moves[: k + 1], args.judge_ms, rule)
            score, win, _ = verdict(messages)
            if win:
                first_win = k
                break
            if score is not None:
                scores["ahead" if score > 0 else "behind" if score < 0 else "even"] += 1
        if first_win is None:
            print(f"game {number} pbrain {colour}: the judge saw no forced win", flush=True)
            continue
        lost = first_win
        for k in reversed([k for k in plies if k < first_win]):
            _, messages = ask(args.judge, moves[: k + 1], args.deep_ms, rule)
            if not verdict(messages)[1]:
                break
            lost = k
        point, messages = ask(args.engine, moves[:lost], args.ms, rule)
        said = " ".join(m for m in messages if m.startswith("MESSAGE"))
        score, _, loss = verdict(messages)
        to_end.append(len(moves) - lost)
        forced += "blocks" in said  # a four or an open three to answer
        seen += loss
        print(
            f"game {number} pbrain {colour}: lost by ply {lost} ({gm.notation(moves[lost], 15)}), "
            f"{len(moves) - lost} plies before the end; pbrain there: {gm.notation(point, 15)} "
            f"[{said.removeprefix('MESSAGE ')}]",
            flush=True,
        )
    if to_end:
        print(
            f"{len(to_end)} lost games: lost {statistics.median(to_end)} plies before the end "
            f"(median; {min(to_end)}-{max(to_end)}); pbrain's move there forced in {forced}, "
            f"its search already scoring the loss in {seen}; the judge's scores after pbrain's "
            f"moves before that, for the opponent: ahead {scores['ahead']}, behind "
            f"{scores['behind']}, even {scores['even']}"
        )


if __name__ == "__main__":
    main()
