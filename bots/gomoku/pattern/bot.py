"""Gomoku bot: scores every empty point near the stones by the lines it makes for itself
(attack) and the lines it takes away from the opponent (defence), and plays the best one."""

import os
import random
import sys
from functools import lru_cache

SIZE = 15
PAD = 4
WIDTH = SIZE + 2 * PAD
# Steps through the padded board: along a row, a column and both diagonals.
DIRECTIONS = (1, WIDTH, WIDTH + 1, WIDTH - 1)

FIVE, OPEN_FOUR, FOUR, OPEN_THREE, THREE, OTHER = range(6)
# What a 5-point window through the point is worth by the own stones in it (no opponent's).
# Fours and fives are scored as shapes instead.
WINDOW_VALUE = (0, 1, 6, 30, 0, 0)
# Taking a point from the opponent is worth a little less than the same shape of one's own.
DEFENCE = 0.9

# Line letters: own stone `x`, empty `.`, anything that blocks (opponent, edge) `o`.
AS_X = str.maketrans({"X": "x", "O": "o", "#": "o"})
AS_O = str.maketrans({"O": "x", "X": "o", "#": "o"})


def five_points(line):
    """The empty points of a 9-point line that would make five through its centre."""
    wins = []
    for e, c in enumerate(line):
        if c != ".":
            continue
        placed = line[:e] + "x" + line[e + 1 :]
        left = 4
        while left > 0 and placed[left - 1] == "x":
            left -= 1
        right = 4
        while right < 8 and placed[right + 1] == "x":
            right += 1
        if right - left >= 4:
            wins.append(e)
    return wins


@lru_cache(maxsize=None)
def classify(line):
    """The shape a stone at the centre of a 9-point line makes there, and a small potential."""
    windows = [line[s : s + 5] for s in range(5)]
    potential = sum(WINDOW_VALUE[w.count("x")] for w in windows if "o" not in w)
    if any(w == "xxxxx" for w in windows):
        return FIVE, potential
    wins = five_points(line)
    if len(wins) >= 2:
        return OPEN_FOUR, potential
    if wins:
        return FOUR, potential
    shape = OTHER
    for e, c in enumerate(line):
        if c == ".":
            wins = five_points(line[:e] + "x" + line[e + 1 :])
            # A three is one move from a four; an open one is one move from an open four.
            if len(wins) >= 2:
                return OPEN_THREE, potential
            if wins:
                shape = THREE
    return shape, potential


def value(shapes):
    """What the four line shapes of one stone are worth together."""
    count = [0] * 6
    potential = 0
    for shape, p in shapes:
        count[shape] += 1
        potential += p
    if count[FIVE]:
        return 10**8
    if count[OPEN_FOUR] or count[FOUR] >= 2:
        return 10**6
    if count[FOUR] and count[OPEN_THREE]:
        return 10**5
    if count[OPEN_THREE] >= 2:
        return 2 * 10**4
    # A lone four is parried by one forced stone, an open three must be answered too but keeps
    # more ways to grow, so it counts a little more.
    return count[FOUR] * 2500 + count[OPEN_THREE] * 3000 + count[THREE] * 600 + potential


def choose(board, side, rng):
    """The point to play for `side` (`X` or `O`) on a 225-character board, row 1 first."""
    padded = ["#"] * (WIDTH * WIDTH)
    stones = []
    for i, c in enumerate(board):
        at = (i // SIZE + PAD) * WIDTH + i % SIZE + PAD
        padded[at] = c
        if c != ".":
            stones.append(at)
    if not stones:
        return "h8"
    # Some empty point always touches a stone, so this is never empty on a board with room.
    candidates = set()
    for at in stones:
        for dy in range(-2, 3):
            for dx in range(-2, 3):
                n = at + dy * WIDTH + dx
                if padded[n] == ".":
                    candidates.add(n)
    own, other = (AS_X, AS_O) if side == "X" else (AS_O, AS_X)
    best, best_score = None, float("-inf")
    for at in candidates:
        attack, defence = [], []
        for d in DIRECTIONS:
            line = "".join(padded[at + k * d] for k in range(-4, 5))
            mine, theirs = line.translate(own), line.translate(other)
            attack.append(classify(mine[:4] + "x" + mine[5:]))
            defence.append(classify(theirs[:4] + "x" + theirs[5:]))
        y, x = divmod(at, WIDTH)
        centre = -0.01 * (abs(x - PAD - 7) + abs(y - PAD - 7))
        score = value(attack) + DEFENCE * value(defence) + centre + rng.random() * 0.001
        if score > best_score:
            best, best_score = at, score
    y, x = divmod(best, WIDTH)
    return f"{chr(ord('a') + x - PAD)}{y - PAD + 1}"


def main():
    seed = os.environ.get("ARENA_SEED")
    rng = random.Random(int(seed) if seed else None)
    for line in sys.stdin:
        fields = line.split()
        if len(fields) < 2:
            continue
        print(choose(fields[0], fields[1], rng), flush=True)


if __name__ == "__main__":
    main()
