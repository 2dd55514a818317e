"""Morra, lines protocol: one request line per round, `-` for an empty history.

Guesses the opponent's most frequent choice so far; shows the highest number the opponent has
guessed least often.
"""
import sys
from collections import Counter


def field(text):
    return "" if text == "-" else text


def move(theirs, their_guesses):
    choices = Counter(theirs)
    guess = max(range(6), key=lambda n: (choices[str(n)], n)) if theirs else 3
    guessed = Counter(their_guesses)
    choice = min(range(6), key=lambda n: (guessed[str(n)], -n))
    return choice, guess


def main():
    for line in sys.stdin:
        fields = [field(f) for f in line.split()]
        _mine, _my_guesses, _my_score, theirs, their_guesses, _their_score = fields
        choice, guess = move(theirs, their_guesses)
        print(choice, guess, flush=True)


if __name__ == "__main__":
    main()
