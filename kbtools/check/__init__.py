"""The check stage (`kb check`, pre-commit, CI): front matter schemas, paths and links,
content, formulas and decision tables. Engine in `engine.py`; imports markdown, render,
decision, corpus and schemas.
"""
