"""Online learners with local regret guarantees (Bowling & Zinkevich, ICML 2012)."""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
