"""kbtools: a Git-native knowledge repository for AI agents."""

__version__ = "0.1.0"
