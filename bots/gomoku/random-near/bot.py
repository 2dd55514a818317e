"""Gomoku bot: plays a random empty point within distance 2 of a stone, h8 on an empty board."""

import os
import random
import sys

SIZE = 15


def point(x, y):
    return f"{chr(ord('a') + x)}{y + 1}"


def choose(board, rng):
    stones = [(i % SIZE, i // SIZE) for i, c in enumerate(board) if c != "."]
    if not stones:
        return "h8"
    near = set()
    for sx, sy in stones:
        for y in range(max(0, sy - 2), min(SIZE, sy + 3)):
            for x in range(max(0, sx - 2), min(SIZE, sx + 3)):
                if board[y * SIZE + x] == ".":
                    near.add((x, y))
    # Some empty point always touches a stone, so `near` is never empty on a board with room.
    return point(*rng.choice(sorted(near)))


def main():
    seed = os.environ.get("ARENA_SEED")
    rng = random.Random(int(seed) if seed else None)
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        print(choose(fields[0], rng), flush=True)


if __name__ == "__main__":
    main()
