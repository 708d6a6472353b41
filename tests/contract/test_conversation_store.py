"""``ConversationState`` (the template's conversations table on moto server) passes the ``ConversationStore``
contract, with a fake clock so that leases, rate windows and expiry run out without waiting."""

from __future__ import annotations

import pytest

from lcabot.adapters.conversations import ConversationState
from tests.contract.conversation_store_contract import CHANNEL_LIMIT, USER_LIMIT, ConversationStoreContract, FakeClock


class TestConversationState(ConversationStoreContract):
    @pytest.fixture
    def clock(self):
        return FakeClock()

    @pytest.fixture
    def store(self, moto, clock):
        return ConversationState(moto.table("ConversationsTable"), moto.resource("dynamodb"), user_limit=USER_LIMIT,
                                 channel_limit=CHANNEL_LIMIT, clock=clock)
