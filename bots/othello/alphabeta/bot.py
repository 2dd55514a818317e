"""Othello bot: negamax alpha-beta with iterative deepening and a weighted-square evaluation.

It answers within min(--budget, 0.4 * ARENA_MOVE_TIME_MS / 1000) seconds, playing the best move
of the deepest search that finished in time.
"""

import argparse
import os
import random
import sys
import time

FULL = (1 << 64) - 1
NOT_FILE_A = 0xFEFEFEFEFEFEFEFE
NOT_FILE_H = 0x7F7F7F7F7F7F7F7F
# (shift, mask applied after the shift); a positive shift moves towards h8.
DIRECTIONS = [
    (1, NOT_FILE_A),
    (-1, NOT_FILE_H),
    (8, FULL),
    (-8, FULL),
    (9, NOT_FILE_A),
    (7, NOT_FILE_H),
    (-7, NOT_FILE_A),
    (-9, NOT_FILE_H),
]

# The classic weighted-square table, rank 1 first: corners are prized, the squares next to
# them (C and X squares) hand corners to the opponent.
WEIGHTS = [
    100, -20, 10, 5, 5, 10, -20, 100,
    -20, -50, -2, -2, -2, -2, -50, -20,
    10, -2, -1, -1, -1, -1, -2, 10,
    5, -2, -1, -1, -1, -1, -2, 5,
    5, -2, -1, -1, -1, -1, -2, 5,
    10, -2, -1, -1, -1, -1, -2, 10,
    -20, -50, -2, -2, -2, -2, -50, -20,
    100, -20, 10, 5, 5, 10, -20, 100,
]
# The table as (weight, squares with that weight) so evaluation is a few popcounts.
WEIGHT_MASKS = [
    (w, sum(1 << i for i in range(64) if WEIGHTS[i] == w)) for w in sorted(set(WEIGHTS))
]
WIN = 1_000_000


class Timeout(Exception):
    """The move's time is up: abandon the search in progress."""


def shift(x, d, mask):
    return ((x << d) & mask) if d > 0 else ((x >> -d) & mask)


def moves(me, them):
    """The bitboard of legal moves for `me`."""
    empty = ~(me | them) & FULL
    found = 0
    for d, mask in DIRECTIONS:
        line = shift(me, d, mask) & them
        for _ in range(5):
            line |= shift(line, d, mask) & them
        found |= shift(line, d, mask) & empty
    return found


def flips(me, them, move):
    """The discs of `them` that a disc of `me` on the bit `move` turns over."""
    turned = 0
    for d, mask in DIRECTIONS:
        line = 0
        x = shift(move, d, mask)
        while x & them:
            line |= x
            x = shift(x, d, mask)
        if x & me:
            turned |= line
    return turned


def bits(x):
    while x:
        low = x & -x
        yield low
        x ^= low


def evaluate(me, them):
    return sum(w * ((me & m).bit_count() - (them & m).bit_count()) for w, m in WEIGHT_MASKS)


class Searcher:
    def __init__(self, deadline):
        self.deadline = deadline

    def negamax(self, me, them, depth, alpha, beta, passed=False):
        if time.perf_counter() > self.deadline:
            raise Timeout
        legal = moves(me, them)
        if not legal:
            if passed:
                # Neither side can move: the disc count decides.
                diff = me.bit_count() - them.bit_count()
                return WIN * (diff > 0) - WIN * (diff < 0) + diff
            return -self.negamax(them, me, depth, -beta, -alpha, True)
        if depth == 0:
            return evaluate(me, them)
        # Try the best squares by the table first: more cut-offs.
        for move in sorted(bits(legal), key=lambda b: -WEIGHTS[b.bit_length() - 1]):
            turned = flips(me, them, move)
            score = -self.negamax(them & ~turned, me | turned | move, depth - 1, -beta, -alpha)
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
        return alpha

    def best_move(self, me, them, first):
        """Searches every move to ever greater depths until time runs out."""
        order = list(bits(moves(me, them)))
        order.sort(key=lambda b: b != first)
        best = order[0]
        if len(order) == 1:
            return best
        empties = 64 - (me | them).bit_count()
        depth = 1
        try:
            while depth <= empties:
                alpha, choice = -2 * WIN, order[0]
                for move in order:
                    turned = flips(me, them, move)
                    child = (them & ~turned, me | turned | move)
                    score = -self.negamax(*child, depth - 1, -2 * WIN, -alpha)
                    if score > alpha:
                        alpha, choice = score, move
                best = choice
                # The best move so far is searched first at the next depth.
                order.remove(best)
                order.insert(0, best)
                depth += 1
        except Timeout:
            pass
        return best


def parse(board, side):
    me = sum(1 << i for i, c in enumerate(board) if c == side)
    them = sum(1 << i for i, c in enumerate(board) if c not in (side, "."))
    return me, them


def name(move):
    i = move.bit_length() - 1
    return "abcdefgh"[i % 8] + str(i // 8 + 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=0.1, help="seconds per move at most")
    budget = parser.parse_args().budget
    move_ms = os.environ.get("ARENA_MOVE_TIME_MS")
    if move_ms:
        budget = min(budget, 0.4 * int(move_ms) / 1000)
    seed = os.environ.get("ARENA_SEED")
    rng = random.Random(int(seed) if seed else None)
    for line in sys.stdin:
        start = time.perf_counter()
        if not line.strip():
            continue
        me, them = parse(*line.split())
        # A random first move to try keeps games between the same bots from repeating.
        first = rng.choice(list(bits(moves(me, them))))
        # A tenth of the budget is kept back for unwinding the search and writing the reply.
        move = Searcher(start + 0.9 * budget).best_move(me, them, first)
        print(name(move), flush=True)
        print(f"{name(move)} in {time.perf_counter() - start:.3f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
