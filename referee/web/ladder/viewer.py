"""Who is looking at the ladder's pages, and what of a bot's own output they may see: the one
place that decides it (docs/ladder.md, "Who sees what").

- The **public**: the standings, the matches and their replays, the order and how sure it is;
  of a bot's faults only their reasons and counts. No bot's stderr, exit status, fault message
  or hint: what a program wrote for its author is its author's.
- An **entrant** (its secret's link, ``referee ladder entrant add``): the public view, and for
  the versions whose ``entrant`` is its name, their stderr and fault details.
- The **organizer** (the ladder's token, or a view no one else can reach): everything.

Pure: who a request comes from is found in ``referee.web.ladder.who`` (the token, an
entrant's key); what follows from it is here, for every page alike, and is part of the key
an answer is kept under, so that a page made for one viewer is never given to another. What
the public sees of a bot's page is ``referee.web.ladder.visibility``'s (the static copy's
rule too); of a match, ``referee.replay.withheld``'s, seat by seat."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from referee.web.ladder.queries import BotView
from referee.web.ladder.visibility import public_bot_view

Kind = Literal["public", "entrant", "organizer"]


@dataclass(frozen=True)
class Viewer:
    kind: Kind
    entrant: str | None = None
    """The entrant's name (an entrant's view only)."""

    @property
    def key(self) -> str:
        """What an answer made for this viewer is kept under, beside its address."""
        return self.kind if self.entrant is None else f"{self.kind}:{self.entrant}"

    def sees_output_of(self, entrant: str | None) -> bool:
        """Whether this viewer sees what a version of ``entrant`` wrote for its author (its
        stderr, exit status, fault messages and hints); ``None``: an entrant not known."""
        return self.kind == "organizer" or (self.kind == "entrant" and entrant is not None and entrant == self.entrant)


PUBLIC: Final = Viewer("public")
ORGANIZER: Final = Viewer("organizer")


def entrant_viewer(name: str) -> Viewer:
    return Viewer("entrant", name)


def without_secret(*, public_view: bool, token_asked: bool, has_entrants: bool) -> Viewer | None:
    """The view of a request that brings no secret: the public one when the ladder is served
    to the public (``--public``); none (refused) when the ladder asks its token; else, on a
    view only this machine reaches, everything as before entrants existed, and the public
    view once they do (an entrant's output is never shown to whoever brings no secret)."""
    if public_view:
        return PUBLIC
    if token_asked:
        return None
    return PUBLIC if has_entrants else ORGANIZER


def bot_view_for(view: BotView, viewer: Viewer) -> tuple[BotView, bool]:
    """A bot's page as ``viewer`` sees it, and whether with its faults' details: explained, or
    by reason only as the public view shows them (``visibility.public_bot_view``)."""
    if viewer.sees_output_of(view.version.entrant):
        return view, True
    return public_bot_view(view), False


def withheld_seats(viewer: Viewer, seats: Sequence[str], entrants: Mapping[str, str]) -> frozenset[int]:
    """The seats of a match (its bots' names, by seat) whose stderr, exit status and hints
    ``viewer`` may not see; ``entrants``: each bot's entrant (a bot not in it is withheld from
    all but the organizer)."""
    return frozenset(i for i, bot in enumerate(seats) if not viewer.sees_output_of(entrants.get(bot)))
