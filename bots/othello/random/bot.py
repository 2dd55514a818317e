"""Othello bot: plays a uniformly random legal move."""

import os
import random
import sys

DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]


def flips(board, me, index):
    """The squares a disc of `me` on `index` would turn over (board: 64 chars, a1 first)."""
    them = "O" if me == "X" else "X"
    turned = []
    for df, dr in DIRECTIONS:
        f, r = index % 8 + df, index // 8 + dr
        line = []
        while 0 <= f < 8 and 0 <= r < 8 and board[r * 8 + f] == them:
            line.append(r * 8 + f)
            f, r = f + df, r + dr
        if line and 0 <= f < 8 and 0 <= r < 8 and board[r * 8 + f] == me:
            turned.extend(line)
    return turned


def legal_moves(board, me):
    return [i for i in range(64) if board[i] == "." and flips(board, me, i)]


def name(index):
    return "abcdefgh"[index % 8] + str(index // 8 + 1)


def main():
    seed = os.environ.get("ARENA_SEED")
    rng = random.Random(int(seed) if seed else None)
    for line in sys.stdin:
        if not line.strip():
            continue
        board, me = line.split()
        print(name(rng.choice(legal_moves(board, me))), flush=True)


if __name__ == "__main__":
    main()
