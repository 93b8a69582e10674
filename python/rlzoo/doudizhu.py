"""The DouDizhu engine (DouZero's rules; see envs/doudizhu/game.h for the rules in prose).

    game = rlzoo.doudizhu.Game(seed=7)                  # or Game(deal={...})
    game.acting, game.hand("landlord")                  # 'landlord', 'R 2 AA K ...'
    moves = game.legal_moves()                          # ['3', '4', ..., '33', ...]
    game.play(moves[0]); game.play("pass")              # text, DouZero integers, or 'pass'
    game.over, game.winner, game.history

    rlzoo.doudizhu.legal_moves("333 444 5 6")           # a hand's leads
    rlzoo.doudizhu.legal_moves("KK", rival="QQ")        # its answers to a pair of queens

Cards as text: ranks 3-9, T (or 10), J, Q, K, A, 2, B (black joker), R (red joker), spaces
ignored, case-insensitive; moves come back grouped by rank, highest first ("R B 2 AA T 5"),
"pass" for the empty move. As integers: DouZero's (3..14, 17 for the 2, 20 and 30 for the
jokers). The env DouDizhu-v0 (``rlzoo.make("DouDizhu-v0")``) plays the same game: its action
indexes ``env.game.legal_moves()``.
"""

from __future__ import annotations

import json

from ._rlzoo import doudizhu as _dd

Game = _dd.Game
SEATS: tuple[str, str, str] = tuple(_dd.SEATS)
parse_cards = _dd.parse_cards
format_cards = _dd.format_cards
legal_moves = _dd.legal_moves
classify_move = _dd.classify_move


def record(game: Game) -> dict:
    """The deal and every move so far as a dict of DouZero integers (the JSON `rlzoo doudizhu`
    tools read and write)."""
    return json.loads(game.record_json())


def replay(rec: dict) -> Game:
    """The game a record describes, replayed move by move (raises at the first illegal move)."""
    return _dd.from_record_json(json.dumps(rec))


__all__ = ["Game", "SEATS", "parse_cards", "format_cards", "legal_moves", "classify_move", "record", "replay"]
