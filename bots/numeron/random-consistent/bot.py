"""Numer0n bot: call a random secret that is still consistent with every answer so far."""

import itertools
import os
import random
import sys

DIGITS = "0123456789"


def eat_bite(secret, call):
    """(EAT, BITE) of `call` against `secret`."""
    eat = sum(a == b for a, b in zip(secret, call))
    return eat, len(set(secret) & set(call)) - eat


def parse_history(field):
    """`123:1:0,456:0:2` (or `-` / empty) -> [("123", 1, 0), ("456", 0, 2)]."""
    if field in ("", "-"):
        return []
    items = []
    for item in field.split(","):
        call, eat, bite = item.split(":")
        items.append((call, int(eat), int(bite)))
    return items


def main():
    seed = os.environ.get("ARENA_SEED")
    rng = random.Random(int(seed) if seed else None)
    n = 3
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "secret":
            # The call requests do not repeat N: remember it from the secret request.
            n = int(fields[1])
            reply = "".join(rng.sample(DIGITS, n))
        else:
            cands = ["".join(p) for p in itertools.permutations(DIGITS, n)]
            for call, eat, bite in parse_history(fields[1]):
                cands = [s for s in cands if eat_bite(s, call) == (eat, bite)]
            reply = rng.choice(cands)
        print(reply, flush=True)


if __name__ == "__main__":
    main()
