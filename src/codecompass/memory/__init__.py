"""Semantic memory: what agents ask the index to remember about a project.

`bank.MemoryBank` writes (dedupe, secret refusal, caps), recalls (hybrid, within a token
budget) and forgets (TTL, decay, prune); `recall` scores and budgets; `render` turns
memories into text; `capture` proposes memories from a session transcript.
"""
