"""Rewrite rules as data, the engine that applies them, and the stages of notes Section 3."""
from .catalogue import BY_NAME, RULES
from .engine import RewriteStep, Rewriter, replay, rewrite
from .rule import Rule

__all__ = ["BY_NAME", "RULES", "RewriteStep", "Rewriter", "Rule", "replay", "rewrite"]
