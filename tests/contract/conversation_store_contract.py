"""The contract of the ``ConversationStore`` port (``lcabot.adapters.conversations.ConversationState``): claims with
token and lease, settle and release, bot threads, rate limits, the channel's retrieval mode, feedback and turns. The
store's own promises, not the chat handlers' use of them (``tests/stack/test_slack.py`` runs those end to end).

A ``Test…`` class inherits it and provides ``store`` (an empty store) and ``clock`` (a :class:`FakeClock` the store
reads the time from), so a lease or a rate window runs out without waiting."""

from __future__ import annotations

import re

import pytest

from lcabot.adapters.conversations import (
    CLAIMED,
    DUPLICATE,
    LEASE_S,
    NOT_IN_THREAD,
    RATE_LIMITED,
    RATE_WINDOW_S,
    THREAD_TTL_S,
    TURN_ANSWER_CHARS,
)
from lcabot.config import Settings
from lcabot.models import Turn

START = 1_800_000_000 + 5  # 5 s into a rate window
USER_LIMIT, CHANNEL_LIMIT = Settings().user_rate_limit, Settings().channel_rate_limit  # the deployed limits


class FakeClock:
    """Epoch seconds that move only when told."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ConversationStoreContract:
    """Tests the store passes. A ``Test…`` subclass provides the ``store`` and ``clock`` fixtures."""

    # ---------------------------------------------------------------- claims
    def test_a_second_claim_while_the_lease_runs_is_a_duplicate(self, store):
        first = store.claim("slack", "T1:C1:1.000001")
        second = store.claim("slack", "T1:C1:1.000001")
        assert (first.outcome, first.claimed, first.platform, first.dedupe_key) == \
            (CLAIMED, True, "slack", "T1:C1:1.000001")
        assert re.fullmatch(r"[0-9a-f]{32}", first.token)
        assert (second.outcome, second.claimed) == (DUPLICATE, False)
        assert second.token != first.token
        assert store.claim("teams", "T1:C1:1.000001").outcome == CLAIMED  # another platform's event

    def test_the_lease_runs_out_after_lease_s_unless_settled(self, store, clock):
        first = store.claim("slack", "k")
        clock.advance(LEASE_S)
        assert store.claim("slack", "k").outcome == DUPLICATE  # the lease still runs at its last second
        clock.advance(1)
        taken = store.claim("slack", "k")
        assert taken.outcome == CLAIMED
        assert store.settle(first) is False  # the stopped request's claim is another's now
        assert store.settle(taken) is True

    def test_after_settle_every_delivery_is_a_duplicate_whatever_the_lease(self, store, clock):
        claim = store.claim("teams", "activity-1")
        assert store.settle(claim) is True
        assert store.claim("teams", "activity-1").outcome == DUPLICATE
        clock.advance(LEASE_S * 100)
        assert store.claim("teams", "activity-1").outcome == DUPLICATE
        assert store.settle(claim) is True  # settling again (a retried request) is the holder's right

    def test_release_frees_only_the_holders_claim(self, store):
        holder = store.claim("slack", "k")
        duplicate = store.claim("slack", "k")
        store.release(duplicate)  # not its claim: nothing happens
        assert store.claim("slack", "k").outcome == DUPLICATE
        store.release(holder)
        retry = store.claim("slack", "k")
        assert retry.outcome == CLAIMED
        store.release(store.claim("slack", "never-claimed-before"))  # releasing one's own claim twice is fine
        assert store.claim("slack", "never-claimed-before").outcome == CLAIMED

    # ---------------------------------------------------------------- threads
    def test_follow_ups_are_taken_only_in_a_thread_the_bot_answers_in(self, store, clock):
        thread = ("T1", "C1", "100.000001")
        assert store.claim("slack", "T1:C1:100.000001", thread=thread).outcome == CLAIMED
        assert store.claim("slack", "T1:C1:101.000001", thread=thread, follow_up=True).outcome == CLAIMED
        other = ("T1", "C1", "200.000001")
        refused = store.claim("slack", "T1:C1:201.000001", thread=other, follow_up=True)
        assert refused.outcome == NOT_IN_THREAD
        assert store.claim("slack", "T1:C1:201.000001").outcome == CLAIMED  # the refused claim wrote nothing
        assert store.claim("slack", "T1:C2:101.000001", thread=("T1", "C2", "100.000001"),
                           follow_up=True).outcome == NOT_IN_THREAD  # the same ts in another channel
        assert store.claim("teams", "T1:C1:102.000001", thread=thread, follow_up=True).outcome == NOT_IN_THREAD

    def test_a_thread_is_forgotten_thread_ttl_after_its_last_follow_up(self, store, clock):
        thread = ("T1", "C1", "100.000001")
        store.claim("slack", "root", thread=thread)
        clock.advance(THREAD_TTL_S - 10)
        assert store.claim("slack", "f1", thread=thread, follow_up=True).outcome == CLAIMED  # renews the thread
        clock.advance(THREAD_TTL_S - 10)
        assert store.claim("slack", "f2", thread=thread, follow_up=True).outcome == CLAIMED
        clock.advance(THREAD_TTL_S + 1)
        assert store.claim("slack", "f3", thread=thread, follow_up=True).outcome == NOT_IN_THREAD

    # ---------------------------------------------------------------- rate limits
    def test_a_user_is_limited_at_user_limit_requests_a_minute(self, store, clock):
        outcomes = [store.claim("slack", f"u1-{i}", limit=("T1", "C1", "U1")).outcome for i in range(USER_LIMIT + 1)]
        assert outcomes == [CLAIMED] * USER_LIMIT + [RATE_LIMITED]
        assert store.claim("slack", "u2-0", limit=("T1", "C1", "U2")).outcome == CLAIMED  # another user
        assert store.claim("slack", "u1-other-team", limit=("T2", "C1", "U1")).outcome == CLAIMED
        assert store.claim("slack", f"u1-{USER_LIMIT}").outcome == CLAIMED  # the limited request wrote no claim
        clock.advance(RATE_WINDOW_S)  # the next window
        assert store.claim("slack", "u1-next", limit=("T1", "C1", "U1")).outcome == CLAIMED

    def test_a_channel_is_limited_at_channel_limit_requests_a_minute(self, store, clock):
        users = [f"U{i}" for i in range(CHANNEL_LIMIT // USER_LIMIT + 1)]
        outcomes = [store.claim("slack", f"c-{i}", limit=("T1", "C1", users[i // USER_LIMIT])).outcome
                    for i in range(CHANNEL_LIMIT + 1)]
        assert outcomes == [CLAIMED] * CHANNEL_LIMIT + [RATE_LIMITED]
        assert store.claim("slack", "c-other", limit=("T1", "C2", users[-1])).outcome == CLAIMED
        clock.advance(RATE_WINDOW_S)
        assert store.claim("slack", "c-next", limit=("T1", "C1", users[-1])).outcome == CLAIMED

    def test_settling_a_rate_limited_claim_records_the_event(self, store, clock):
        for i in range(USER_LIMIT):
            store.claim("slack", f"k{i}", limit=("T1", "C1", "U1"))
        limited = store.claim("slack", "over", limit=("T1", "C1", "U1"))
        assert limited.outcome == RATE_LIMITED
        assert store.settle(limited) is True  # "you are asking too fast" was posted: a retry must not post it again
        clock.advance(RATE_WINDOW_S)
        assert store.claim("slack", "over", limit=("T1", "C1", "U1")).outcome == DUPLICATE

    # ---------------------------------------------------------------- channel settings
    def test_the_retrieval_mode_is_the_default_until_set_per_channel(self, store):
        assert store.retrieval_mode("slack", "T1", "C1", default="rag") == "rag"
        store.set_retrieval_mode("slack", "T1", "C1", "rag+graph", "U1")
        assert store.retrieval_mode("slack", "T1", "C1", default="rag") == "rag+graph"
        store.set_retrieval_mode("slack", "T1", "C1", "rag", "U2")
        assert store.retrieval_mode("slack", "T1", "C1", default="rag+graph") == "rag"
        assert store.retrieval_mode("slack", "T1", "C2", default="rag+graph") == "rag+graph"
        assert store.retrieval_mode("teams", "T1", "C1", default="rag+graph") == "rag+graph"

    def test_an_unknown_retrieval_mode_is_refused_and_changes_nothing(self, store):
        store.set_retrieval_mode("slack", "T1", "C1", "rag+graph", "U1")
        with pytest.raises(ValueError, match="retrieval mode must be one of rag, rag\\+graph"):
            store.set_retrieval_mode("slack", "T1", "C1", "graph-only", "U1")
        assert store.retrieval_mode("slack", "T1", "C1", default="rag") == "rag+graph"

    # ---------------------------------------------------------------- feedback
    def test_one_vote_per_user_and_message_oldest_message_first(self, store):
        store.record_feedback("slack", "T1", "C1", "200.000001", "U1", "up", "Q2?", "A2", "h2")
        store.record_feedback("slack", "T1", "C1", "100.000001", "U1", "up", "Q1?", "A1", "h1")
        store.record_feedback("slack", "T1", "C1", "100.000001", "U2", "up", "Q1?", "A1", "h1")
        store.record_feedback("slack", "T1", "C1", "100.000001", "U1", "down", "Q1?", "A1", "h1")  # changed mind
        store.record_feedback("slack", "T1", "C2", "100.000001", "U1", "up", "elsewhere", "A", "")
        votes = [(v["user"], v["vote"], v["question"], v["answer"], v["ledger_hash"])
                 for v in store.feedback("slack", "T1", "C1")]
        assert votes == [("U1", "down", "Q1?", "A1", "h1"), ("U2", "up", "Q1?", "A1", "h1"),
                         ("U1", "up", "Q2?", "A2", "h2")]
        assert store.feedback("teams", "T1", "C1") == []

    # ---------------------------------------------------------------- turns
    def test_turns_are_the_last_ones_oldest_first(self, store):
        for i in range(8):
            store.add_turn("teams", "conv-1", f"Q{i}", f"A{i}")
        store.add_turn("teams", "conv-2", "other", "conversation")
        assert store.turns("teams", "conv-1") == tuple(Turn(f"Q{i}", f"A{i}") for i in range(2, 8))
        assert store.turns("teams", "conv-1", limit=2) == (Turn("Q6", "A6"), Turn("Q7", "A7"))
        assert store.turns("teams", "conv-2") == (Turn("other", "conversation"),)
        assert store.turns("teams", "conv-3") == ()
        assert store.turns("slack", "conv-1") == ()

    def test_a_turns_answer_is_cut_and_turns_expire_after_thread_ttl(self, store, clock):
        store.add_turn("teams", "conv", "Q?", "x" * (TURN_ANSWER_CHARS + 500))
        (turn,) = store.turns("teams", "conv")
        assert turn == Turn("Q?", "x" * TURN_ANSWER_CHARS)
        clock.advance(THREAD_TTL_S - 1)
        assert len(store.turns("teams", "conv")) == 1
        clock.advance(2)
        assert store.turns("teams", "conv") == ()
