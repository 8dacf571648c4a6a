"""The pronunciation lexicon panel and its edits."""
