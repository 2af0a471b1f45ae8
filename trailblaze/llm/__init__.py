"""The model seam: the `LLMClient` Protocol and its messages (`client`), the Anthropic and
OpenAI-compatible clients (`anthropic`, `openai`, `_sdk`), choosing a model (`models`), pricing
and the agent's prompts. The SDKs are imported only when a client is made.

May import: common (tests/project/test_layering.py checks it).
"""
