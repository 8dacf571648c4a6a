"""The takes of a line: hear, compare, choose and lock."""
