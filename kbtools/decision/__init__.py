"""Decision tables: parse a Markdown table annotated as a decision table into rules and evaluate
inputs against it. Pure; imports markdown and corpus.
"""
